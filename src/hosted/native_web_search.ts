import {
  type AnthropicWebSearchTool,
  anthropicWebSearchTool,
} from "../anthropic/web_search_tool.ts";
import { type GeminiGoogleSearchTool, geminiGoogleSearchTool } from "../gemini/grounding.ts";
import { checkOption, flag, oneOf, positiveInteger } from "../option_checks.ts";
import { type OpenAIWebSearchTool, openAIWebSearchTool } from "../openai/web_search_tool.ts";
import {
  type GeminiHostedOptions,
  hostedBasics,
  type HostedSearchLogger,
} from "./hosted_options.ts";
import { type ApproximateLocation, parseLocation } from "./location.ts";

/**
 * Options of {@linkcode nativeWebSearch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch, type NativeWebSearchOptions } from "@outpost/agent-tools/hosted";
 * const options: NativeWebSearchOptions = { allowedDomains: ["docs.python.org"], maxUses: 3 };
 * assert.deepEqual(nativeWebSearch(options).toAnthropic(), {
 *   type: "web_search_20250305",
 *   name: "web_search",
 *   max_uses: 3,
 *   allowed_domains: ["docs.python.org"],
 * });
 * ```
 */
export interface NativeWebSearchOptions {
  /**
   * Only these domains may be searched. A rule is a bare ASCII registrable domain
   * (`example.com`, covering its subdomains; not a public suffix such as `co.uk` nor a single
   * label such as `localhost`), optionally with a path prefix matched on whole segments
   * (`example.com/blog` covers `/blog` and `/blog/…`, not `/blogger`); `*` is allowed once,
   * in the path. Not together with `blockedDomains`.
   */
  allowedDomains?: readonly string[];
  /** These domains may never be searched; same rule grammar. Anthropic only. */
  blockedDomains?: readonly string[];
  /** At most this many searches per request (a positive integer). Anthropic only. */
  maxUses?: number;
  /** Where the user roughly is. */
  userLocation?: ApproximateLocation;
  /** How much search context the model gets. OpenAI only. */
  searchContextSize?: "low" | "medium" | "high";
  /**
   * Lets Claude filter results with code before they enter its context
   * (`web_search_20260209`, on models that support it). Anthropic only; default `false`.
   */
  dynamicFiltering?: boolean;
  /**
   * `false` keeps OpenAI's search offline, on its cache only (`external_web_access`). OpenAI
   * only; default: live access.
   */
  externalWebAccess?: boolean;
  /** Where notes about ignored options go (default `console`). */
  logger?: HostedSearchLogger;
}

/**
 * A validated provider-hosted web search configuration, turned into each provider's tool
 * object on demand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * const search = nativeWebSearch({ allowedDomains: ["developer.mozilla.org"] });
 * const body = { model: "gpt-5", input: "What is a Response?", tools: [search.toOpenAI()] };
 * assert.deepEqual(body.tools, [
 *   { type: "web_search", filters: { allowed_domains: ["developer.mozilla.org"] } },
 * ]);
 * ```
 */
export interface HostedWebSearch {
  /** The allow list, canonical (lower-case hosts, normalized paths). */
  readonly allowedDomains?: readonly string[];
  /** The block list, canonical. */
  readonly blockedDomains?: readonly string[];
  /** Searches allowed per request. */
  readonly maxUses?: number;
  /** Where the user roughly is, canonical (upper-case country, canonical time zone). */
  readonly userLocation?: Readonly<ApproximateLocation>;
  /** How much search context the model gets. */
  readonly searchContextSize?: "low" | "medium" | "high";
  /** Whether Anthropic's dynamic-filtering version is used. */
  readonly dynamicFiltering: boolean;
  /** Whether OpenAI's search may reach the live web (`undefined`: OpenAI's default, yes). */
  readonly externalWebAccess?: boolean;
  /**
   * The Anthropic Messages API tool object. `searchContextSize` has no Anthropic equivalent
   * and is logged and ignored.
   */
  toAnthropic(): AnthropicWebSearchTool;
  /**
   * The OpenAI Responses API tool object. Throws {@linkcode SetupError} for domain restrictions
   * OpenAI cannot enforce (`blockedDomains`, path rules, more than 100 domains) rather than
   * drop them; `maxUses` and `dynamicFiltering` are logged and ignored. Chat Completions has no
   * such tool: use the Responses API.
   */
  toOpenAI(): OpenAIWebSearchTool;
  /**
   * The Gemini API `google_search` tool (`{ googleSearch: {} }`, a `Tool` of `@google/genai`).
   * Gemini cannot filter domains: with domain rules this throws {@linkcode SetupError} unless
   * `{ auditOnly: true }` accepts that `DomainPolicy.audit` checks them afterwards. Every other
   * option is logged and ignored.
   */
  toGemini(options?: GeminiHostedOptions): GeminiGoogleSearchTool;
}

const OPTION_KEYS = new Set([
  "allowedDomains",
  "blockedDomains",
  "maxUses",
  "userLocation",
  "searchContextSize",
  "dynamicFiltering",
  "externalWebAccess",
  "logger",
]);
const CONTEXT_SIZES = oneOf(["low", "medium", "high"]);
/**
 * Configures the provider's own web search (Anthropic Messages, OpenAI Responses, Gemini's
 * `google_search`), validating
 * everything up front: unknown options, domain rules, both lists at once, `maxUses`, the
 * country code and the time zone are rejected with {@linkcode SetupError} before any request.
 *
 * Domain restrictions a provider cannot enforce are never dropped silently: the conversion
 * throws. Tuning options a provider lacks are logged and ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 *
 * const search = nativeWebSearch({
 *   blockedDomains: ["pinterest.com"],
 *   maxUses: 5,
 *   userLocation: { city: "Berlin", country: "DE", timezone: "Europe/Berlin" },
 * });
 * const body = {
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   messages: [{ role: "user", content: "Latest Deno release?" }],
 *   tools: [search.toAnthropic()],
 * };
 * assert.deepEqual(body.tools[0].blocked_domains, ["pinterest.com"]);
 * assert.equal(body.tools[0].max_uses, 5);
 * ```
 */
export function nativeWebSearch(options: NativeWebSearchOptions = {}): HostedWebSearch {
  const { allowed, blocked, ignore } = hostedBasics("nativeWebSearch", options, OPTION_KEYS);
  const { maxUses, userLocation, searchContextSize, externalWebAccess } = options;
  if (maxUses !== undefined) checkOption("maxUses", maxUses, positiveInteger);
  if (searchContextSize !== undefined) {
    checkOption("searchContextSize", searchContextSize, CONTEXT_SIZES);
  }
  const dynamicFiltering = checkOption("dynamicFiltering", options.dynamicFiltering ?? false, flag);
  if (externalWebAccess !== undefined) checkOption("externalWebAccess", externalWebAccess, flag);
  const location = userLocation === undefined ? undefined : parseLocation(userLocation);

  const search: HostedWebSearch = {
    ...(allowed && { allowedDomains: Object.freeze(allowed) }),
    ...(blocked && { blockedDomains: Object.freeze(blocked) }),
    ...(maxUses !== undefined && { maxUses }),
    ...(location && { userLocation: Object.freeze(location) }),
    ...(searchContextSize !== undefined && { searchContextSize }),
    dynamicFiltering,
    ...(externalWebAccess !== undefined && { externalWebAccess }),
    toAnthropic: () => anthropicWebSearchTool(search, ignore("Anthropic")),
    toOpenAI: () => openAIWebSearchTool(search, ignore("OpenAI")),
    toGemini: (geminiOptions) => geminiGoogleSearchTool(search, geminiOptions, ignore("Gemini")),
  };
  return Object.freeze(search);
}
