/**
 * The provider's own web search and fetch under your rules: {@linkcode nativeWebSearch}
 * configures Anthropic's, OpenAI's and Gemini's hosted search tools, {@linkcode nativeWebFetch}
 * Anthropic's web fetch and Gemini's URL context, {@linkcode DomainPolicy} guards `webFetch` and
 * `webSearch` and audits hosted answers, and {@linkcode sources} and {@linkcode citations} read
 * what a hosted tool consulted from a transcript in the provider's own shapes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DomainPolicy, nativeWebSearch } from "@outpost/agent-tools/hosted";
 * const policy = DomainPolicy.allow(["deno.com"]);
 * const search = nativeWebSearch({ allowedDomains: ["deno.com"] });
 * assert.equal(search.toAnthropic().type, "web_search_20250305");
 * assert.equal(policy.permits("https://evil.example/"), false);
 * ```
 *
 * @module
 */
export {
  type HostedWebSearch,
  nativeWebSearch,
  type NativeWebSearchOptions,
} from "./native_web_search.ts";
export {
  type HostedWebFetch,
  nativeWebFetch,
  type NativeWebFetchOptions,
} from "./native_web_fetch.ts";
export type { GeminiHostedOptions, HostedSearchLogger } from "./hosted_options.ts";
export type { ApproximateLocation, UserLocationParam } from "./location.ts";
export {
  type AuditOptions,
  DomainPolicy,
  type PolicyWebFetchOptions,
  type PolicyWebSearchOptions,
  type Violation,
} from "./domain_policy.ts";
export { type Citation, citations, type Source, sources } from "./transcript.ts";
