/**
 * Anthropic's wire formats: tools for the Messages API, their `tool_use` calls and
 * `tool_result` blocks, and the hosted web search and web fetch tool objects
 * `nativeWebSearch(...).toAnthropic()` and `nativeWebFetch(...).toAnthropic()` return.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import {
 *   anthropicToolCalls,
 *   anthropicToolResults,
 *   toAnthropicTools,
 * } from "@outpost/agent-tools/anthropic";
 * const tools = [now];
 * assert.equal(toAnthropicTools(tools)[0].name, "now");
 * const message = {
 *   role: "assistant",
 *   content: [{ type: "tool_use", id: "toolu_1", name: "now", input: { tz: "UTC" } }],
 * };
 * const results = anthropicToolResults(await runToolCalls(tools, anthropicToolCalls(message)));
 * assert.equal(results[0].tool_use_id, "toolu_1");
 * ```
 *
 * @module
 */
export {
  type AnthropicTool,
  anthropicToolCalls,
  type AnthropicToolResult,
  anthropicToolResults,
  toAnthropicTools,
} from "./adapter.ts";
export type {
  AnthropicWebSearchTool,
  AnthropicWebSearchTool20250305,
  AnthropicWebSearchTool20260209,
} from "./web_search_tool.ts";
export type {
  AnthropicWebFetchTool,
  AnthropicWebFetchTool20250910,
  AnthropicWebFetchTool20260309,
} from "./web_fetch_tool.ts";
