import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import type { InputSchema } from "../input_schema.ts";
import type { JsonSchema } from "../json_schema.ts";
import { abortable } from "../clock.ts";
import { formatToolError } from "../format_tool_error.ts";
import type { Tool } from "../tool.ts";

/**
 * A schema in the Standard JSON Schema v1 shape (`@standard-schema/spec`): one that converts
 * itself to JSON Schema for a given target.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type StandardJsonSchema, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const schema: StandardJsonSchema = toAISDKTools([now]).now.inputSchema;
 * assert.equal(schema["~standard"].jsonSchema.input({ target: "draft-07" }).type, "object");
 * ```
 */
// A plain alias (no type arguments) keeps `deno doc --lint` from calling the npm type private.
export type StandardJsonSchema = StandardJSONSchemaV1;

/**
 * The input schema handed to the AI SDK: Standard Schema with its JSON Schema converter, which
 * the SDK sends to the provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const schema = toAISDKTools([now]).now.inputSchema;
 * assert.equal(schema["~standard"].vendor, "outpost");
 * ```
 */
export type AISDKInputSchema = InputSchema & StandardJsonSchema;

/**
 * A tool in the Vercel AI SDK's `tool()` shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKTool, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const nowTool: AISDKTool = toAISDKTools([now]).now;
 * const text = await nowTool.execute({ tz: "UTC" }, { toolCallId: "call_1" });
 * assert.match(text, /Z|\+00:00/);
 * ```
 */
export interface AISDKTool {
  /** The tool's description. */
  description: string;
  /** The schema the SDK derives the provider's JSON Schema from. */
  inputSchema: AISDKInputSchema;
  /** Whether providers that have a strict mode use it for this tool. */
  strict: boolean;
  /**
   * Runs the tool; failures reject with an error that the SDK renders as the model text once
   * (`Error: …` with the hint).
   */
  execute(
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ): Promise<string>;
}

/**
 * Options of {@linkcode toAISDKTools}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKToolsOptions, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const options: AISDKToolsOptions = { strict: true };
 * const tools = toAISDKTools([now], options);
 * assert.equal(tools.now.strict, true);
 * ```
 */
export interface AISDKToolsOptions {
  /**
   * Send the strict-mode schema (every field required, optional ones nullable) and mark the
   * tools `strict`, for providers such as OpenAI that then guarantee valid input (default
   * `false`: the plain schema, optional fields left out of `required`).
   */
  strict?: boolean;
}

/**
 * Maps tools to a Vercel AI SDK tool set, keyed by tool name, for `generateText({ tools })`.
 * The SDK runs all calls of a step at once; the tools of one `toAISDKTools` call keep
 * `parallel: false` anyway: a call to such a tool (like `ask_human`) waits for the calls already
 * running and holds back later ones until it ends, as `runToolCalls` does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const tools = toAISDKTools([now]);
 * assert.deepEqual(Object.keys(tools), ["now"]);
 * assert.equal(tools.now.strict, false);
 * ```
 */
export function toAISDKTools(
  tools: readonly Tool[],
  options: AISDKToolsOptions = {},
): Record<string, AISDKTool> {
  const strict = options.strict ?? false;
  const turn = barrier();
  const out: Record<string, AISDKTool> = {};
  for (const t of tools) {
    const schema = (): JsonSchema => strict ? t.parameters : t.inputJsonSchema;
    out[t.name] = {
      description: t.description,
      strict,
      inputSchema: {
        "~standard": {
          version: 1,
          vendor: "outpost",
          // The tool validates in `execute`, once, with its own model-readable messages and the
          // null-for-omitted reading strict providers need; validating here too would run
          // transforms twice and reject those nulls.
          validate: (value: unknown) => ({ value }),
          jsonSchema: { input: schema, output: schema },
        },
      },
      async execute(input, { toolCallId, abortSignal }) {
        const run = turn(t.parallel, async () => {
          try {
            return await t.execute(input, { toolCallId, signal: abortSignal });
          } catch (error) {
            throw new AISDKToolError(error);
          }
        });
        if (!abortSignal) return await run;
        // A call still waiting for its turn ends at once when aborted; its turn then ends it too.
        run.catch(() => {});
        return await abortable(run, abortSignal);
      },
    };
  }
  return out;
}

/**
 * The SDK shows the model `String(error)`, which is `Error: ` and the message: the message is
 * therefore our model text without its own `Error: `, so that the prefix comes once and the
 * hint travels along.
 */
class AISDKToolError extends Error {
  constructor(cause: unknown) {
    super(formatToolError(cause).replace(/^Error: /, ""), { cause });
  }
}

/**
 * Orders calls as `runToolCalls` does, but as they arrive: a parallel call waits only for a
 * barrier started before it; a barrier waits for every call started before it and holds back
 * later ones until it ends.
 */
function barrier(): <T>(parallel: boolean, run: () => Promise<T>) => Promise<T> {
  let gate: Promise<unknown> = Promise.resolve();
  const running = new Set<Promise<unknown>>();
  return <T>(parallel: boolean, run: () => Promise<T>): Promise<T> => {
    let result: Promise<T>;
    if (parallel) {
      result = gate.then(run);
    } else {
      const earlier = [...running, gate];
      result = Promise.allSettled(earlier).then(run);
      gate = result.catch(() => {});
    }
    running.add(result);
    const done = () => running.delete(result);
    result.then(done, done);
    return result;
  };
}
