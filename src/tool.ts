// zod's core, which classic (`zod`) and mini (`zod/mini`) schemas share: a tool takes either,
// and a program whose schemas are all mini bundles none of classic's methods.
import * as z from "zod/v4/core";
import type { InputSchema } from "./input_schema.ts";
import {
  type InputJsonSchemas,
  toJsonSchemas,
  type ToolInputSchema,
  type ToolParameters,
} from "./json_schema.ts";
import { strictOf } from "./strict_schema.ts";
import { describeIssue, describeIssues, prepareInput } from "./validation.ts";
import { InvalidInputError, SetupError } from "./errors.ts";
import { abortable } from "./clock.ts";
import type { ToolContext } from "./tool_context.ts";
import type { ToolOutput, ToolOutputSchema } from "./tool_output.ts";

/**
 * Hints about a tool's behaviour that MCP clients show or act on (for example, to call
 * read-only tools without asking the user). They are hints, not guarantees. MCP reads an unset
 * hint as its default: not read-only, destructive, not idempotent, open world.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolAnnotations } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const hints: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
 * const lookUp = tool({
 *   name: "look_up",
 *   description: "Looks a word up.",
 *   input: z.object({ word: z.string() }),
 *   annotations: hints,
 *   execute: ({ word }) => word,
 * });
 * assert.deepEqual(lookUp.annotations, hints);
 * ```
 */
export interface ToolAnnotations {
  /** A human-readable title for the tool. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite things (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no further effect (when not read-only). */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web, people at large) rather than a closed domain. */
  openWorldHint?: boolean;
}

/**
 * A tool a model can call: its model-facing name and description, its input schema (zod and
 * JSON Schema) and `execute`, which returns the text the model sees.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, type Tool } from "@outpost/agent-tools";
 * const tools: Tool[] = [now];
 * assert.deepEqual(tools.map((t) => t.name), ["now"]);
 * ```
 */
export interface Tool {
  /** The model-facing name, in snake_case. */
  readonly name: string;
  /** What the tool does and when to use it, written for the model. */
  readonly description: string;
  /** The schema `execute` validates its input with (a zod object, as Standard Schema). */
  readonly inputSchema: InputSchema;
  /**
   * The JSON Schema of the input, in the form OpenAI strict mode and Anthropic accept: every
   * property required, optional ones nullable, no additional properties.
   */
  readonly parameters: ToolParameters;
  /**
   * The JSON Schema of the input in the plain form MCP, Anthropic, the AI SDK and OpenAI outside
   * strict mode take without warnings: optional fields are left out of `required`.
   */
  readonly inputJsonSchema: ToolInputSchema;
  /** Whether calls may run beside others; `false` makes each call an execution barrier. */
  readonly parallel: boolean;
  /** Behaviour hints for MCP clients; they stay with the tool whatever it is named. */
  readonly annotations?: Readonly<ToolAnnotations>;
  /** A short name for people, e.g. "Web search" (MCP clients show it instead of `name`). */
  readonly title?: string;
  /**
   * The JSON Schema of the structured result the tool hands {@linkcode
   * ToolContext.reportStructured} beside its text, when it has one.
   */
  readonly outputSchema?: Readonly<ToolOutputSchema>;
  /**
   * Validates `input` and runs the tool. Rejects with {@linkcode ToolError} for failures the
   * model should see, including invalid input.
   */
  execute(input: unknown, ctx?: ToolContext): Promise<string>;
}

/**
 * What {@linkcode tool} builds a {@linkcode Tool} from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolDefinition } from "@outpost/agent-tools";
 * import * as z from "zod";
 *
 * const input = z.object({ text: z.string() });
 * const definition: ToolDefinition<typeof input> = {
 *   name: "word_count",
 *   description: "Counts the words in a text.",
 *   input,
 *   annotations: { readOnlyHint: true, openWorldHint: false },
 *   execute: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
 * };
 * const wordCount = tool(definition);
 * assert.equal(await wordCount.execute({ text: "one two  three" }), "3");
 * ```
 */
export interface ToolDefinition<Schema extends InputSchema> {
  /** The model-facing name: lowercase letters, digits and underscores, starting with a letter. */
  name: string;
  /** What the tool does and when to use it. */
  description: string;
  /**
   * The input, as a zod object schema (`z.object({…})` of `zod` or of `zod/mini`); unknown keys
   * are rejected.
   */
  input: Schema;
  /** Whether calls may run beside others (default `true`). */
  parallel?: boolean;
  /** Behaviour hints for MCP clients, e.g. `{ readOnlyHint: true }`. */
  annotations?: ToolAnnotations;
  /** A short name for people, e.g. "Word count". */
  title?: string;
  /**
   * The JSON Schema (an object) of a structured result; `execute` then returns a
   * {@linkcode ToolOutput}, whose `structured` value goes to `ctx.reportStructured`.
   */
  outputSchema?: ToolOutputSchema;
  /**
   * Runs the tool on validated input and returns the text the model sees, or, with an
   * `outputSchema`, that text and the structured result.
   */
  execute(
    input: InferInput<Schema>,
    ctx: ToolContext,
  ): Promise<string | ToolOutput> | string | ToolOutput;
}

/**
 * The validated input type of a tool schema: what `execute` receives.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { InferInput } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const schema = z.object({ a: z.number() });
 * type Out = InferInput<typeof schema>; // { a: number }
 * const input: Out = { a: 1 };
 * assert.deepEqual(schema.parse(input), input);
 * ```
 */
export type InferInput<Schema extends InputSchema> = NonNullable<
  Schema["~standard"]["types"]
>["output"];

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Validation reports the input it refused, for the error to quote; made once, not per call. */
const REPORT_INPUT = { reportInput: true } as const;

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}

/** What {@linkcode tool} makes of an input schema. */
interface Derived {
  inputSchema: z.$ZodObject;
  parameters: ToolParameters;
  inputJsonSchema: ToolInputSchema;
}

/**
 * Each input schema's {@linkcode Derived}, made once: zod's conversion is most of a tool's
 * set-up, which a Worker that builds its tools for each request would pay every time.
 */
const derivedFrom = new WeakMap<z.$ZodObject, Derived>();

function derive(
  loose: z.$ZodObject,
  schemasOf: (input: z.$ZodObject) => InputJsonSchemas,
): Derived {
  // Classic zod sets English messages when imported; mini leaves them to the program, which then
  // gets ours, as the tools word them (zod's English locale would add a kilobyte to a Worker).
  if (!z.config().localeError) {
    // An issue's path is not known yet here (it is the issue's own field): "the value".
    z.config({
      localeError: (issue) => describeIssue({ ...issue, path: [] } as z.$ZodIssue, "the value"),
    });
  }
  // Exposed strict, so SDKs that validate with it reject unknown keys as `execute` does (as
  // classic's `.strict()`, for either kind of schema).
  // The definition's own descriptors (getters included), as zod's `util.mergeDefs` copies them:
  // reaching it through `z.util` would keep all of zod's utilities in a bundle.
  const def: z.$ZodObjectDef = Object.defineProperties({} as z.$ZodObjectDef, {
    ...Object.getOwnPropertyDescriptors(loose._zod.def),
    catchall: {
      value: new z.$ZodNever({ type: "never" }),
      enumerable: true,
      writable: true,
      configurable: true,
    },
  });
  const inputSchema = z.clone(loose, def) as z.$ZodObject;
  const { strict: parameters, portable: inputJsonSchema } = schemasOf(inputSchema);
  return { inputSchema, parameters, inputJsonSchema };
}

/**
 * Builds a {@linkcode Tool} from a zod object schema. `execute` receives validated input;
 * invalid input becomes an {@linkcode InvalidInputError} (a `ToolError`) that names each bad field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool } from "@outpost/agent-tools";
 * import * as z from "zod";
 *
 * const add = tool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => String(a + b),
 * });
 * assert.equal(await add.execute({ a: 1, b: 2 }), "3");
 * ```
 */
export function tool<Schema extends InputSchema>(definition: ToolDefinition<Schema>): Tool {
  return defineTool(definition, (input) => {
    try {
      return toJsonSchemas(input);
    } catch (error) {
      throw new SetupError(`Tool ${definition.name}: ${(error as Error).message}`, {
        hint:
          "Build the input from objects with named keys, arrays, strings, numbers, booleans and enums.",
        cause: error,
      });
    }
  });
}

/**
 * {@linkcode tool} with its input's JSON Schemas given rather than converted: the bundled
 * families' come from `family_schemas.ts`, so that a bundle of them (the Worker) carries no
 * zod-to-JSON-Schema conversion, about a fifth of its size.
 */
export function presetTool<Schema extends InputSchema>(
  definition: ToolDefinition<Schema>,
  portable: ToolInputSchema,
): Tool {
  // Copied when read, as every tool's are (see defineTool).
  return defineTool(definition, () => ({ strict: strictOf(portable), portable }));
}

function defineTool<Schema extends InputSchema>(
  definition: ToolDefinition<Schema>,
  schemasOf: (input: z.$ZodObject) => InputJsonSchemas,
): Tool {
  const { name, description, parallel = true, annotations, title, outputSchema, execute } =
    definition;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new SetupError(`Invalid tool name ${JSON.stringify(name)}.`, {
      hint: "Use snake_case: lowercase letters, digits and underscores, at most 64 characters.",
    });
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new SetupError(`Tool ${name} needs a description.`);
  }
  if (title !== undefined && (typeof title !== "string" || title.trim() === "")) {
    throw new SetupError(`Tool ${name}: \`title\` must be a non-empty string.`);
  }
  if (outputSchema !== undefined && outputSchema?.type !== "object") {
    throw new SetupError(`Tool ${name}: \`outputSchema\` must be an object schema.`, {
      hint: 'Give it `type: "object"`; MCP carries structured results as JSON objects only.',
    });
  }
  if (!(definition.input instanceof z.$ZodObject)) {
    throw new SetupError(`Tool ${name} needs a zod object schema as its input.`, {
      hint: "Pass `input: z.object({ … })`.",
    });
  }
  const loose = definition.input as z.$ZodObject;
  let derived = derivedFrom.get(loose);
  if (!derived) derivedFrom.set(loose, derived = derive(loose, schemasOf));
  const { inputSchema } = derived;
  // Each tool's JSON Schemas are its own, which a caller may change; copied when first read, as
  // most tools built for one request (a Worker's) are called, not listed.
  let parameters: ToolParameters | undefined;
  let inputJsonSchema: ToolInputSchema | undefined;
  return {
    name,
    description,
    inputSchema: inputSchema as InputSchema,
    get parameters() {
      return parameters ??= structuredClone(derived.parameters);
    },
    get inputJsonSchema() {
      return inputJsonSchema ??= structuredClone(derived.inputJsonSchema);
    },
    parallel,
    ...(annotations === undefined ? {} : { annotations: Object.freeze({ ...annotations }) }),
    ...(title === undefined ? {} : { title }),
    ...(outputSchema === undefined ? {} : { outputSchema: structuredClone(outputSchema) }),
    async execute(input: unknown, ctx: ToolContext = {}): Promise<string> {
      ctx.signal?.throwIfAborted();
      const prepared = prepareInput(loose, input);
      const parsed = z.safeParse(loose, prepared.value, REPORT_INPUT);
      if (!parsed.success || prepared.unknownKeys.length > 0) {
        const issues = [...(parsed.error?.issues ?? []), ...prepared.unknownKeys];
        throw new InvalidInputError(`Invalid input for ${name}: ${describeIssues(issues)}`, {
          hint: "Fix the arguments named above and call the tool again.",
        });
      }
      const signal = ctx.signal;
      const result = execute(parsed.data as InferInput<Schema>, ctx);
      // A result already there (a synchronous tool, such as `now`) has nothing left to abort,
      // nor to wait for.
      const output = !isThenable(result)
        ? result
        : signal
        ? await abortable(Promise.resolve(result), signal)
        : await result;
      // A result that does not match the declaration is the tool's bug, not the model's.
      if ((typeof output === "string") !== (outputSchema === undefined)) {
        throw new Error(
          outputSchema === undefined
            ? `Tool ${name} returned a structured result but declares no outputSchema.`
            : `Tool ${name} declares an outputSchema but returned no structured result.`,
        );
      }
      if (typeof output === "string") return output;
      ctx.reportStructured?.(output.structured);
      return output.text;
    },
  };
}
