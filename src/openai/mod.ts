/**
 * OpenAI's wire formats: tools for the Responses and Chat Completions APIs, their calls and
 * results, and the hosted web search tool object `nativeWebSearch(...).toOpenAI()` returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import {
 *   openAIResponsesToolCalls,
 *   openAIResponsesToolOutputs,
 *   toOpenAIResponsesTools,
 * } from "@outpost/agent-tools/openai";
 * const tools = [now];
 * assert.equal(toOpenAIResponsesTools(tools)[0].name, "now");
 * const response = {
 *   output: [{ type: "function_call", call_id: "call_1", name: "now", arguments: '{"tz":"UTC"}' }],
 * };
 * const outputs = openAIResponsesToolOutputs(
 *   await runToolCalls(tools, openAIResponsesToolCalls(response)),
 * );
 * assert.equal(outputs[0].call_id, "call_1");
 * ```
 *
 * @module
 */
export {
  type OpenAIChatTool,
  openAIChatToolCalls,
  type OpenAIChatToolMessage,
  openAIChatToolMessages,
  type OpenAIFunctionCallOutput,
  type OpenAIResponsesTool,
  openAIResponsesToolCalls,
  openAIResponsesToolOutputs,
  type OpenAIToolsOptions,
  toOpenAIChatTools,
  toOpenAIResponsesTools,
} from "./adapter.ts";
export type { OpenAIWebSearchTool } from "./web_search_tool.ts";
