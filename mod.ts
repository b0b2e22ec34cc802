/**
 * Outpost: the tools an LLM agent needs to reach the world — read a web page, search the web,
 * know the date, ask a human, and use the provider's hosted search under a domain policy —
 * on web standards only, for Deno, Cloudflare Workers and Vercel Edge.
 *
 * @example
 * ```ts
 * import { now, runToolCalls, toAnthropicTools } from "@outpost/agent-tools";
 * const tools = [now];
 * const definitions = toAnthropicTools(tools);
 * const results = await runToolCalls(tools, [{ id: "1", name: "now", input: { tz: "UTC" } }]);
 * ```
 *
 * @module
 */
export {
  formatToolError,
  type InferInput,
  InvalidInputError,
  OutpostError,
  type ProgressUpdate,
  type Tool,
  tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolErrorCode,
  type ToolErrorOptions,
  UserError,
} from "./src/tool.ts";
export type { JsonSchema, ToolInputSchema, ToolParameters } from "./src/json_schema.ts";
export type {
  Elicit,
  Elicitation,
  ElicitationField,
  ElicitationResult,
} from "./src/elicitation.ts";
export type { InputSchema, InputSchemaProps, InputSchemaResult } from "./src/input_schema.ts";
export { runToolCalls, type ToolCall, type ToolCallResult } from "./src/run_tool_calls.ts";
export { disarm, fence, FENCE_BEGIN, FENCE_END, FENCE_NOTE } from "./src/fence.ts";
export { showInvisible } from "./src/show_invisible.ts";
export { currentDate, now } from "./src/time.ts";
export { type Clock, sleep, systemClock } from "./src/clock.ts";
export type { UrlPolicy } from "./src/url_policy.ts";
export type { Page, PageImage, PageReader, ReadOptions } from "./src/fetch/page.ts";
export {
  type CachedPage,
  MemoryUrlCache,
  type MemoryUrlCacheOptions,
  type UrlCache,
} from "./src/fetch/url_cache.ts";
export { webFetch, type WebFetchOptions } from "./src/fetch/web_fetch.ts";
export { HttpReader, type HttpReaderOptions } from "./src/fetch/http_reader.ts";
export type { BodyDecoder, DecodeContext, DecodedBody } from "./src/fetch/body_decoder.ts";
export { isPrivateHost, type ResolveHost } from "./src/fetch/address_guard.ts";
export {
  htmlToMarkdown,
  type HtmlToMarkdownOptions,
  type MarkdownResult,
} from "./src/fetch/html_to_markdown/mod.ts";
export {
  type ApprovalDecision,
  type HumanQuestion,
  MAX_ANSWER_LENGTH,
  type QuestionChannel,
  type QuestionOption,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
  REATTACH_WINDOW_MS,
} from "./src/human/question_channel.ts";
export { HumanChannel, type HumanChannelOptions } from "./src/human/human_channel.ts";
export {
  MAX_PENDING_PER_SESSION,
  MAX_PENDING_QUESTIONS,
  type QuestionLimits,
  TooManyQuestionsError,
} from "./src/human/question_limits.ts";
export { askHuman, type AskHumanOptions } from "./src/human/ask_human.ts";
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
} from "./src/adapters/openai.ts";
export {
  type AnthropicTool,
  anthropicToolCalls,
  type AnthropicToolResult,
  anthropicToolResults,
  toAnthropicTools,
} from "./src/adapters/anthropic.ts";
export {
  type GeminiFunctionDeclaration,
  type GeminiFunctionResponsePart,
  type GeminiSchema,
  type GeminiTool,
  geminiToolCalls,
  geminiToolResults,
  type GeminiToolsOptions,
  type GeminiTypeName,
  toGeminiTools,
} from "./src/adapters/gemini.ts";
export {
  type AISDKInputSchema,
  type AISDKTool,
  type AISDKToolsOptions,
  toAISDKTools,
} from "./src/adapters/ai_sdk.ts";
export {
  type AnthropicWebSearchTool,
  type AnthropicWebSearchTool20250305,
  type AnthropicWebSearchTool20260209,
  type ApproximateLocation,
  type HostedSearchLogger,
  type HostedWebSearch,
  nativeWebSearch,
  type NativeWebSearchOptions,
  type OpenAIWebSearchTool,
  type UserLocationParam,
} from "./src/hosted/native_web_search.ts";
export { type Citation, citations, type Source, sources } from "./src/hosted/transcript.ts";
export {
  type AuditOptions,
  DomainPolicy,
  type PolicyWebSearchOptions,
  type Violation,
} from "./src/hosted/domain_policy.ts";
export { VERSION } from "./src/version.ts";
export {
  type SearchOptions,
  type SearchResult,
  type TimeRange,
  type WebSearch,
  webSearch,
  type WebSearchOptions,
} from "./src/search/web_search.ts";
export {
  DuckDuckGoSearch,
  duckduckgoSearch,
  type DuckDuckGoSearchOptions,
} from "./src/search/duckduckgo.ts";
export { TavilySearch, tavilySearch, type TavilySearchOptions } from "./src/search/tavily.ts";
export { requireApproval, type RequireApprovalOptions } from "./src/human/require_approval.ts";
