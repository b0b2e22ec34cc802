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
 * Options of {@linkcode SerperSearch}: the key (else `SERPER_API_KEY`) and the transport.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SerperSearch, type SerperSearchOptions } from "@outpost/agent-tools/search";
 * const options: SerperSearchOptions = { apiKey: "…" };
 * assert.ok(new SerperSearch(options) instanceof SerperSearch);
 * ```
 */
export type SerperSearchOptions = SearchApiOptions;

const ENDPOINT = "https://google.serper.dev/search";

/** Google's `tbs` ranges: the past day, week, month or year. */
const TBS: Record<TimeRange, string> = { d: "qdr:d", w: "qdr:w", m: "qdr:m", y: "qdr:y" };

/**
 * Google's results through Serper (`POST https://google.serper.dev/search`) as a
 * {@linkcode WebSearch} backend: the `organic` results, a page of 10 (or 20 when more than 10
 * are asked for, which Serper bills as two searches) cut to `max_results`, `tbs` for the time
 * range, and the key in `X-API-KEY`. Pass `apiKey`, or set `SERPER_API_KEY` where the runtime
 * has an environment. Throws {@linkcode SetupError} when there is no key or the endpoint is not
 * an http(s) URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SerperSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new SerperSearch({ apiKey: "serper-example" }));
 * assert.equal(search.name, "web_search");
 * ```
 */
export class SerperSearch implements WebSearch {
  readonly #apiKey: string;
  readonly #transport: Transport;

  /** Checks the options and takes the key from `SERPER_API_KEY` when `apiKey` is absent. */
  constructor(options: SerperSearchOptions = {}) {
    this.#apiKey = apiKeyOf(options.apiKey, "SERPER_API_KEY", "SerperSearch");
    this.#transport = transportOf(options, ENDPOINT, "Serper");
  }

  /** Asks Serper for a page of Google results and keeps up to `maxResults` of them. */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal } = options;
    const data = await callJsonApi({
      service: "Serper",
      url: this.#transport.endpoint,
      transport: this.#transport,
      method: "POST",
      headers: { "x-api-key": this.#apiKey },
      body: {
        q: query,
        num: maxResults > 10 ? 20 : 10,
        ...(timeRange ? { tbs: TBS[timeRange] } : {}),
      },
      signal,
      observer: options,
      // `{"message":"…","statusCode":…}`
      detail: (body) => detailAt(body, ["message"]),
      special: outOfCredits,
    });
    return resultList("Serper", data, ["organic"])
      .flatMap((item) => hitOf(item, { title: "title", url: "link", snippet: "snippet" }))
      .slice(0, maxResults);
  }
}

/** Serper says a spent balance with a 400 whose message speaks of credits. */
function outOfCredits(status: number, said: string, body: unknown): ToolError | undefined {
  if (status !== 400 || !/credits/i.test(detailAt(body, ["message"]))) return undefined;
  return new ToolError(`Serper has no search credits left (HTTP 400)${said}`, {
    hint: "Searching again will not help until the operator adds credits; carry on without search.",
    code: "unavailable",
    status,
  });
}
