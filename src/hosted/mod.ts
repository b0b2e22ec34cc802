/**
 * The provider's own web search under your rules: {@linkcode nativeWebSearch} configures
 * Anthropic's and OpenAI's hosted search tools, {@linkcode DomainPolicy} guards `webFetch` and
 * `webSearch` and audits hosted answers, and {@linkcode sources} and {@linkcode citations} read
 * what a hosted search consulted from a transcript in the provider's own shapes.
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
  type HostedSearchLogger,
  type HostedWebSearch,
  nativeWebSearch,
  type NativeWebSearchOptions,
} from "./native_web_search.ts";
export type { ApproximateLocation, UserLocationParam } from "./location.ts";
export {
  type AuditOptions,
  DomainPolicy,
  type PolicyWebSearchOptions,
  type Violation,
} from "./domain_policy.ts";
export { type Citation, citations, type Source, sources } from "./transcript.ts";
