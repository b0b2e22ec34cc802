import type { HostedWebFetch } from "../hosted/native_web_fetch.ts";

/**
 * The Anthropic Messages API web fetch tool (`tools` entry), first version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebFetchTool20250910 } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebFetchTool20250910 = { type: "web_fetch_20250910", name: "web_fetch" };
 * assert.deepEqual(nativeWebFetch().toAnthropic(), tool);
 * ```
 */
export interface AnthropicWebFetchTool20250910 {
  /** The tool version. */
  type: "web_fetch_20250910";
  /** Always `"web_fetch"`. */
  name: "web_fetch";
  /** Fetches allowed per request. */
  max_uses?: number;
  /** Only these domains. */
  allowed_domains?: string[];
  /** Never these domains. */
  blocked_domains?: string[];
  /** Whether Claude cites the fetched pages (off by default). */
  citations?: { enabled: boolean };
  /** Roughly how many tokens of page text enter the context, per fetch. */
  max_content_tokens?: number;
}

/**
 * The Anthropic web fetch tool version that can bypass Anthropic's cache (`use_cache`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebFetchTool20260309 } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebFetchTool20260309 = {
 *   type: "web_fetch_20260309",
 *   name: "web_fetch",
 *   use_cache: false,
 * };
 * assert.deepEqual(nativeWebFetch({ useCache: false }).toAnthropic(), tool);
 * ```
 */
export interface AnthropicWebFetchTool20260309 extends Omit<AnthropicWebFetchTool20250910, "type"> {
  /** The tool version with `use_cache`. */
  type: "web_fetch_20260309";
  /** `false` fetches the page afresh instead of from Anthropic's cache. */
  use_cache?: boolean;
}

/**
 * Either Anthropic web fetch tool version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * import type { AnthropicWebFetchTool } from "@outpost/agent-tools/anthropic";
 * const tool: AnthropicWebFetchTool = nativeWebFetch({ maxUses: 2 }).toAnthropic();
 * assert.equal(tool.max_uses, 2);
 * ```
 */
export type AnthropicWebFetchTool = AnthropicWebFetchTool20250910 | AnthropicWebFetchTool20260309;

/**
 * The Anthropic tool object for a validated hosted fetch: the `use_cache` version only when
 * `useCache` is set, so the first version keeps working on models without the newer one.
 */
export function anthropicWebFetchTool(fetch: HostedWebFetch): AnthropicWebFetchTool {
  const { allowedDomains, blockedDomains, maxUses, citations, maxContentTokens, useCache } = fetch;
  const rest = {
    name: "web_fetch" as const,
    ...(maxUses !== undefined && { max_uses: maxUses }),
    ...(allowedDomains && { allowed_domains: [...allowedDomains] }),
    ...(blockedDomains?.length && { blocked_domains: [...blockedDomains] }),
    ...(citations !== undefined && { citations: { enabled: citations } }),
    ...(maxContentTokens !== undefined && { max_content_tokens: maxContentTokens }),
  };
  return useCache === undefined
    ? { type: "web_fetch_20250910", ...rest }
    : { type: "web_fetch_20260309", ...rest, use_cache: useCache };
}
