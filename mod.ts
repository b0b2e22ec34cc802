/**
 * Outpost: the tools an LLM agent needs to reach the world — read a web page, search the web,
 * know the date, ask a human, and use the provider's hosted search under a domain policy —
 * on web standards only, for Deno, Cloudflare Workers and Vercel Edge.
 *
 * The root holds the core: {@linkcode tool}, the errors, {@linkcode runToolCalls}, the fence,
 * the seams a deployment plugs into, and each tool family's main factory. Each family has its
 * own entry with all of its surface (`/fetch`, `/search`, `/human`, `/time`, `/hosted`), and
 * each provider one with its wire formats (`/openai`, `/anthropic`, `/gemini`, `/ai-sdk`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { toAnthropicTools } from "@outpost/agent-tools/anthropic";
 * const tools = [now];
 * const definitions = toAnthropicTools(tools);
 * const results = await runToolCalls(tools, [{ id: "1", name: "now", input: { tz: "UTC" } }]);
 * assert.equal(definitions[0].name, "now");
 * assert.equal(results[0].isError, false);
 * ```
 *
 * @module
 */
export { formatToolError } from "./src/format_tool_error.ts";
export {
  type InferInput,
  type Tool,
  tool,
  type ToolAnnotations,
  type ToolDefinition,
} from "./src/tool.ts";
export type { ProgressUpdate, ToolContext } from "./src/tool_context.ts";
export type { ToolOutput, ToolOutputSchema } from "./src/tool_output.ts";
export {
  InvalidInputError,
  OutpostError,
  SetupError,
  ToolError,
  type ToolErrorCode,
  type ToolErrorOptions,
} from "./src/errors.ts";
export type { JsonSchema, ToolInputSchema, ToolParameters } from "./src/json_schema.ts";
export type { InputSchema } from "./src/input_schema.ts";
export { runToolCalls, type ToolCall, type ToolCallResult } from "./src/run_tool_calls.ts";
export type { CallTelemetry } from "./src/call_telemetry.ts";
export type { AccessLogEntry } from "./src/access_log.ts";
export type { Tracer, TraceSpan } from "./src/tracer.ts";
export { disarm, fence, FENCE_BEGIN, FENCE_END, FENCE_NOTE } from "./src/fence.ts";
export type { UrlPolicy } from "./src/url_policy.ts";
export type { PageReader } from "./src/fetch/page.ts";
export type { UrlCache } from "./src/fetch/url_cache.ts";
export type { QuestionChannel } from "./src/human/question_channel.ts";
export type { WebSearch } from "./src/search/web_search.ts";
export { webFetch } from "./src/fetch/web_fetch.ts";
export { webSearch } from "./src/search/web_search.ts";
export { askHuman } from "./src/human/ask_human.ts";
export { now } from "./src/time/now.ts";
export { nativeWebSearch } from "./src/hosted/native_web_search.ts";
export { VERSION } from "./src/version.ts";
