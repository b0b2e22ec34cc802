// zod's core, which classic (`zod`) and mini (`zod/mini`) schemas share: a tool takes either,
// and a program whose schemas are all mini bundles none of classic's methods.
import * as z from "zod/v4/core";
// The English messages alone: `z.locales` would bring every language.
import en from "zod/v4/locales/en.js";
import type { Elicit } from "./elicitation.ts";
import { quoteText } from "./fence.ts";
import type { InputSchema } from "./input_schema.ts";
import {
  type JsonSchema,
  toJsonSchemas,
  type ToolInputSchema,
  type ToolParameters,
} from "./json_schema.ts";
import { describeIssues, prepareInput } from "./validation.ts";
import { InvalidInputError, SetupError, ToolError } from "./errors.ts";
import type { Tracer } from "./tracer.ts";

/**
 * What a tool call runs under: the caller's abort signal and the ids that tie the call to a
 * session, a run and the model's tool-call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolContext } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const whoAmI = tool({
 *   name: "who_am_i",
 *   description: "Names the call.",
 *   input: z.object({}),
 *   execute: (_input, ctx) => `call ${ctx?.toolCallId}`,
 * });
 * const ctx: ToolContext = { signal: AbortSignal.timeout(10_000), toolCallId: "call_1" };
 * assert.equal(await whoAmI.execute({}, ctx), "call call_1");
 * ```
 */
export interface ToolContext {
  /** Aborting it makes the call reject promptly. */
  signal?: AbortSignal;
  /** The conversation or user session the call belongs to. */
  sessionId?: string;
  /** One agent run inside the session. */
  runId?: string;
  /** The provider's id for this tool call. */
  toolCallId?: string;
  /**
   * Set by a caller that can tell its client what the call is doing (MCP progress
   * notifications): a long-running tool reports its state, e.g. "Waiting for an operator".
   */
  reportProgress?: (update: ProgressUpdate) => void;
  /**
   * Set when the calling client can put a form in front of its user (an MCP client with the
   * `elicitation` capability): `ask_human` then asks that user directly.
   */
  elicit?: Elicit;
  /**
   * Set by a host that traces calls: a tool that makes requests starts a client span per
   * request with it, under the call's span.
   */
  tracer?: Tracer;
  /**
   * Set by a host that keeps an access log: a tool that reads a URL says so, with the body bytes
   * it read from the network and whether a cache answered instead. The log keeps only the host.
   */
  noteRead?: (read: { url: string; bytes?: number; cacheHit?: boolean }) => void;
  /**
   * Set by a caller that can pass on something that went wrong without failing the call (MCP:
   * a `notifications/message` at level `warning`). The model is told in the result's text too.
   */
  warn?: (message: string) => void;
  /**
   * Set by a caller that can carry a structured result beside the text (MCP
   * `structuredContent`): a tool with an `outputSchema` hands it the value its text shows.
   */
  reportStructured?: (value: Record<string, unknown>) => void;
}

/**
 * What a running tool says it is doing, through {@linkcode ToolContext.reportProgress}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProgressUpdate, tool } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const update: ProgressUpdate = { message: "Downloaded 340 KB of at most 1 MB", progress: 340_000, total: 1_000_000 };
 * const download = tool({
 *   name: "download",
 *   description: "Downloads a file.",
 *   input: z.object({}),
 *   execute: (_input, ctx) => {
 *     ctx?.reportProgress?.(update);
 *     return "done";
 *   },
 * });
 * const seen: ProgressUpdate[] = [];
 * await download.execute({}, { reportProgress: (u) => seen.push(u) });
 * assert.deepEqual(seen, [update]);
 * ```
 */
export interface ProgressUpdate {
  /** A short, present-tense sentence for a person, without a final period. */
  message: string;
  /** How far along, in the unit of `total` (bytes, items…), when it can be counted. */
  progress?: number;
  /** The most `progress` can reach, when known. */
  total?: number;
}

/**
 * Renders an error as the text a model sees: `Error: …` and, when there is one, `Hint: …`.
 * Errors other than {@linkcode ToolError} are named without their stack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatToolError, ToolError } from "@outpost/agent-tools";
 * const text = formatToolError(new ToolError("Timed out.", { hint: "Try again later." }));
 * assert.equal(text, "Error: Timed out.\nHint: Try again later.");
 * ```
 */
export function formatToolError(error: unknown): string {
  if (error instanceof ToolError || error instanceof SetupError) {
    return error.hint ? `Error: ${error.message}\nHint: ${error.hint}` : `Error: ${error.message}`;
  }
  if (error instanceof Error) {
    const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
    return `Error: unexpected failure: ${quoteText(`${name}${error.message}`, 500)}`;
  }
  return `Error: unexpected failure: ${quoteText(String(error), 500)}`;
}

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
 * The JSON Schema of a tool's structured result (MCP `outputSchema`): always an object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolOutputSchema } from "@outpost/agent-tools";
 * import { now } from "@outpost/agent-tools/time";
 * const schema: ToolOutputSchema | undefined = now.outputSchema;
 * assert.equal(schema?.type, "object");
 * ```
 */
export interface ToolOutputSchema extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
}

/**
 * What a tool with an `outputSchema` returns: the text the model sees and the same result as a
 * value of that schema, for programs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolOutput } from "@outpost/agent-tools";
 * import * as z from "zod";
 *
 * const wordCount = tool({
 *   name: "word_count",
 *   description: "Counts the words in a text.",
 *   input: z.object({ text: z.string() }),
 *   outputSchema: { type: "object", properties: { count: { type: "integer" } } },
 *   execute: ({ text }): ToolOutput => {
 *     const count = text.split(/\s+/).filter(Boolean).length;
 *     return { text: `${count} words`, structured: { count } };
 *   },
 * });
 * const structured: unknown[] = [];
 * const text = await wordCount.execute({ text: "one two three" }, {
 *   reportStructured: (value) => structured.push(value),
 * });
 * assert.equal(text, "3 words");
 * assert.deepEqual(structured, [{ count: 3 }]);
 * ```
 */
export interface ToolOutput {
  /** The text the model sees. */
  text: string;
  /** The result as a value of the tool's `outputSchema`. */
  structured: Record<string, unknown>;
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
  // Classic zod sets English messages when imported; mini leaves them to the program. Messages
  // (in `inputSchema`'s issues too) read the same either way, unless the program chose a locale.
  if (!z.config().localeError) z.config(en());
  const loose = definition.input as z.$ZodObject;
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
  let parameters: ToolParameters;
  let inputJsonSchema: ToolInputSchema;
  try {
    ({ strict: parameters, portable: inputJsonSchema } = toJsonSchemas(inputSchema));
  } catch (error) {
    throw new SetupError(`Tool ${name}: ${(error as Error).message}`, {
      hint:
        "Build the input from objects with named keys, arrays, strings, numbers, booleans and enums.",
      cause: error,
    });
  }
  return {
    name,
    description,
    inputSchema: inputSchema as InputSchema,
    parameters,
    inputJsonSchema,
    parallel,
    ...(annotations === undefined ? {} : { annotations: Object.freeze({ ...annotations }) }),
    ...(title === undefined ? {} : { title }),
    ...(outputSchema === undefined ? {} : { outputSchema: structuredClone(outputSchema) }),
    async execute(input: unknown, ctx: ToolContext = {}): Promise<string> {
      ctx.signal?.throwIfAborted();
      const prepared = prepareInput(loose, input);
      const parsed = z.safeParse(loose, prepared.value, { reportInput: true });
      const issues = [...(parsed.error?.issues ?? []), ...prepared.unknownKeys];
      if (!parsed.success || issues.length > 0) {
        throw new InvalidInputError(`Invalid input for ${name}: ${describeIssues(issues)}`, {
          hint: "Fix the arguments named above and call the tool again.",
        });
      }
      const signal = ctx.signal;
      const data = parsed.data as InferInput<Schema>;
      const work = Promise.resolve(execute(data, ctx));
      const output = signal ? await abortable(work, signal) : await work;
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

/** Rejects as soon as `signal` aborts, even when the work itself ignores the signal. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
