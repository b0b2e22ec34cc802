import type { ToolCall, ToolCallResult } from "../run_tool_calls.ts";
import { callName, readableList } from "../message_shape.ts";

/** The prefix of ids made up for calls that came without one (older Gemini models). */
const MADE_UP_ID = "gemini_call_";

/**
 * Takes the `functionCall` parts of a Gemini response (a `GenerateContentResponse`, a
 * candidate's `content`, or its `parts`) as {@linkcode runToolCalls} input. A call without an
 * `id` gets one made up, which {@linkcode geminiToolResults} leaves out again, since the API
 * then matches results to calls by name and order. Throws a `TypeError` for another provider's
 * message and for a call without a `name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { geminiToolCalls } from "@outpost/agent-tools/gemini";
 * const response = {
 *   candidates: [{ content: { role: "model", parts: [{ functionCall: { id: "c1", name: "now", args: {} } }] } }],
 * };
 * const calls = geminiToolCalls(response);
 * assert.deepEqual(calls, [{ id: "c1", name: "now", input: {} }]);
 * const [result] = await runToolCalls([now], calls);
 * assert.equal(result.isError, false);
 * ```
 */
export function geminiToolCalls(response: unknown): ToolCall[] {
  const reader = "geminiToolCalls";
  // deno-lint-ignore no-explicit-any
  const r = response as any;
  const parts = Array.isArray(r) ? r : r?.parts ?? r?.candidates?.[0]?.content?.parts ??
    // A response whose prompt or candidate was blocked has no parts, and so no calls.
    (Array.isArray(r?.candidates) || r?.promptFeedback ? [] : undefined);
  return readableList(reader, "a Gemini response", response, parts)
    .filter((part) => (part as { functionCall?: unknown })?.functionCall)
    .map((part, index) => {
      const call = (part as { functionCall: { id?: unknown; name?: unknown; args?: unknown } })
        .functionCall;
      return {
        id: typeof call.id === "string" && call.id !== "" ? call.id : `${MADE_UP_ID}${index}`,
        name: callName(reader, call.name),
        input: call.args ?? {},
      };
    });
}

/**
 * A `functionResponse` part for the next Gemini `user` turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type GeminiFunctionResponsePart, geminiToolResults } from "@outpost/agent-tools/gemini";
 * const part: GeminiFunctionResponsePart = {
 *   functionResponse: { id: "c1", name: "now", response: { output: "…" } },
 * };
 * assert.deepEqual(geminiToolResults([{ id: "c1", name: "now", text: "…", isError: false }]), [part]);
 * ```
 */
export interface GeminiFunctionResponsePart {
  /** The result of one call. */
  functionResponse: {
    /** The id of the call it answers, when the call had one. */
    id?: string;
    /** The tool's name. */
    name: string;
    /** `{ output }` with the text the model sees, or `{ error }` for a failure. */
    response: { output: string } | { error: string };
  };
}

/**
 * Turns {@linkcode runToolCalls} results into `functionResponse` parts: the text under `output`,
 * or under `error` for a failure, as the Gemini API asks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { geminiToolResults } from "@outpost/agent-tools/gemini";
 * const next = {
 *   role: "user",
 *   parts: geminiToolResults([{ id: "c1", name: "now", text: "…", isError: false }]),
 * };
 * assert.deepEqual(next.parts, [{ functionResponse: { id: "c1", name: "now", response: { output: "…" } } }]);
 * ```
 */
export function geminiToolResults(
  results: readonly ToolCallResult[],
): GeminiFunctionResponsePart[] {
  return results.map((r) => ({
    functionResponse: {
      ...(r.id.startsWith(MADE_UP_ID) ? {} : { id: r.id }),
      name: r.name,
      response: r.isError ? { error: r.text } : { output: r.text },
    },
  }));
}
