import type { UserLocationParam } from "../hosted/location.ts";
import type { HostedWebSearch } from "../hosted/native_web_search.ts";

/**
 * The Anthropic Messages API web search tool (`tools` entry), basic version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebSearchTool20250305 } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebSearchTool20250305 = { type: "web_search_20250305", name: "web_search" };
 * assert.deepEqual(nativeWebSearch().toAnthropic(), tool);
 * ```
 */
export interface AnthropicWebSearchTool20250305 {
  /** The tool version. */
  type: "web_search_20250305";
  /** Always `"web_search"`. */
  name: "web_search";
  /** Searches allowed per request. */
  max_uses?: number;
  /** Only these domains. */
  allowed_domains?: string[];
  /** Never these domains. */
  blocked_domains?: string[];
  /** Where the user roughly is. */
  user_location?: UserLocationParam;
}

/**
 * The Anthropic Messages API web search tool with dynamic filtering.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebSearchTool20260209 } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebSearchTool20260209 = { type: "web_search_20260209", name: "web_search" };
 * assert.deepEqual(nativeWebSearch({ dynamicFiltering: true }).toAnthropic(), tool);
 * ```
 */
export interface AnthropicWebSearchTool20260209
  extends Omit<AnthropicWebSearchTool20250305, "type"> {
  /** The dynamic-filtering tool version. */
  type: "web_search_20260209";
}

/**
 * Either Anthropic web search tool version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebSearchTool } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebSearchTool = nativeWebSearch().toAnthropic();
 * assert.equal(tool.type, "web_search_20250305");
 * ```
 */
export type AnthropicWebSearchTool =
  | AnthropicWebSearchTool20250305
  | AnthropicWebSearchTool20260209;

/**
 * The Anthropic tool object for a validated hosted search. `warn(option, why)` notes an option
 * this tool has no setting for.
 */
export function anthropicWebSearchTool(
  search: HostedWebSearch,
  warn: (option: string, why: string) => void,
): AnthropicWebSearchTool {
  const { allowedDomains, blockedDomains, maxUses, userLocation, searchContextSize } = search;
  if (searchContextSize !== undefined) {
    warn("searchContextSize", "its web search tool has no such setting");
  }
  if (search.externalWebAccess !== undefined) {
    warn("externalWebAccess", "its web search tool has no offline mode");
  }
  const rest = {
    name: "web_search" as const,
    ...(maxUses !== undefined && { max_uses: maxUses }),
    ...(allowedDomains && { allowed_domains: [...allowedDomains] }),
    ...(blockedDomains?.length && { blocked_domains: [...blockedDomains] }),
    ...(userLocation && { user_location: { type: "approximate" as const, ...userLocation } }),
  };
  return search.dynamicFiltering
    ? { type: "web_search_20260209", ...rest }
    : { type: "web_search_20250305", ...rest };
}
