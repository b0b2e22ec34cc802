import { readEnv } from "../env.ts";
import { SetupError, ToolError } from "../errors.ts";
import { guardUrl, isPrivateHost, type ResolveHost } from "../fetch/address_guard.ts";
import { showUrl } from "../fence.ts";
import { aFunction, checkOption, flag } from "../option_checks.ts";
import {
  callJsonApi,
  hitOf,
  resultList,
  type SearchApiOptions,
  type Transport,
  transportOf,
} from "./json_api.ts";
import { isHttpUrl, quote } from "./search_support.ts";
import type { SearchOptions, SearchResult, TimeRange, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode SearxngSearch}: where the instance is, whether it may be on a private
 * network, and the transport.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SearxngSearch, type SearxngSearchOptions } from "@outpost/agent-tools/search";
 * const options: SearxngSearchOptions = { url: "https://searx.example.org/" };
 * assert.ok(new SearxngSearch(options) instanceof SearxngSearch);
 * ```
 */
export interface SearxngSearchOptions extends Omit<SearchApiOptions, "apiKey" | "endpoint"> {
  /**
   * The instance's base URL, e.g. `https://searx.example.org/` (its `/search` is asked); without
   * it, the `SEARXNG_URL` environment variable where the runtime has one.
   */
  url?: string;
  /**
   * Lets the instance be on loopback or a private network, as self-hosted ones often are
   * (default `false`: refused, as `HttpReader` refuses such addresses).
   */
  allowPrivateNetwork?: boolean;
  /** Lets the address guard check the addresses the instance's name resolves to. */
  resolveHost?: ResolveHost;
}

/** SearXNG's `time_range` values. */
const TIME_RANGE: Record<TimeRange, string> = { d: "day", w: "week", m: "month", y: "year" };
/** A page holds 10 to 20 results, so 20 results never need more; this only stops loops. */
const MAX_PAGES = 3;

/**
 * A SearXNG instance's JSON search API (`GET /search?format=json`, keyless) as a
 * {@linkcode WebSearch} backend: `time_range` maps the time range, and further pages
 * (`pageno`) are read until `max_results` are in hand. The instance must have `json` among
 * its `search.formats` (it answers 403 otherwise). Its address goes through the same guard as
 * `HttpReader`: a private or local one is refused unless `allowPrivateNetwork` is set, at
 * construction for an address in the URL and at each search for a name that `resolveHost`
 * says points inside. Throws {@linkcode SetupError} for a missing or malformed URL, or a
 * private one not allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SetupError } from "@outpost/agent-tools";
 * import { SearxngSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new SearxngSearch({ url: "https://searx.example.org/" }));
 * assert.equal(search.name, "web_search");
 * assert.throws(() => new SearxngSearch({ url: "http://localhost:8080/" }), SetupError);
 * new SearxngSearch({ url: "http://localhost:8080/", allowPrivateNetwork: true });
 * ```
 */
export class SearxngSearch implements WebSearch {
  readonly #transport: Transport;
  readonly #guard: boolean;
  readonly #resolveHost: ResolveHost | undefined;

  /** Checks the options and takes the URL from `SEARXNG_URL` when `url` is absent. */
  constructor(options: SearxngSearchOptions = {}) {
    const { allowPrivateNetwork = false, resolveHost } = options;
    const base = (options.url ?? readEnv("SEARXNG_URL"))?.trim();
    if (!base) {
      throw new SetupError("SearxngSearch needs the instance's URL.", {
        hint: "Pass { url } or set the SEARXNG_URL environment variable.",
      });
    }
    if (!isHttpUrl(base)) {
      throw new SetupError(
        `SearXNG URL ${JSON.stringify(base.slice(0, 200))} is not an absolute http(s) URL.`,
        { hint: 'Pass the instance\'s base URL, such as "https://searx.example.org/".' },
      );
    }
    checkOption("allowPrivateNetwork", allowPrivateNetwork, flag);
    if (resolveHost !== undefined) {
      checkOption("resolveHost", resolveHost, aFunction("from a host name to its addresses"));
    }
    const endpoint = new URL(base);
    endpoint.search = "";
    endpoint.hash = "";
    if (!endpoint.pathname.endsWith("/search")) {
      endpoint.pathname = endpoint.pathname.replace(/\/?$/, "/search");
    }
    if (!allowPrivateNetwork && isPrivateHost(endpoint.hostname)) {
      throw new SetupError(
        `The SearXNG instance at ${
          showUrl(endpoint.origin, 200)
        } is on a private or local network address, which is refused by default.`,
        { hint: "If the instance is yours, pass { allowPrivateNetwork: true }." },
      );
    }
    this.#transport = transportOf(
      { ...options, endpoint: endpoint.href },
      endpoint.href,
      "SearXNG",
    );
    this.#guard = !allowPrivateNetwork;
    this.#resolveHost = resolveHost;
  }

  /**
   * Searches, reading further pages until `maxResults` results are in hand or a page brings
   * none. When a later page fails, the results already found are returned and the failure is
   * passed to `options.onNotice`, so the model learns why there are fewer.
   */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, signal, onNotice } = options;
    if (this.#guard) await this.#checkAddress(signal);
    const results: SearchResult[] = [];
    const seen = new Set<string>();
    for (let page = 1; page <= MAX_PAGES && results.length < maxResults; page++) {
      let data: unknown;
      try {
        data = await this.#page(query, page, options);
      } catch (error) {
        if (page === 1 || signal?.aborted || !(error instanceof ToolError)) throw error;
        onNotice?.(
          `Fewer results than asked for: page ${page} of SearXNG's results failed. ${error.message}`,
        );
        break;
      }
      const before = results.length;
      for (const item of resultList("SearXNG", data, ["results"])) {
        for (const hit of hitOf(item, { title: "title", url: "url", snippet: "content" })) {
          if (seen.has(hit.url)) continue;
          seen.add(hit.url);
          results.push(hit);
        }
      }
      if (page === 1 && results.length === 0) silentEngines(data, onNotice);
      if (results.length === before) break;
    }
    return results.slice(0, maxResults);
  }

  #page(query: string, page: number, options: SearchOptions) {
    const { timeRange, signal } = options;
    const url = new URL(this.#transport.endpoint);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    url.searchParams.set("pageno", String(page));
    if (timeRange) url.searchParams.set("time_range", TIME_RANGE[timeRange]);
    return callJsonApi({
      service: "SearXNG",
      url,
      transport: this.#transport,
      method: "GET",
      signal,
      observer: options,
      // SearXNG's errors are pages, not JSON: there are no words of its own to quote.
      detail: () => "",
      special: formatRefused,
      keyless: true,
      // A redirect is not followed: it could lead past the address guard.
      redirect: "manual",
      check: redirected,
    });
  }

  /** Refuses an instance whose name resolves to a private address, before any request. */
  async #checkAddress(signal: AbortSignal | undefined): Promise<void> {
    try {
      await guardUrl(this.#transport.endpoint, this.#resolveHost, signal);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      throw new ToolError(`SearXNG search refused. ${error.message}`, {
        hint:
          "The operator must point this tool at a public instance or allow private networks; carry on without search.",
        code: error.code,
        cause: error,
      });
    }
  }
}

/** SearXNG answers 403 when `json` is not among the instance's `search.formats`. */
function formatRefused(status: number): ToolError | undefined {
  if (status !== 403) return undefined;
  return new ToolError("The SearXNG instance refused a JSON search (HTTP 403).", {
    hint:
      "Its operator must add json to search.formats in settings.yml; searching again will not help.",
    code: "http_error",
    status,
  });
}

function redirected(response: Response): ToolError | undefined {
  const { status } = response;
  if (response.type !== "opaqueredirect" && (status < 300 || status > 399)) return undefined;
  const location = response.headers.get("location");
  return new ToolError(
    `The SearXNG instance redirected the search (HTTP ${status})${
      location ? ` to ${showUrl(location, 200)}` : ""
    }; redirects are not followed.`,
    {
      hint:
        "The operator must set the instance's URL to where it redirects; carry on without search.",
      code: "http_error",
      status,
    },
  );
}

/** Tells the model when no result came because SearXNG's engines did not answer. */
function silentEngines(data: unknown, onNotice: SearchOptions["onNotice"]): void {
  const silent = (data as { unresponsive_engines?: unknown }).unresponsive_engines;
  if (!Array.isArray(silent) || silent.length === 0) return;
  const names = silent.map((entry) => Array.isArray(entry) ? entry[0] : entry)
    .filter((name): name is string => typeof name === "string");
  if (names.length === 0) return;
  onNotice?.(
    `SearXNG's engines ${
      quote(names.slice(0, 10).join(", "))
    } did not answer, so there may be results it could not find; try again later.`,
  );
}
