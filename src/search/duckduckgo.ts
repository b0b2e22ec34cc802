import { sleep } from "../clock.ts";
import { decode } from "../html/decode.ts";
import { tokenize } from "../html/tokenizer.ts";
import { fetchWithRetry, rateLimited as overloaded, retryAfterMs, waitPhrase } from "../retry.ts";
import { ToolError, UserError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import { USER_AGENT } from "../version.ts";
import { isHttpUrl, oneLine, parseDelay, parseEndpoint, transportError } from "./search_support.ts";
import {
  type SearchOptions,
  type SearchResult,
  type WebSearch,
  webSearch,
  type WebSearchOptions,
} from "./web_search.ts";

/**
 * Options of {@linkcode DuckDuckGoSearch}.
 *
 * @example
 * ```ts
 * import type { DuckDuckGoSearchOptions } from "@outpost/agent-tools";
 * const options: DuckDuckGoSearchOptions = { region: "de-de" };
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
 * {@linkcode UserError} for an endpoint that is not an http(s) URL or a malformed region.
 *
 * @example
 * ```ts
 * import { DuckDuckGoSearch, webSearch } from "@outpost/agent-tools";
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
      throw new UserError(`DuckDuckGo region ${JSON.stringify(region)} is not a region code.`, {
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
        scan = await this.#readPage(next, signal);
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

  async #readPage(page: NextPage, signal: AbortSignal | undefined): Promise<PageScan> {
    let response: Response;
    try {
      response = await fetchWithRetry(
        () =>
          this.#fetch(page.url, {
            method: "POST",
            headers: { "accept": "text/html", "user-agent": USER_AGENT },
            body: new URLSearchParams(page.fields),
            signal,
          }),
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

/**
 * Builds the `web_search` tool on {@linkcode DuckDuckGoSearch}: `webSearch(new
 * DuckDuckGoSearch(options), options)` in one call. Needs no key.
 *
 * @example
 * ```ts
 * import { duckduckgoSearch, toAnthropicTools } from "@outpost/agent-tools";
 * const search = duckduckgoSearch({ region: "us-en" });
 * // Give the model its definition; run its calls with `runToolCalls([search], calls)`.
 * const definitions = toAnthropicTools([search]);
 * ```
 */
export function duckduckgoSearch(options: DuckDuckGoSearchOptions & WebSearchOptions = {}): Tool {
  return webSearch(new DuckDuckGoSearch(options), options);
}

function unreadable(cause?: unknown): ToolError {
  return new ToolError("DuckDuckGo answered with a page this tool cannot read.", {
    hint:
      "DuckDuckGo may have changed its page layout; try again later. A keyed search backend such as Tavily avoids this.",
    cause,
  });
}

const SEARCH_ELSEWHERE =
  "A keyed search backend such as Tavily (tavilySearch), which the operator can configure, avoids this.";

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
        "Searching again soon will not help. The fix is a keyed search backend such as Tavily (tavilySearch), which the operator can configure.",
      ...data,
    },
  );
}

/** The next-page form: where it posts and the hidden fields (`q`, `s`, `vqd`, …) it carries. */
interface NextPage {
  url: URL;
  fields: [string, string][];
}

/** What one result page holds. */
interface PageScan {
  hits: SearchResult[];
  next?: NextPage;
  /** An anomaly page or challenge form: DuckDuckGo is throttling us. */
  challenge: boolean;
  /** Whether the page had the result list's layout (results, or the no-results notice). */
  understood: boolean;
}

interface RawHit {
  href: string;
  title: string;
  displayUrl: string;
  snippet: string;
  ad: boolean;
}

interface FormScan {
  depth: number;
  action: string;
  fields: [string, string][];
  isNext: boolean;
}

/** Elements that have no closing tag and hold nothing. */
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/** Reads a result page, keeping only results, the next-page form and markers. */
interface PageScanner {
  /** Takes the next piece of the page's text; false once the page is too long to take more. */
  write(text: string): boolean;
  /** Takes the last piece, reads the page and tells what it held. */
  end(text: string): PageScan;
}

/** DuckDuckGo's result pages are 20–80 KB: what comes past this is not its result list. */
const MAX_PAGE_CHARS = 2_000_000;

function pageScanner(base: URL): PageScanner {
  const pieces: string[] = [];
  let size = 0;
  return {
    write(text) {
      if (size < MAX_PAGE_CHARS) pieces.push(text);
      size += text.length;
      return size < MAX_PAGE_CHARS;
    },
    end(text) {
      pieces.push(text);
      return scanPage(pieces.join(""), base);
    },
  };
}

/**
 * What the result page `html` holds. Elements are tracked on a stack of open names: a closing
 * tag closes what was opened inside it, and the end of the page closes everything.
 */
function scanPage(html: string, base: URL): PageScan {
  const scan: PageScan = { hits: [], challenge: false, understood: false };
  let depth = 0;
  let hit: { depth: number; raw: RawHit } | undefined;
  let capture: { depth: number; field: "title" | "displayUrl" | "snippet" } | undefined;
  let form: FormScan | undefined;
  const open: string[] = [];
  let name = "";
  let attrs: Record<string, string> = {};

  const onopen = () => {
    depth++;
    const classes = (attrs.class ?? "").split(/\s+/);
    if (classes.some((c) => c.startsWith("anomaly-modal")) || attrs.id === "challenge-form") {
      scan.challenge = true;
    }
    if (classes.includes("no-results")) scan.understood = true;
    if (name === "form") {
      if ((attrs.action ?? "").includes("anomaly")) scan.challenge = true;
      form = { depth, action: attrs.action ?? "", fields: [], isNext: false };
    } else if (name === "input" && form) {
      const type = (attrs.type ?? "text").toLowerCase();
      if (type === "hidden" && attrs.name) form.fields.push([attrs.name, attrs.value ?? ""]);
      if (type === "submit" && /^\s*next/i.test(attrs.value ?? "")) form.isNext = true;
    }
    if (!hit && classes.includes("result")) {
      hit = {
        depth,
        raw: {
          href: "",
          title: "",
          displayUrl: "",
          snippet: "",
          ad: classes.includes("result--ad"),
        },
      };
    } else if (hit && !capture) {
      if (name === "a" && classes.includes("result__a")) {
        hit.raw.href = attrs.href ?? "";
        capture = { depth, field: "title" };
      } else if (classes.includes("result__url")) {
        capture = { depth, field: "displayUrl" };
      } else if (classes.includes("result__snippet")) {
        capture = { depth, field: "snippet" };
      }
    }
  };
  const onclose = () => {
    if (capture?.depth === depth) capture = undefined;
    if (form?.depth === depth) {
      if (form.isNext && !scan.next && URL.canParse(form.action || base.href, base)) {
        scan.next = { url: new URL(form.action || base.href, base), fields: form.fields };
      }
      form = undefined;
    }
    if (hit?.depth === depth) {
      if (hit.raw.href) scan.understood = true;
      const result = toResult(hit.raw, base);
      if (result) scan.hits.push(result);
      hit = undefined;
    }
    depth--;
  };

  tokenize(html, {
    ontext(start, end) {
      if (hit && capture) hit.raw[capture.field] += decode(html.slice(start, end), false);
    },
    onopentagname(start, end) {
      name = html.slice(start, end).toLowerCase();
      attrs = Object.create(null);
    },
    onattribute(nameStart, nameEnd, valueStart, valueEnd) {
      const key = html.slice(nameStart, nameEnd).toLowerCase();
      attrs[key] ??= decode(html.slice(valueStart, valueEnd), true);
    },
    onopentagend() {
      onopen();
      if (VOID_ELEMENTS.has(name)) onclose();
      else open.push(name);
    },
    onclosetag(start, end) {
      const at = open.lastIndexOf(html.slice(start, end).toLowerCase());
      if (at < 0) return;
      while (open.length > at) {
        open.pop();
        onclose();
      }
    },
    onend() {
      while (open.pop() !== undefined) onclose();
    },
  });
  return scan;
}

function toResult(raw: RawHit, base: URL): SearchResult | undefined {
  if (raw.ad) return undefined;
  const link = resolveLink(raw.href, base);
  if (link === "ad") return undefined;
  const url = link ?? fromDisplayUrl(raw.displayUrl);
  if (!url) return undefined;
  return { title: oneLine(raw.title), url, snippet: oneLine(raw.snippet) };
}

/**
 * The page a result links to: redirect links (`//duckduckgo.com/l/?uddg=…`) are unwrapped,
 * direct links kept; ad links (`/y.js`) are flagged and other DuckDuckGo links refused.
 */
function resolveLink(href: string, base: URL): string | "ad" | undefined {
  if (!href || !URL.canParse(href, base)) return undefined;
  const link = new URL(href, base);
  const host = link.hostname;
  const ours = host === "duckduckgo.com" || host.endsWith(".duckduckgo.com") ||
    link.host === base.host;
  if (!ours) return isHttpUrl(link.href) ? link.href : undefined;
  if (link.pathname === "/y.js") return "ad";
  const target = link.pathname === "/l/" ? link.searchParams.get("uddg") : null;
  // The target is checked like any link, so a wrapped ad is still an ad.
  return target && isHttpUrl(target) ? resolveLink(target, base) : undefined;
}

/**
 * The shown address (`example.com/page`) as a URL, for a result whose link cannot be used. A
 * shortened address (`example.com/long/pa…`) is no address at all, so it gives none.
 */
function fromDisplayUrl(text: string): string | undefined {
  const shown = oneLine(text);
  if (!shown || /\s|…|\.\.\./.test(shown)) return undefined;
  const url = /^https?:\/\//i.test(shown) ? shown : `https://${shown}`;
  return isHttpUrl(url) ? new URL(url).href : undefined;
}
