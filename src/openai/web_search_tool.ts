import { SetupError } from "../errors.ts";
import type { UserLocationParam } from "../hosted/location.ts";
import type { HostedWebSearch } from "../hosted/native_web_search.ts";

/**
 * The OpenAI Responses API web search tool (`tools` entry).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * import type { OpenAIWebSearchTool } from "@outpost/agent-tools/openai";
 * const tool: OpenAIWebSearchTool = { type: "web_search", search_context_size: "low" };
 * assert.deepEqual(nativeWebSearch({ searchContextSize: "low" }).toOpenAI(), tool);
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
  /** `false`: search OpenAI's cache only, never the live web. */
  external_web_access?: boolean;
}

const MAX_DOMAINS = 100;

/**
 * The OpenAI Responses tool object for a validated hosted search. Throws {@linkcode SetupError}
 * for domain restrictions OpenAI cannot enforce rather than drop them; `warn(option, why)` notes
 * an option this tool has no setting for.
 */
export function openAIWebSearchTool(
  search: HostedWebSearch,
  warn: (option: string, why: string) => void,
): OpenAIWebSearchTool {
  const { allowedDomains, blockedDomains, maxUses, userLocation, searchContextSize } = search;
  if (blockedDomains?.length) {
    throw new SetupError(
      "OpenAI's web_search tool has no blocked-domains filter; sending it without one would " +
        "let the model search the domains you meant to block.",
      {
        hint: "Use allowedDomains, use Anthropic's tool, or search with webSearch under a " +
          "DomainPolicy; audit hosted answers with DomainPolicy.audit.",
      },
    );
  }
  const pathRule = allowedDomains?.find((rule) => rule.includes("/"));
  if (pathRule !== undefined) {
    throw new SetupError(
      `OpenAI's allowed_domains filter matches whole domains, so the path in ${
        JSON.stringify(pathRule)
      } cannot be enforced.`,
      { hint: "Use domain-only rules for OpenAI, and audit answers with DomainPolicy.audit." },
    );
  }
  if (allowedDomains && allowedDomains.length > MAX_DOMAINS) {
    throw new SetupError(
      `OpenAI's allowed_domains filter takes at most ${MAX_DOMAINS} domains, not ${allowedDomains.length}.`,
      { hint: "Narrow the list, or use Anthropic's tool." },
    );
  }
  if (maxUses !== undefined) warn("maxUses", "the Responses web_search tool has no search limit");
  if (search.dynamicFiltering) warn("dynamicFiltering", "it is an Anthropic tool version");
  return {
    type: "web_search",
    ...(allowedDomains && { filters: { allowed_domains: [...allowedDomains] } }),
    ...(userLocation && { user_location: { type: "approximate" as const, ...userLocation } }),
    ...(searchContextSize !== undefined && { search_context_size: searchContextSize }),
    ...(search.externalWebAccess !== undefined &&
      { external_web_access: search.externalWebAccess }),
  };
}
