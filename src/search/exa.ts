import { checkOption, flag } from "../option_checks.ts";
import {
  callJsonApi,
  detailAt,
  hitOf,
  resultList,
  type SearchApiOptions,
  type Transport,
  transportOf,
} from "./json_api.ts";
import { clipLine } from "../fence.ts";
import { apiKeyOf, oneLine } from "./search_support.ts";
import type { SearchOptions, SearchResult, TimeRange, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode ExaSearch}: the key (else `EXA_API_KEY`), the transport, and whether to
 * ask for highlights.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExaSearch, type ExaSearchOptions } from "@outpost/agent-tools/search";
 * const options: ExaSearchOptions = { apiKey: "exa-…", highlights: true };
 * assert.ok(new ExaSearch(options) instanceof ExaSearch);
 * ```
 */
export interface ExaSearchOptions extends SearchApiOptions {
  /**
   * Asks Exa for each page's most relevant passages (`contents: { highlights: true }`, billed as
   * contents) and shows them as the snippet. Off by default: Exa then returns titles and URLs,
   * and the snippets are empty (or the first 300 characters of a page's text, where Exa sends
   * it anyway).
   */
  highlights?: boolean;
}

const ENDPOINT = "https://api.exa.ai/search";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How much of a page's text stands for a snippet when there are no highlights. */
const TEXT_SNIPPET_CHARS = 300;
/** How far back each time range reaches, in days. */
const DAYS: Record<TimeRange, number> = { d: 1, w: 7, m: 30, y: 365 };

/**
 * Exa's search (`POST /search`) as a {@linkcode WebSearch} backend: `numResults` asks for the
 * results, a time range becomes `startPublishedDate` (that many days before the clock's now:
 * 1, 7, 30 or 365), and the key goes in `x-api-key`. Page contents are not asked for unless
 * `highlights` is on. Pass `apiKey`, or set `EXA_API_KEY` where the runtime has an environment.
 * Throws {@linkcode SetupError} when there is no key or an option is malformed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExaSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new ExaSearch({ apiKey: "exa-example", highlights: true }));
 * assert.equal(search.name, "web_search");
 * ```
 */
export class ExaSearch implements WebSearch {
  readonly #apiKey: string;
  readonly #transport: Transport;
  readonly #highlights: boolean;

  /** Checks the options and takes the key from `EXA_API_KEY` when `apiKey` is absent. */
  constructor(options: ExaSearchOptions = {}) {
    const { highlights = false } = options;
    checkOption("highlights", highlights, flag);
    this.#apiKey = apiKeyOf(options.apiKey, "EXA_API_KEY", "ExaSearch");
    this.#transport = transportOf(options, ENDPOINT, "Exa");
    this.#highlights = highlights;
  }

  /** Asks Exa for up to `maxResults` results, published within the time range if one is given. */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal } = options;
    const since = timeRange &&
      new Date(this.#transport.clock.now() - DAYS[timeRange] * DAY_MS).toISOString();
    const data = await callJsonApi({
      service: "Exa",
      url: this.#transport.endpoint,
      transport: this.#transport,
      method: "POST",
      headers: { "x-api-key": this.#apiKey },
      body: {
        query,
        numResults: maxResults,
        ...(since ? { startPublishedDate: since } : {}),
        ...(this.#highlights ? { contents: { highlights: true } } : {}),
      },
      signal,
      observer: options,
      // `{"requestId":…,"error":"…"}`, or an `error` object with a `message`.
      detail: (body) => detailAt(body, ["error"], ["error", "message"], ["message"]),
    });
    return resultList("Exa", data, ["results"])
      .flatMap((item) =>
        hitOf(item, { title: "title", url: "url", snippet: "text" }).map((hit) => ({
          ...hit,
          // A page's text, where Exa sends it unasked, is no snippet: its start stands for one.
          snippet: passages(item) ?? clipLine(oneLine(hit.snippet), TEXT_SNIPPET_CHARS),
        }))
      )
      .slice(0, maxResults);
  }
}

/** A result's highlights as one snippet, when it has any. */
function passages(item: unknown): string | undefined {
  const highlights = (item as { highlights?: unknown }).highlights;
  if (!Array.isArray(highlights)) return undefined;
  const text = highlights.filter((h): h is string => typeof h === "string" && h.trim() !== "");
  return text.length > 0 ? text.join(" … ") : undefined;
}
