import { UserError } from "../errors.ts";
import {
  checkOption,
  flag,
  implementing,
  nonEmptyString,
  oneOf,
  positiveInteger,
} from "../option_checks.ts";
import { describeValue } from "../validation.ts";
import { parseDomainRules } from "./domain_rule.ts";

/**
 * Where the user roughly is, so the provider localizes results. Every field is optional.
 *
 * @example
 * ```ts
 * import type { ApproximateLocation } from "@outpost/agent-tools";
 * const where: ApproximateLocation = { city: "Lyon", country: "FR", timezone: "Europe/Paris" };
 * ```
 */
export interface ApproximateLocation {
  /** Free-text city, e.g. `San Francisco`. */
  city?: string;
  /** Free-text region, e.g. `California`. */
  region?: string;
  /** ISO 3166-1 alpha-2 country code, e.g. `US` (any case; sent upper-case). */
  country?: string;
  /** IANA time zone, e.g. `America/Los_Angeles` (sent in canonical form). */
  timezone?: string;
}

/**
 * Receives the notes about options a provider cannot honour and that are therefore ignored.
 * `console` is one.
 *
 * @example
 * ```ts
 * import type { HostedSearchLogger } from "@outpost/agent-tools";
 * const notes: string[] = [];
 * const logger: HostedSearchLogger = { warn: (message) => notes.push(message) };
 * ```
 */
export interface HostedSearchLogger {
  /** Called once per ignored option and provider. */
  warn(message: string): void;
}

/**
 * Options of {@linkcode nativeWebSearch}.
 *
 * @example
 * ```ts
 * import type { NativeWebSearchOptions } from "@outpost/agent-tools";
 * const options: NativeWebSearchOptions = { allowedDomains: ["docs.python.org"], maxUses: 3 };
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
  /** Where notes about ignored options go (default `console`). */
  logger?: HostedSearchLogger;
}

/**
 * The user location object both providers take (`type: "approximate"`).
 *
 * @example
 * ```ts
 * import type { UserLocationParam } from "@outpost/agent-tools";
 * const location: UserLocationParam = { type: "approximate", country: "GB" };
 * ```
 */
export interface UserLocationParam extends ApproximateLocation {
  /** Always `"approximate"`. */
  type: "approximate";
}

/**
 * The Anthropic Messages API web search tool (`tools` entry), basic version.
 *
 * @example
 * ```ts
 * import type { AnthropicWebSearchTool20250305 } from "@outpost/agent-tools";
 * const tool: AnthropicWebSearchTool20250305 = { type: "web_search_20250305", name: "web_search" };
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
 * import type { AnthropicWebSearchTool20260209 } from "@outpost/agent-tools";
 * const tool: AnthropicWebSearchTool20260209 = { type: "web_search_20260209", name: "web_search" };
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
 * import { type AnthropicWebSearchTool, nativeWebSearch } from "@outpost/agent-tools";
 * const tool: AnthropicWebSearchTool = nativeWebSearch().toAnthropic();
 * ```
 */
export type AnthropicWebSearchTool =
  | AnthropicWebSearchTool20250305
  | AnthropicWebSearchTool20260209;

/**
 * The OpenAI Responses API web search tool (`tools` entry).
 *
 * @example
 * ```ts
 * import type { OpenAIWebSearchTool } from "@outpost/agent-tools";
 * const tool: OpenAIWebSearchTool = { type: "web_search", search_context_size: "low" };
 * ```
 */
export interface OpenAIWebSearchTool {
  /** Always `"web_search"`. */
  type: "web_search";
  /** Domain filters. */
  filters?: {
    /** Only these domains (and their subdomains). */
    allowed_domains: string[];
  };
  /** Where the user roughly is. */
  user_location?: UserLocationParam;
  /** How much search context the model gets. */
  search_context_size?: "low" | "medium" | "high";
}

/**
 * A validated provider-hosted web search configuration, turned into each provider's tool
 * object on demand.
 *
 * @example
 * ```ts
 * import { nativeWebSearch } from "@outpost/agent-tools";
 * const search = nativeWebSearch({ allowedDomains: ["developer.mozilla.org"] });
 * const body = { model: "gpt-5", input: "What is a Response?", tools: [search.toOpenAI()] };
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
  /**
   * The Anthropic Messages API tool object. `searchContextSize` has no Anthropic equivalent
   * and is logged and ignored.
   */
  toAnthropic(): AnthropicWebSearchTool;
  /**
   * The OpenAI Responses API tool object. Throws {@linkcode UserError} for domain restrictions
   * OpenAI cannot enforce (`blockedDomains`, path rules, more than 100 domains) rather than
   * drop them; `maxUses` and `dynamicFiltering` are logged and ignored. Chat Completions has no
   * such tool: use the Responses API.
   */
  toOpenAI(): OpenAIWebSearchTool;
}

const OPTION_KEYS = new Set([
  "allowedDomains",
  "blockedDomains",
  "maxUses",
  "userLocation",
  "searchContextSize",
  "dynamicFiltering",
  "logger",
]);
const LOCATION_KEYS = ["city", "region", "country", "timezone"] as const;
const CONTEXT_SIZES = oneOf(["low", "medium", "high"]);
const OPENAI_MAX_DOMAINS = 100;
// ISO 3166-1 alpha-2 officially assigned codes.
const COUNTRIES = new Set(
  ("AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ " +
    "BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM " +
    "DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS " +
    "GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN " +
    "KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ " +
    "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM " +
    "PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV " +
    "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI " +
    "VN VU WF WS YE YT ZA ZM ZW").split(" "),
);

/**
 * Configures the provider's own web search (Anthropic Messages, OpenAI Responses), validating
 * everything up front: unknown options, domain rules, both lists at once, `maxUses`, the
 * country code and the time zone are rejected with {@linkcode UserError} before any request.
 *
 * Domain restrictions a provider cannot enforce are never dropped silently: the conversion
 * throws. Tuning options a provider lacks are logged and ignored.
 *
 * @example
 * ```ts
 * import { nativeWebSearch } from "@outpost/agent-tools";
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
 * ```
 */
export function nativeWebSearch(options: NativeWebSearchOptions = {}): HostedWebSearch {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new UserError(
      `nativeWebSearch options must be an object, not ${describeValue(options)}.`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !OPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw new UserError(
      `Unknown nativeWebSearch option${unknown.length === 1 ? "" : "s"} ${
        unknown.map((k) => `\`${k}\``).join(", ")
      }.`,
      { hint: `Known options: ${[...OPTION_KEYS].join(", ")}.` },
    );
  }
  const { allowedDomains, blockedDomains, maxUses, userLocation, searchContextSize } = options;
  if (allowedDomains !== undefined && blockedDomains !== undefined) {
    throw new UserError("Pass allowedDomains or blockedDomains, not both.", {
      hint: "An allow list already blocks everything else.",
    });
  }
  const allowed = allowedDomains === undefined
    ? undefined
    : parseDomainRules(allowedDomains, "allowedDomains").map((rule) => rule.text);
  if (allowed?.length === 0) {
    throw new UserError("allowedDomains is empty, which would allow no domain at all.", {
      hint: "List at least one domain, or leave allowedDomains out.",
    });
  }
  const blocked = blockedDomains === undefined
    ? undefined
    : parseDomainRules(blockedDomains, "blockedDomains").map((rule) => rule.text);
  if (maxUses !== undefined) checkOption("maxUses", maxUses, positiveInteger);
  if (searchContextSize !== undefined) {
    checkOption("searchContextSize", searchContextSize, CONTEXT_SIZES);
  }
  const dynamicFiltering = checkOption("dynamicFiltering", options.dynamicFiltering ?? false, flag);
  const logger = checkOption(
    "logger",
    options.logger ?? console,
    implementing<HostedSearchLogger>("HostedSearchLogger", ["warn"], "warn(message)"),
  );
  const location = userLocation === undefined ? undefined : parseLocation(userLocation);

  const warned = new Set<string>();
  const ignore = (option: string, provider: string, why: string) => {
    const key = `${provider}:${option}`;
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(`nativeWebSearch: ${option} is ignored for ${provider}: ${why}.`);
  };
  const userLocationParam = () =>
    location === undefined ? {} : { user_location: { type: "approximate" as const, ...location } };

  const search: HostedWebSearch = {
    ...(allowed && { allowedDomains: Object.freeze(allowed) }),
    ...(blocked && { blockedDomains: Object.freeze(blocked) }),
    ...(maxUses !== undefined && { maxUses }),
    ...(location && { userLocation: Object.freeze(location) }),
    ...(searchContextSize !== undefined && { searchContextSize }),
    dynamicFiltering,
    toAnthropic(): AnthropicWebSearchTool {
      if (searchContextSize !== undefined) {
        ignore("searchContextSize", "Anthropic", "its web search tool has no such setting");
      }
      const rest = {
        name: "web_search" as const,
        ...(maxUses !== undefined && { max_uses: maxUses }),
        ...(allowed && { allowed_domains: [...allowed] }),
        ...(blocked?.length && { blocked_domains: [...blocked] }),
        ...userLocationParam(),
      };
      return dynamicFiltering
        ? { type: "web_search_20260209", ...rest }
        : { type: "web_search_20250305", ...rest };
    },
    toOpenAI(): OpenAIWebSearchTool {
      if (blocked?.length) {
        throw new UserError(
          "OpenAI's web_search tool has no blocked-domains filter; sending it without one would " +
            "let the model search the domains you meant to block.",
          {
            hint: "Use allowedDomains, use Anthropic's tool, or search with webSearch under a " +
              "DomainPolicy; audit hosted answers with DomainPolicy.audit.",
          },
        );
      }
      const pathRule = allowed?.find((rule) => rule.includes("/"));
      if (pathRule !== undefined) {
        throw new UserError(
          `OpenAI's allowed_domains filter matches whole domains, so the path in ${
            JSON.stringify(pathRule)
          } cannot be enforced.`,
          { hint: "Use domain-only rules for OpenAI, and audit answers with DomainPolicy.audit." },
        );
      }
      if (allowed && allowed.length > OPENAI_MAX_DOMAINS) {
        throw new UserError(
          `OpenAI's allowed_domains filter takes at most ${OPENAI_MAX_DOMAINS} domains, not ${allowed.length}.`,
          { hint: "Narrow the list, or use Anthropic's tool." },
        );
      }
      if (maxUses !== undefined) {
        ignore("maxUses", "OpenAI", "the Responses web_search tool has no search limit");
      }
      if (dynamicFiltering) {
        ignore("dynamicFiltering", "OpenAI", "it is an Anthropic tool version");
      }
      return {
        type: "web_search",
        ...(allowed && { filters: { allowed_domains: [...allowed] } }),
        ...userLocationParam(),
        ...(searchContextSize !== undefined && { search_context_size: searchContextSize }),
      };
    },
  };
  return Object.freeze(search);
}

function parseLocation(value: unknown): ApproximateLocation {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UserError(`userLocation must be an object, not ${describeValue(value)}.`);
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) =>
    !(LOCATION_KEYS as readonly string[]).includes(key)
  );
  if (unknown.length > 0) {
    throw new UserError(`Unknown userLocation field \`${unknown[0]}\`.`, {
      hint: "Known fields: city, region, country, timezone.",
    });
  }
  const location: ApproximateLocation = {};
  for (const key of LOCATION_KEYS) {
    const field = record[key];
    if (field === undefined) continue;
    location[key] = checkOption(`userLocation.${key}`, field, nonEmptyString).trim();
  }
  if (location.country !== undefined) {
    const country = location.country.toUpperCase();
    if (!COUNTRIES.has(country)) {
      throw new UserError(
        `userLocation.country ${
          JSON.stringify(location.country)
        } is not an ISO 3166-1 alpha-2 code.`,
        { hint: "Use a two-letter code such as US, GB or DE." },
      );
    }
    location.country = country;
  }
  if (location.timezone !== undefined) location.timezone = canonicalZone(location.timezone);
  return location;
}

function canonicalZone(zone: string): string {
  // Intl also accepts UTC offsets such as "+05:00", which are not IANA zone names.
  if (!/^[+-]/.test(zone)) {
    try {
      return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
    } catch {
      // Reported below.
    }
  }
  throw new UserError(`userLocation.timezone ${JSON.stringify(zone)} is not an IANA time zone.`, {
    hint: "Use a name such as Europe/Paris or America/New_York.",
  });
}
