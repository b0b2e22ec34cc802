import type { ToolCall, ToolCallResult } from "../run_tool_calls.ts";
import type { ToolInputSchema, ToolParameters } from "../json_schema.ts";
import type { Tool } from "../tool.ts";
import { callId, callName, readableList } from "../message_shape.ts";

/**
 * A function tool for OpenAI Chat Completions (`tools` in the request).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type OpenAIChatTool, toOpenAIChatTools } from "@outpost/agent-tools/openai";
 * const tools: OpenAIChatTool[] = toOpenAIChatTools([now]);
 * assert.equal(tools[0].function.name, "now");
 * ```
 */
export interface OpenAIChatTool {
  /** Always `"function"`. */
  type: "function";
  /** The function's definition. */
  function: {
    name: string;
    description: string;
    parameters: ToolParameters | ToolInputSchema;
    strict: boolean;
  };
}

/**
 * Options of the OpenAI definition adapters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type OpenAIToolsOptions, toOpenAIChatTools } from "@outpost/agent-tools/openai";
 * const options: OpenAIToolsOptions = { strict: false };
 * const tools = toOpenAIChatTools([now], options);
 * assert.equal(tools[0].function.strict, false);
 * ```
 */
export interface OpenAIToolsOptions {
  /**
   * Strict mode (default `true`): the strict schema, every field required and optional ones
   * nullable, which OpenAI then guarantees the arguments match. `false` sends the plain schema,
   * optional fields left out of `required`.
   */
  strict?: boolean;
}

/**
 * Maps tools to OpenAI Chat Completions function tools, in strict mode unless told otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toOpenAIChatTools } from "@outpost/agent-tools/openai";
 * const body = { model: "gpt-5", messages: [], tools: toOpenAIChatTools([now]) };
 * assert.deepEqual(body.tools.map((t) => [t.type, t.function.name, t.function.strict]), [
 *   ["function", "now", true],
 * ]);
 * ```
 */
export function toOpenAIChatTools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions = {},
): OpenAIChatTool[] {
  const strict = options.strict ?? true;
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: strict ? t.parameters : t.inputJsonSchema,
      strict,
    },
  }));
}

/**
 * A function tool for the OpenAI Responses API (`tools` in the request).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type OpenAIResponsesTool, toOpenAIResponsesTools } from "@outpost/agent-tools/openai";
 * const tools: OpenAIResponsesTool[] = toOpenAIResponsesTools([now]);
 * assert.equal(tools[0].name, "now");
 * ```
 */
export interface OpenAIResponsesTool {
  /** Always `"function"`. */
  type: "function";
  /** The tool's name. */
  name: string;
  /** The tool's description. */
  description: string;
  /** The JSON Schema of its arguments. */
  parameters: ToolParameters | ToolInputSchema;
  /** Whether OpenAI enforces the schema (strict mode). */
  strict: boolean;
}

/**
 * Maps tools to OpenAI Responses API function tools, in strict mode unless told otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toOpenAIResponsesTools } from "@outpost/agent-tools/openai";
 * const body = { model: "gpt-5", input: "What time is it?", tools: toOpenAIResponsesTools([now]) };
 * assert.deepEqual(body.tools.map((t) => [t.type, t.name, t.strict]), [["function", "now", true]]);
 * ```
 */
export function toOpenAIResponsesTools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions = {},
): OpenAIResponsesTool[] {
  const strict = options.strict ?? true;
  return tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: strict ? t.parameters : t.inputJsonSchema,
    strict,
  }));
}

/** Parses a model's JSON arguments; text that is not JSON is passed on for validation to reject. */
function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Takes the `function_call` items of an OpenAI Responses output (a `Response` or its `output`
 * array) as {@linkcode runToolCalls} input; other items are skipped. Throws a `TypeError` for
 * another provider's message and for a `function_call` without a `call_id` or a `name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { openAIResponsesToolCalls } from "@outpost/agent-tools/openai";
 * const output = [{ type: "function_call", call_id: "c1", name: "now", arguments: "{}" }];
 * const calls = openAIResponsesToolCalls(output);
 * assert.deepEqual(calls, [{ id: "c1", name: "now", input: {} }]);
 * const [result] = await runToolCalls([now], calls);
 * assert.equal(result.isError, false);
 * ```
 */
export function openAIResponsesToolCalls(response: unknown): ToolCall[] {
  const reader = "openAIResponsesToolCalls";
  const items = Array.isArray(response) ? response : (response as { output?: unknown })?.output;
  return readableList(reader, "an OpenAI Responses output", response, items)
    .filter((item) => (item as { type?: unknown })?.type === "function_call")
    .map((item) => {
      const call = item as { call_id?: unknown; name?: unknown; arguments?: unknown };
      return {
        id: callId(reader, "call_id", call.call_id, call.name),
        name: callName(reader, call.name),
        input: parseArguments(call.arguments),
      };
    });
}

/**
 * A `function_call_output` input item for the OpenAI Responses API.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type OpenAIFunctionCallOutput, openAIResponsesToolOutputs } from "@outpost/agent-tools/openai";
 * const item: OpenAIFunctionCallOutput = { type: "function_call_output", call_id: "c1", output: "ok" };
 * const results = [{ id: "c1", name: "now", text: "ok", isError: false }];
 * assert.deepEqual(openAIResponsesToolOutputs(results), [item]);
 * ```
 */
export interface OpenAIFunctionCallOutput {
  /** Always `"function_call_output"`. */
  type: "function_call_output";
  /** The id of the `function_call` this answers. */
  call_id: string;
  /** The text the model sees. */
  output: string;
}

/**
 * Turns {@linkcode runToolCalls} results into Responses API `function_call_output` items.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAIResponsesToolOutputs } from "@outpost/agent-tools/openai";
 * const items = openAIResponsesToolOutputs([{ id: "c1", name: "now", text: "…", isError: false }]);
 * assert.deepEqual(items, [{ type: "function_call_output", call_id: "c1", output: "…" }]);
 * ```
 */
export function openAIResponsesToolOutputs(
  results: readonly ToolCallResult[],
): OpenAIFunctionCallOutput[] {
  return results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.text }));
}

/**
 * Takes the `tool_calls` of a Chat Completions assistant message (the message, a choice, a
 * whole completion's first choice, or the `tool_calls` array) as {@linkcode runToolCalls}
 * input; a message without `tool_calls` has none. Throws a `TypeError` for another provider's
 * message and for a call without an `id` or a name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { openAIChatToolCalls } from "@outpost/agent-tools/openai";
 * const message = {
 *   role: "assistant",
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "now", arguments: "{}" } }],
 * };
 * const calls = openAIChatToolCalls(message);
 * assert.deepEqual(calls, [{ id: "c1", name: "now", input: {} }]);
 * const [result] = await runToolCalls([now], calls);
 * assert.equal(result.isError, false);
 * ```
 */
export function openAIChatToolCalls(message: unknown): ToolCall[] {
  const reader = "openAIChatToolCalls";
  // deno-lint-ignore no-explicit-any
  const m = message as any;
  const replied = m?.message ?? m?.choices?.[0]?.message ?? m;
  // An assistant message (or a choice or completion holding one) without calls has none to run.
  const calls = Array.isArray(m)
    ? m
    : replied?.tool_calls ?? (typeof replied?.role === "string" ? [] : undefined);
  return readableList(reader, "an OpenAI Chat Completions message", message, calls)
    .filter((call) => (call as { type?: unknown })?.type === "function")
    .map((entry) => {
      const call = entry as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const name = call.function?.name;
      return {
        id: callId(reader, "id", call.id, name),
        name: callName(reader, name),
        input: parseArguments(call.function?.arguments),
      };
    });
}

/**
 * A Chat Completions `tool` message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type OpenAIChatToolMessage, openAIChatToolMessages } from "@outpost/agent-tools/openai";
 * const message: OpenAIChatToolMessage = { role: "tool", tool_call_id: "c1", content: "ok" };
 * const results = [{ id: "c1", name: "now", text: "ok", isError: false }];
 * assert.deepEqual(openAIChatToolMessages(results), [message]);
 * ```
 */
export interface OpenAIChatToolMessage {
  /** Always `"tool"`. */
  role: "tool";
  /** The id of the tool call this answers. */
  tool_call_id: string;
  /** The text the model sees. */
  content: string;
}

/**
 * Turns {@linkcode runToolCalls} results into Chat Completions `tool` messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openAIChatToolMessages } from "@outpost/agent-tools/openai";
 * const messages = openAIChatToolMessages([{ id: "c1", name: "now", text: "…", isError: false }]);
 * assert.deepEqual(messages, [{ role: "tool", tool_call_id: "c1", content: "…" }]);
 * ```
 */
export function openAIChatToolMessages(
  results: readonly ToolCallResult[],
): OpenAIChatToolMessage[] {
  return results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.text }));
}
