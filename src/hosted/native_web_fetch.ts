import { type AnthropicWebFetchTool, anthropicWebFetchTool } from "../anthropic/web_fetch_tool.ts";
import { type GeminiUrlContextTool, geminiUrlContextTool } from "../gemini/grounding.ts";
import { checkOption, flag, positiveInteger } from "../option_checks.ts";
import {
  type GeminiHostedOptions,
  hostedBasics,
  type HostedSearchLogger,
} from "./hosted_options.ts";

/**
 * Options of {@linkcode nativeWebFetch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch, type NativeWebFetchOptions } from "@outpost/agent-tools/hosted";
 * const options: NativeWebFetchOptions = { allowedDomains: ["docs.deno.com"], citations: true };
 * assert.deepEqual(nativeWebFetch(options).toAnthropic().citations, { enabled: true });
 * ```
 */
export interface NativeWebFetchOptions {
  /** Only these domains may be fetched; the rule grammar of `nativeWebSearch`. */
  allowedDomains?: readonly string[];
  /** These domains may never be fetched. Not together with `allowedDomains`. */
  blockedDomains?: readonly string[];
  /** At most this many fetches per request (a positive integer). Anthropic only. */
  maxUses?: number;
  /** Whether the model cites the fetched pages (Anthropic's default: no). Anthropic only. */
  citations?: boolean;
  /** Roughly how many tokens of page text one fetch may add (a positive integer). Anthropic only. */
  maxContentTokens?: number;
  /**
   * `false` fetches afresh rather than from the provider's cache; setting it selects
   * Anthropic's `web_fetch_20260309`. Anthropic only.
   */
  useCache?: boolean;
  /** Where notes about ignored options go (default `console`). */
  logger?: HostedSearchLogger;
}

/**
 * A validated provider-hosted web fetch configuration, turned into each provider's tool object
 * on demand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * const fetchTool = nativeWebFetch({ blockedDomains: ["pinterest.com"], maxUses: 3 });
 * assert.deepEqual(fetchTool.toAnthropic().blocked_domains, ["pinterest.com"]);
 * ```
 */
export interface HostedWebFetch {
  /** The allow list, canonical. */
  readonly allowedDomains?: readonly string[];
  /** The block list, canonical. */
  readonly blockedDomains?: readonly string[];
  /** Fetches allowed per request. */
  readonly maxUses?: number;
  /** Whether the model cites the fetched pages. */
  readonly citations?: boolean;
  /** Tokens of page text per fetch. */
  readonly maxContentTokens?: number;
  /** Whether the provider's cache may answer. */
  readonly useCache?: boolean;
  /** The Anthropic Messages API tool object (`web_fetch_20250910`, or `…20260309` with `useCache`). */
  toAnthropic(): AnthropicWebFetchTool;
  /**
   * The Gemini API `url_context` tool (`{ urlContext: {} }`). Gemini cannot filter domains:
   * with domain rules this throws {@linkcode SetupError} unless `{ auditOnly: true }` accepts
   * that `DomainPolicy.audit` checks them afterwards. The Anthropic-only options are logged and
   * ignored.
   */
  toGemini(options?: GeminiHostedOptions): GeminiUrlContextTool;
}

const OPTION_KEYS = new Set([
  "allowedDomains",
  "blockedDomains",
  "maxUses",
  "citations",
  "maxContentTokens",
  "useCache",
  "logger",
]);

/**
 * Configures the provider's own web fetch (Anthropic's `web_fetch`, Gemini's `url_context`),
 * validated as {@linkcode nativeWebSearch} is: unknown options, bad domain rules, both lists at
 * once and bad numbers are a {@linkcode SetupError} before any request, and a domain rule a
 * provider cannot enforce is never dropped silently.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * const fetchTool = nativeWebFetch({
 *   allowedDomains: ["docs.deno.com"],
 *   citations: true,
 *   maxContentTokens: 20_000,
 * });
 * assert.deepEqual(fetchTool.toAnthropic(), {
 *   type: "web_fetch_20250910",
 *   name: "web_fetch",
 *   allowed_domains: ["docs.deno.com"],
 *   citations: { enabled: true },
 *   max_content_tokens: 20_000,
 * });
 * assert.throws(() => fetchTool.toGemini(), /url_context/);
 * ```
 */
export function nativeWebFetch(options: NativeWebFetchOptions = {}): HostedWebFetch {
  const { allowed, blocked, ignore } = hostedBasics("nativeWebFetch", options, OPTION_KEYS);
  const { maxUses, citations, maxContentTokens, useCache } = options;
  if (maxUses !== undefined) checkOption("maxUses", maxUses, positiveInteger);
  if (citations !== undefined) checkOption("citations", citations, flag);
  if (maxContentTokens !== undefined) {
    checkOption("maxContentTokens", maxContentTokens, positiveInteger);
  }
  if (useCache !== undefined) checkOption("useCache", useCache, flag);
  const fetch: HostedWebFetch = {
    ...(allowed && { allowedDomains: allowed }),
    ...(blocked && { blockedDomains: blocked }),
    ...(maxUses !== undefined && { maxUses }),
    ...(citations !== undefined && { citations }),
    ...(maxContentTokens !== undefined && { maxContentTokens }),
    ...(useCache !== undefined && { useCache }),
    toAnthropic: () => anthropicWebFetchTool(fetch),
    toGemini: (geminiOptions) => geminiUrlContextTool(fetch, geminiOptions, ignore("Gemini")),
  };
  return Object.freeze(fetch);
}
