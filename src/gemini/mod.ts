/**
 * Gemini's wire formats: function declarations (with Gemini's schema subset), the function
 * calls of a response and the function responses that answer them, and the grounding tools
 * `nativeWebSearch(...).toGemini()` and `nativeWebFetch(...).toGemini()` return.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toGeminiTools } from "@outpost/agent-tools/gemini";
 * const [declarations] = toGeminiTools([now]);
 * assert.equal(declarations.functionDeclarations[0].name, "now");
 * ```
 *
 * @module
 */
export { toGeminiTools } from "./adapter.ts";
export type {
  GeminiFunctionDeclaration,
  GeminiSchema,
  GeminiTool,
  GeminiToolsOptions,
  GeminiTypeName,
} from "./schema.ts";
export {
  type GeminiFunctionResponsePart,
  geminiToolCalls,
  geminiToolResults,
} from "./tool_calls.ts";
export type { GeminiGoogleSearchTool, GeminiUrlContextTool } from "./grounding.ts";
