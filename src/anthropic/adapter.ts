import type { ToolCall, ToolCallResult } from "../run_tool_calls.ts";
import type { ToolInputSchema } from "../json_schema.ts";
import type { Tool } from "../tool.ts";
import { callId, callName, readableList } from "../message_shape.ts";

/**
 * A client tool for the Anthropic Messages API (`tools` in the request).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AnthropicTool, toAnthropicTools } from "@outpost/agent-tools/anthropic";
 * const tools: AnthropicTool[] = toAnthropicTools([now]);
 * assert.equal(tools[0].name, "now");
 * ```
 */
export interface AnthropicTool {
  /** The tool's name. */
  name: string;
  /** The tool's description. */
  description: string;
  /** The JSON Schema of its input, optional fields left out of `required`. */
  input_schema: ToolInputSchema;
}

/**
 * Maps tools to Anthropic Messages API tool definitions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAnthropicTools } from "@outpost/agent-tools/anthropic";
 * const body = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [], tools: toAnthropicTools([now]) };
 * assert.equal(body.tools[0].input_schema.type, "object");
 * ```
 */
export function toAnthropicTools(tools: readonly Tool[]): AnthropicTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputJsonSchema,
  }));
}

/**
 * Takes the `tool_use` blocks of an Anthropic `Message` (or its `content` array) as
 * {@linkcode runToolCalls} input; other blocks are skipped. Throws a `TypeError` for another
 * provider's message (an OpenAI or Gemini response would otherwise read as "no calls" and end
 * the agent loop quietly) and for a `tool_use` block without an `id` or a `name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { anthropicToolCalls } from "@outpost/agent-tools/anthropic";
 * const content = [{ type: "tool_use", id: "toolu_1", name: "now", input: {} }];
 * const calls = anthropicToolCalls(content);
 * assert.deepEqual(calls, [{ id: "toolu_1", name: "now", input: {} }]);
 * const [result] = await runToolCalls([now], calls);
 * assert.equal(result.isError, false);
 * ```
 */
export function anthropicToolCalls(message: unknown): ToolCall[] {
  const reader = "anthropicToolCalls";
  const content = Array.isArray(message) ? message : (message as { content?: unknown })?.content;
  // An assistant turn written as a plain string holds no calls.
  const list = typeof content === "string" ? [] : content;
  return readableList(reader, "an Anthropic message", message, list)
    .filter((block) => (block as { type?: unknown })?.type === "tool_use")
    .map((block) => {
      const { id, name, input } = block as { id?: unknown; name?: unknown; input?: unknown };
      return { id: callId(reader, "id", id, name), name: callName(reader, name), input };
    });
}

/**
 * A `tool_result` content block for the next user message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AnthropicToolResult, anthropicToolResults } from "@outpost/agent-tools/anthropic";
 * const block: AnthropicToolResult = { type: "tool_result", tool_use_id: "toolu_1", content: "ok", is_error: false };
 * const results = [{ id: "toolu_1", name: "now", text: "ok", isError: false }];
 * assert.deepEqual(anthropicToolResults(results), [block]);
 * ```
 */
export interface AnthropicToolResult {
  /** Always `"tool_result"`. */
  type: "tool_result";
  /** The id of the `tool_use` block this answers. */
  tool_use_id: string;
  /** The text the model sees. */
  content: string;
  /** Whether `content` reports a failure. */
  is_error: boolean;
}

/**
 * Turns {@linkcode runToolCalls} results into `tool_result` blocks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anthropicToolResults } from "@outpost/agent-tools/anthropic";
 * const message = {
 *   role: "user",
 *   content: anthropicToolResults([{ id: "toolu_1", name: "now", text: "…", isError: false }]),
 * };
 * assert.deepEqual(message.content, [
 *   { type: "tool_result", tool_use_id: "toolu_1", content: "…", is_error: false },
 * ]);
 * ```
 */
export function anthropicToolResults(results: readonly ToolCallResult[]): AnthropicToolResult[] {
  return results.map((r) => ({
    type: "tool_result",
    tool_use_id: r.id,
    content: r.text,
    is_error: r.isError,
  }));
}
