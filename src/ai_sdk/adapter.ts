import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import type { InputSchema } from "../input_schema.ts";
import type { JsonSchema } from "../json_schema.ts";
import { abortable } from "../clock.ts";
import { formatToolError } from "../format_tool_error.ts";
import type { Tool } from "../tool.ts";
import type { ProgressUpdate } from "../tool_context.ts";

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
 * What an AI SDK tool's `execute` returns: the text the model sees, as a promise, and at once an
 * async iterable that the SDK reads for preliminary tool results — the call's progress messages
 * (such as `Waiting for an operator to approve deploy`) while it runs, then the final text. A
 * reader that falls behind gets the latest progress, not every step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKExecution, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const run: AISDKExecution = toAISDKTools([now]).now.execute({ tz: "UTC" }, { toolCallId: "c" });
 * const outputs: string[] = [];
 * for await (const output of run) outputs.push(output);
 * assert.equal(outputs.at(-1), await run);
 * ```
 */
export type AISDKExecution = Promise<string> & AsyncIterable<string>;

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
   * (`Error: …` with the hint). Awaited, it gives the text; iterated (as the SDK does), it gives
   * the call's progress as preliminary results first (see {@linkcode AISDKExecution}).
   */
  execute(
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ): AISDKExecution;
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
      execute(input, { toolCallId, abortSignal }) {
        const progress = progressFeed();
        const run = turn(t.parallel, async () => {
          try {
            return await t.execute(input, {
              toolCallId,
              signal: abortSignal,
              reportProgress: progress.report,
            });
          } catch (error) {
            throw new AISDKToolError(error);
          }
        });
        // A call still waiting for its turn ends at once when aborted; its turn then ends it too.
        if (abortSignal) run.catch(() => {});
        // Rejected, never thrown: a caller awaits or iterates what `execute` returns.
        const done = !abortSignal
          ? run
          : abortSignal.aborted
          ? Promise.reject(abortSignal.reason)
          : abortable(run, abortSignal);
        return Object.assign(done, { [Symbol.asyncIterator]: () => progress.follow(done) });
      },
    };
  }
  return out;
}

/**
 * A call's progress as the SDK's preliminary results: the latest message not yet read (a slow
 * reader skips the ones in between, so nothing piles up), then the final text.
 */
function progressFeed(): {
  report: (update: ProgressUpdate) => void;
  follow: (done: Promise<string>) => AsyncGenerator<string>;
} {
  let latest: string | undefined;
  let wake = () => {};
  return {
    report(update) {
      latest = update.message;
      wake();
    },
    async *follow(done) {
      let finished = false;
      const settled = done.then(() => finished = true, () => finished = true);
      while (!finished || latest !== undefined) {
        if (latest !== undefined) {
          const message = latest;
          latest = undefined;
          yield message;
          continue;
        }
        await Promise.race([settled, new Promise<void>((resolve) => wake = resolve)]);
      }
      yield await done;
    },
  };
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
