import { SetupError } from "../../src/errors.ts";
import { isPrivateHost, type ResolveHost } from "../../src/fetch/address_guard.ts";
import { checkOption, oneOf } from "../../src/option_checks.ts";
import { BraveSearch } from "../../src/search/brave.ts";
import { DuckDuckGoSearch } from "../../src/search/duckduckgo.ts";
import { ExaSearch } from "../../src/search/exa.ts";
import { SearxngSearch } from "../../src/search/searxng.ts";
import { SerperSearch } from "../../src/search/serper.ts";
import { TavilySearch } from "../../src/search/tavily.ts";
import type { WebSearch } from "../../src/search/web_search.ts";

// Which `web_search` backend a deployment's settings choose, and building it from its key or URL.

/**
 * The `web_search` backends a deployment can choose with `OUTPOST_SEARCH`.
 */
export const SEARCH_BACKEND_NAMES = [
  "brave",
  "searxng",
  "exa",
  "serper",
  "tavily",
  "duckduckgo",
] as const;

/**
 * One of {@linkcode SEARCH_BACKEND_NAMES}.
 */
export type SearchBackendName = typeof SEARCH_BACKEND_NAMES[number];

/**
 * The settings that choose a deployment's `web_search` backend: part of `ServiceSettings`.
 */
export interface SearchSettings {
  /**
   * The `web_search` backend; without it, Tavily when there is a Tavily key, else DuckDuckGo
   * (see {@linkcode chosenSearch}).
   */
  search?: SearchBackendName;
  /** Tavily's API key; selects Tavily for `web_search` when `search` is absent. */
  tavilyApiKey?: string;
  /** The Brave Search API key, for `search: "brave"`. */
  braveApiKey?: string;
  /** Exa's API key, for `search: "exa"`. */
  exaApiKey?: string;
  /** Serper's API key, for `search: "serper"`. */
  serperApiKey?: string;
  /**
   * The SearXNG instance's base URL, for `search: "searxng"`; one on a private network needs
   * `allowPrivateNetwork`.
   */
  searxngUrl?: string;
}

/**
 * The environment names of {@linkcode SearchSettings}, among `SERVICE_SETTING_NAMES`.
 */
export const SEARCH_SETTING_NAMES = {
  search: "OUTPOST_SEARCH",
  tavilyApiKey: "TAVILY_API_KEY",
  braveApiKey: "BRAVE_API_KEY",
  exaApiKey: "EXA_API_KEY",
  serperApiKey: "SERPER_API_KEY",
  searxngUrl: "SEARXNG_URL",
} as const satisfies Record<keyof SearchSettings, string>;

/**
 * The `web_search` backend `settings` choose: `search` when given, else Tavily when there is a
 * Tavily key, else DuckDuckGo.
 */
export function chosenSearch(settings: SearchSettings): SearchBackendName {
  return settings.search ?? (settings.tavilyApiKey ? "tavily" : "duckduckgo");
}

/**
 * The backend of {@linkcode chosenSearch}, built from the key or URL it needs; a `SetupError`
 * naming the missing setting when there is none. A SearXNG on a private address needs
 * `allowPrivateNetwork`, the service's one switch for private addresses (`privateSwitch` names
 * it), as `web_fetch` does.
 */
export function searchBackend(
  settings: SearchSettings & { allowPrivateNetwork: boolean },
  parts: { fetch?: typeof fetch; resolveHost?: ResolveHost },
  privateSwitch: string,
): WebSearch {
  const chosen = chosenSearch(settings);
  const needed = (
    key: "tavilyApiKey" | "braveApiKey" | "exaApiKey" | "serperApiKey" | "searxngUrl",
  ) => {
    const value = settings[key];
    if (value === undefined) {
      throw new SetupError(
        `${SEARCH_SETTING_NAMES.search}=${chosen} needs ${
          SEARCH_SETTING_NAMES[key]
        }, which is not set.`,
        {
          hint: `Set ${
            SEARCH_SETTING_NAMES[key]
          }, or choose another backend with ${SEARCH_SETTING_NAMES.search} (one of ${
            SEARCH_BACKEND_NAMES.join(", ")
          }).`,
        },
      );
    }
    return value;
  };
  const { fetch } = parts;
  switch (chosen) {
    case "tavily":
      return new TavilySearch({ apiKey: needed("tavilyApiKey"), fetch });
    case "brave":
      return new BraveSearch({ apiKey: needed("braveApiKey"), fetch });
    case "exa":
      return new ExaSearch({ apiKey: needed("exaApiKey"), fetch });
    case "serper":
      return new SerperSearch({ apiKey: needed("serperApiKey"), fetch });
    case "duckduckgo":
      return new DuckDuckGoSearch({ fetch });
    case "searxng": {
      const url = needed("searxngUrl");
      const { allowPrivateNetwork } = settings;
      if (!allowPrivateNetwork && URL.canParse(url) && isPrivateHost(new URL(url).hostname)) {
        throw new SetupError(
          `${SEARCH_SETTING_NAMES.searxngUrl} is on a private or local network address, which is refused by default.`,
          {
            hint:
              `If the instance is yours, set ${privateSwitch}=true (web_fetch may then reach private addresses too), or use a public instance.`,
          },
        );
      }
      return new SearxngSearch({ url, allowPrivateNetwork, resolveHost: parts.resolveHost, fetch });
    }
  }
}

/** Parses `OUTPOST_SEARCH`, in any case; a `SetupError` naming it for an unknown backend. */
export function parseSearchBackend(value: string): SearchBackendName {
  return checkOption(SEARCH_SETTING_NAMES.search, value.toLowerCase(), BACKENDS);
}

const BACKENDS = oneOf(SEARCH_BACKEND_NAMES);
