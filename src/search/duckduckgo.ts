import { sleep } from "../clock.ts";
import { fetchWithRetry, rateLimited as overloaded, retryAfterMs, waitPhrase } from "../retry.ts";
import { SetupError, ToolError } from "../errors.ts";
import { USER_AGENT } from "../version.ts";
import { type NextPage, type PageScan, pageScanner } from "./duckduckgo_page.ts";
import { parseDelay, parseEndpoint, transportError } from "./search_support.ts";
import { requestSpan } from "../fetch/request_span.ts";
import type { SearchOptions, SearchResult, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode DuckDuckGoSearch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DuckDuckGoSearch, type DuckDuckGoSearchOptions } from "@outpost/agent-tools/search";
 * // A stand-in for duckduckgo.com, to see what the backend asks it for:
 * const sent: string[] = [];
 * const site = async (input: RequestInfo | URL, init?: RequestInit) => {
 *   sent.push(await new Request(input, init).text());
 *   return new Response("<html><body>No results.</body></html>", { headers: { "content-type": "text/html" } });
 * };
 * const options: DuckDuckGoSearchOptions = { region: "de-de", fetch: site };
 * await new DuckDuckGoSearch(options).search("deno", { maxResults: 5 }).catch(() => {});
 * assert.equal(sent[0], "q=deno&kl=de-de");
 * ```
 */
export interface DuckDuckGoSearchOptions {
  /** DuckDuckGo's region code, such as `us-en` or `de-de` (default `wt-wt`, no region). */
  region?: string;
  /** The HTML search endpoint (default `https://html.duckduckgo.com/html/`). */
  endpoint?: string;
  /** The fetch to send requests with (default the global `fetch`). */
  fetch?: typeof fetch;
  /** The pause before asking for a further page of results (default 750 ms). */
  pageDelayMs?: number;
  /** The pause before the first retry of a failed connection or 5xx, doubling after (default 500 ms). */
  retryDelayMs?: number;
}

const ENDPOINT = "https://html.duckduckgo.com/html/";
const REGION = /^[a-z]{2}-[a-z]{2,3}$/i;
/** A page holds 10 to 30 results, so 20 results never need more; this only stops loops. */
const MAX_PAGES = 5;

/**
 * DuckDuckGo's keyless HTML search as a {@linkcode WebSearch} backend. It reads the result page
 * as one pass over its tags, skips ads, follows the next-page form when one page is not enough,
 * and reports rate limiting as a {@linkcode ToolError} instead of an empty list. Throws
 * {@linkcode SetupError} for an endpoint that is not an http(s) URL or a malformed region.
 *
 * @example
 * ```ts
 * // Not asserted: it searches duckduckgo.com, on the internet (see DuckDuckGoSearchOptions for a
 * // checked example on a stand-in).
 * import { DuckDuckGoSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new DuckDuckGoSearch({ region: "uk-en" }));
 * ```
 */
export class DuckDuckGoSearch implements WebSearch {
  readonly #region: string;
  readonly #endpoint: URL;
  readonly #fetch: typeof fetch;
  readonly #pageDelayMs: number;
  readonly #retryDelayMs: number;

  /** Checks the options. */
  constructor(options: DuckDuckGoSearchOptions = {}) {
    const { region = "wt-wt" } = options;
    if (typeof region !== "string" || !REGION.test(region)) {
      throw new SetupError(`DuckDuckGo region ${JSON.stringify(region)} is not a region code.`, {
        hint: 'Use a code such as "us-en", "de-de" or "wt-wt" (no region).',
      });
    }
    this.#region = region.toLowerCase();
    this.#endpoint = parseEndpoint(options.endpoint, ENDPOINT, "DuckDuckGo");
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#pageDelayMs = parseDelay(options.pageDelayMs, 750, "pageDelayMs");
    this.#retryDelayMs = parseDelay(options.retryDelayMs, 500, "retryDelayMs");
  }

  /**
   * Searches, reading further pages until `maxResults` results are in hand or DuckDuckGo has no
   * more. When a later page fails, the results already found are returned and the failure is
   * passed to `options.onNotice`, so the model learns why there are fewer.
   */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal, onNotice } = options;
    const results: SearchResult[] = [];
    const seen = new Set<string>();
    const fields: [string, string][] = [["q", query], ["kl", this.#region]];
    if (timeRange) fields.push(["df", timeRange]);
    let next: NextPage | undefined = { url: this.#endpoint, fields };
    for (let page = 0; next && page < MAX_PAGES && results.length < maxResults; page++) {
      let scan: PageScan;
      try {
        if (page > 0) await sleep(this.#pageDelayMs, { signal });
        scan = await this.#readPage(next, options);
      } catch (error) {
        if (page === 0 || signal?.aborted || !(error instanceof ToolError)) throw error;
        onNotice?.(
          `Fewer results than asked for: page ${
            page + 1
          } of DuckDuckGo's results failed. ${error.message}`,
        );
        break;
      }
      for (const hit of scan.hits) {
        if (seen.has(hit.url)) continue;
        seen.add(hit.url);
        results.push(hit);
      }
      next = scan.next;
    }
    return results.slice(0, maxResults);
  }

  /** Reads one page of results, and tells the access log how much of it came. */
  async #readPage(page: NextPage, options: SearchOptions): Promise<PageScan> {
    const read = { bytes: 0 };
    try {
      return await this.#scanPage(page, options, read);
    } finally {
      options.noteRead?.({ url: page.url.href, bytes: read.bytes });
    }
  }

  async #scanPage(
    page: NextPage,
    { signal, tracer }: SearchOptions,
    read: { bytes: number },
  ): Promise<PageScan> {
    let response: Response;
    try {
      response = await fetchWithRetry(
        // A span per attempt: each is a request of its own.
        () =>
          requestSpan(tracer, page.url, async (span) => {
            const answer = await this.#fetch(page.url, {
              method: "POST",
              headers: { "accept": "text/html", "user-agent": USER_AGENT },
              body: new URLSearchParams(page.fields),
              signal,
            });
            span?.setAttribute("http.response.status_code", answer.status);
            return answer;
          }, "POST"),
        { delayMs: this.#retryDelayMs, signal },
      );
    } catch (error) {
      throw transportError("DuckDuckGo", page.url, error, signal);
    }
    // DuckDuckGo answers 202 with a challenge page when it throttles; 403 and 429 mean the same.
    const wait = retryAfterMs(response.headers);
    if (response.status === 202 || response.status === 403 || response.status === 429) {
      await response.body?.cancel();
      throw rateLimited(wait, response.status);
    }
    if (response.status === 503 && wait !== undefined) {
      await response.body?.cancel();
      throw overloaded("DuckDuckGo", 503, wait, SEARCH_ELSEWHERE);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new ToolError(`DuckDuckGo failed (HTTP ${response.status}).`, {
        hint: "The search service is having trouble; try again later.",
        code: "http_error",
        status: response.status,
      });
    }
    const scanner = pageScanner(new URL(response.url || page.url));
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let scan: PageScan | undefined;
    while (!scan) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw transportError("DuckDuckGo", page.url, error, signal, true);
      }
      if (!chunk.done) read.bytes += chunk.value.byteLength;
      // A failure past this point is in understanding the page, not in getting it.
      try {
        if (chunk.done) {
          scan = scanner.end(decoder.decode());
        } else if (!scanner.write(decoder.decode(chunk.value, { stream: true }))) {
          await reader.cancel();
          scan = scanner.end("");
        }
      } catch (error) {
        await reader.cancel();
        throw unreadable(error);
      }
    }
    if (scan.challenge) throw rateLimited();
    if (!scan.understood) throw unreadable();
    if (scan.next && scan.next.url.origin !== this.#endpoint.origin) scan.next = undefined;
    return scan;
  }
}

function unreadable(cause?: unknown): ToolError {
  return new ToolError("DuckDuckGo answered with a page this tool cannot read.", {
    hint:
      "DuckDuckGo may have changed its page layout; try again later. A keyed search backend such as Tavily avoids this.",
    cause,
  });
}

const SEARCH_ELSEWHERE =
  "A keyed search backend such as Tavily (TavilySearch), which the operator can configure, avoids this.";

/**
 * DuckDuckGo's throttling, with the wait it asked for when it named one, and the status it came
 * with (none for a challenge page).
 */
function rateLimited(waitMs?: number, status?: number): ToolError {
  const data = { code: "rate_limited", ...(status === undefined ? {} : { status }) } as const;
  if (waitMs !== undefined) {
    return new ToolError(
      `DuckDuckGo is rate limiting this address; it asks to wait ${waitPhrase(waitMs)}.`,
      { hint: `Do not search again sooner. ${SEARCH_ELSEWHERE}`, ...data, retryAfterMs: waitMs },
    );
  }
  return new ToolError(
    "DuckDuckGo is rate limiting this address: it sent a challenge, not results.",
    {
      hint:
        "Searching again soon will not help. The fix is a keyed search backend such as Tavily (TavilySearch), which the operator can configure.",
      ...data,
    },
  );
}
