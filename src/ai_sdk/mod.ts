/**
 * The Vercel AI SDK's tool shape: {@linkcode toAISDKTools} turns tools into a tool set for
 * `generateText({ tools })`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const tools = toAISDKTools([now]);
 * assert.equal(typeof tools.now.execute, "function");
 * ```
 *
 * @module
 */
export {
  type AISDKExecution,
  type AISDKInputSchema,
  type AISDKTool,
  type AISDKToolsOptions,
  recordAISDKApprovals,
  type StandardJsonSchema,
  toAISDKTools,
} from "./adapter.ts";
