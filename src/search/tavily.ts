import { ToolError } from "../errors.ts";
import {
  callJsonApi,
  detailAt,
  hitOf,
  resultList,
  type SearchApiOptions,
  type Transport,
  transportOf,
} from "./json_api.ts";
import { apiKeyOf } from "./search_support.ts";
import type { SearchOptions, SearchResult, TimeRange, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode TavilySearch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TavilySearch, type TavilySearchOptions } from "@outpost/agent-tools/search";
 * // A stand-in for the Tavily API, to see how the backend calls it:
 * const sent: Request[] = [];
 * const api = (input: RequestInfo | URL, init?: RequestInit) => {
 *   sent.push(new Request(input, init));
 *   return Promise.resolve(Response.json({ results: [{ title: "Deno", url: "https://deno.com/", content: "A runtime." }] }));
 * };
 * const options: TavilySearchOptions = { apiKey: "tvly-test", fetch: api };
 * const results = await new TavilySearch(options).search("deno", { maxResults: 5 });
 * assert.equal(sent[0].headers.get("authorization"), "Bearer tvly-test");
 * assert.deepEqual(results, [{ title: "Deno", url: "https://deno.com/", snippet: "A runtime." }]);
 * ```
 */
export type TavilySearchOptions = SearchApiOptions;

const ENDPOINT = "https://api.tavily.com/search";

const TIME_RANGE: Record<TimeRange, string> = { d: "day", w: "week", m: "month", y: "year" };

/**
 * The Tavily search API as a {@linkcode WebSearch} backend. Needs an API key: pass `apiKey`, or
 * set `TAVILY_API_KEY` where the runtime has an environment (on Workers, pass the binding).
 * Throws {@linkcode SetupError} when there is no key or the endpoint is not an http(s) URL.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a Tavily API key and the internet (see TavilySearchOptions for a checked
 * // example on a stand-in).
 * import { TavilySearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new TavilySearch({ apiKey: "tvly-…" }), { name: "search" });
 * ```
 */
export class TavilySearch implements WebSearch {
  readonly #apiKey: string;
  readonly #transport: Transport;

  /** Checks the options and takes the key from `TAVILY_API_KEY` when `apiKey` is absent. */
  constructor(options: TavilySearchOptions = {}) {
    this.#apiKey = apiKeyOf(options.apiKey, "TAVILY_API_KEY", "TavilySearch");
    this.#transport = transportOf(options, ENDPOINT, "Tavily");
  }

  /** Asks Tavily for up to `maxResults` results. */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal } = options;
    const data = await callJsonApi({
      service: "Tavily",
      url: this.#transport.endpoint,
      transport: this.#transport,
      method: "POST",
      headers: { "authorization": `Bearer ${this.#apiKey}` },
      body: {
        query,
        max_results: maxResults,
        ...(timeRange ? { time_range: TIME_RANGE[timeRange] } : {}),
      },
      signal,
      observer: options,
      // Tavily's own words about a failure: `{"detail":{"error":…}}`, or a bare `detail` string.
      detail: (body) => detailAt(body, ["detail"], ["detail", "error"]),
      special: usageLimit,
    });
    return resultList("Tavily", data, ["results"])
      .flatMap((item) => hitOf(item, { title: "title", url: "url", snippet: "content" }))
      .slice(0, maxResults);
  }
}

/** Tavily's statuses for a spent plan (432) or pay-as-you-go budget (433). */
function usageLimit(status: number, said: string): ToolError | undefined {
  if (status !== 432 && status !== 433) return undefined;
  return new ToolError(
    `The Tavily ${
      status === 432 ? "plan" : "pay-as-you-go"
    } usage limit is reached (HTTP ${status})${said}`,
    {
      hint:
        "Searching again will not help until the limit resets or the operator raises it; carry on without search.",
      // Not a request to slow down: the backend serves no more searches until the reset.
      code: "unavailable",
      status,
    },
  );
}
