import type { ToolError } from "../errors.ts";
import { decode } from "../html/decode.ts";
import {
  callJsonApi,
  detailAt,
  hitOf,
  keyRefused,
  resultList,
  type SearchApiOptions,
  type Transport,
  transportOf,
} from "./json_api.ts";
import { apiKeyOf } from "./search_support.ts";
import type { SearchOptions, SearchResult, TimeRange, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode BraveSearch}: the key (else `BRAVE_API_KEY`) and the transport.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BraveSearch, type BraveSearchOptions } from "@outpost/agent-tools/search";
 * const options: BraveSearchOptions = { apiKey: "BSA…" };
 * assert.ok(new BraveSearch(options) instanceof BraveSearch);
 * ```
 */
export type BraveSearchOptions = SearchApiOptions;

const ENDPOINT = "https://api.search.brave.com/res/v1/web/search";

/** Brave's `freshness` values: the past day, week, month or year. */
const FRESHNESS: Record<TimeRange, string> = { d: "pd", w: "pw", m: "pm", y: "py" };

/**
 * The Brave Search API's web search (`GET /res/v1/web/search`) as a {@linkcode WebSearch}
 * backend: `count` asks for the results (Brave serves up to 20), `freshness` maps the time range,
 * and the key goes in `X-Subscription-Token`. Pass `apiKey`, or set `BRAVE_API_KEY` where the
 * runtime has an environment. Brave's bold marks and character references in titles and
 * descriptions come out as plain text. Throws {@linkcode SetupError} when there is no key or the
 * endpoint is not an http(s) URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BraveSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new BraveSearch({ apiKey: "BSA-example" }));
 * assert.equal(search.name, "web_search");
 * ```
 */
export class BraveSearch implements WebSearch {
  readonly #apiKey: string;
  readonly #transport: Transport;

  /** Checks the options and takes the key from `BRAVE_API_KEY` when `apiKey` is absent. */
  constructor(options: BraveSearchOptions = {}) {
    this.#apiKey = apiKeyOf(options.apiKey, "BRAVE_API_KEY", "BraveSearch");
    this.#transport = transportOf(options, ENDPOINT, "Brave");
  }

  /** Asks Brave for up to `maxResults` web results. */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal } = options;
    const url = new URL(this.#transport.endpoint);
    url.searchParams.set("q", query);
    url.searchParams.set("count", String(maxResults));
    if (timeRange) url.searchParams.set("freshness", FRESHNESS[timeRange]);
    const data = await callJsonApi({
      service: "Brave",
      url,
      transport: this.#transport,
      method: "GET",
      headers: { "x-subscription-token": this.#apiKey },
      signal,
      observer: options,
      // `{"type":"ErrorResponse","error":{"code":…,"detail":…,"status":…}}`
      detail: (body) => detailAt(body, ["error", "detail"], ["error", "code"]),
      special: tokenRefused,
    });
    // A search that finds nothing on the web has no `web` section at all.
    const found = data as { type?: unknown; web?: unknown };
    if (found.type === "search" && found.web === undefined) return [];
    return resultList("Brave", data, ["web", "results"])
      .flatMap((item) => hitOf(item, { title: "title", url: "url", snippet: "description" }))
      .map((hit) => ({ ...hit, title: plain(hit.title), snippet: plain(hit.snippet) }))
      .slice(0, maxResults);
  }
}

/** Brave marks the query's words with `<strong>` and escapes text as HTML. */
function plain(text: string): string {
  return decode(text.replace(/<\/?strong>/gi, ""), false);
}

/** Brave answers a bad key with 422 and `SUBSCRIPTION_TOKEN_INVALID`, not 401. */
function tokenRefused(status: number, _said: string, body: unknown): ToolError | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  if (code !== "SUBSCRIPTION_TOKEN_INVALID") return undefined;
  return keyRefused("Brave", status);
}
