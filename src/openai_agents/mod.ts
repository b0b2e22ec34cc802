/**
 * OpenAI Agents JS's tool shape: {@linkcode toOpenAIAgentsTools} turns tools into function tools
 * for `new Agent({ tools })`, with `requireApproval` as the run's own approval interruptions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toOpenAIAgentsTools } from "@outpost/agent-tools/openai-agents";
 * const [nowTool] = toOpenAIAgentsTools([now]);
 * assert.equal(typeof nowTool.invoke, "function");
 * ```
 *
 * @module
 */
export {
  type AgentsRunContext,
  type AgentsRunState,
  type OpenAIAgentsTool,
  type OpenAIAgentsToolsOptions,
  recordOpenAIAgentsDecisions,
  toOpenAIAgentsTools,
} from "./adapter.ts";
