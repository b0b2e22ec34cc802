import { type Clock, systemClock } from "../clock.ts";
import { readEnv } from "../env.ts";
import { fetchWithRetry, rateLimited, retryAfterMs, waitPhrase } from "../retry.ts";
import { SetupError, ToolError } from "../errors.ts";
import { USER_AGENT } from "../version.ts";
import { isHttpUrl, parseDelay, parseEndpoint, quote, transportError } from "./search_support.ts";
import type { SearchOptions, SearchResult, TimeRange, WebSearch } from "./web_search.ts";

/**
 * Options of {@linkcode TavilySearch}.
 *
 * @example
 * ```ts
 * import type { TavilySearchOptions } from "@outpost/agent-tools/search";
 * const options: TavilySearchOptions = { apiKey: "tvly-…" };
 * ```
 */
export interface TavilySearchOptions {
  /** The API key; without it, the `TAVILY_API_KEY` environment variable where there is one. */
  apiKey?: string;
  /** The search endpoint (default `https://api.tavily.com/search`). */
  endpoint?: string;
  /** The fetch to send requests with (default the global `fetch`). */
  fetch?: typeof fetch;
  /** The pause before the first retry of a failed connection or 5xx, doubling after (default 500 ms). */
  retryDelayMs?: number;
  /** The time and timers for retry pauses and `Retry-After` (default {@linkcode systemClock}). */
  clock?: Clock;
}

const ENDPOINT = "https://api.tavily.com/search";

const TIME_RANGE: Record<TimeRange, string> = { d: "day", w: "week", m: "month", y: "year" };

/**
 * The Tavily search API as a {@linkcode WebSearch} backend. Needs an API key: pass `apiKey`, or
 * set `TAVILY_API_KEY` where the runtime has an environment (on Workers, pass the binding).
 * Throws {@linkcode SetupError} when there is no key or the endpoint is not an http(s) URL.
 *
 * @example
 * ```ts
 * import { TavilySearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new TavilySearch({ apiKey: "tvly-…" }), { name: "search" });
 * ```
 */
export class TavilySearch implements WebSearch {
  readonly #apiKey: string;
  readonly #endpoint: URL;
  readonly #fetch: typeof fetch;
  readonly #retryDelayMs: number;
  readonly #clock: Clock;

  /** Checks the options and takes the key from `TAVILY_API_KEY` when `apiKey` is absent. */
  constructor(options: TavilySearchOptions = {}) {
    const apiKey = (options.apiKey ?? readEnv("TAVILY_API_KEY"))?.trim();
    if (!apiKey) {
      throw new SetupError("TavilySearch needs an API key.", {
        hint:
          "Pass { apiKey } (on Workers, from the binding) or set the TAVILY_API_KEY environment variable.",
      });
    }
    this.#apiKey = apiKey;
    this.#endpoint = parseEndpoint(options.endpoint, ENDPOINT, "Tavily");
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#retryDelayMs = parseDelay(options.retryDelayMs, 500, "retryDelayMs");
    this.#clock = options.clock ?? systemClock;
  }

  /** Asks Tavily for up to `maxResults` results. */
  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const { maxResults, timeRange, signal } = options;
    const body = JSON.stringify({
      query,
      max_results: maxResults,
      ...(timeRange ? { time_range: TIME_RANGE[timeRange] } : {}),
    });
    let response: Response;
    try {
      response = await fetchWithRetry(
        () =>
          this.#fetch(this.#endpoint, {
            method: "POST",
            headers: {
              "authorization": `Bearer ${this.#apiKey}`,
              "content-type": "application/json",
              "accept": "application/json",
              "user-agent": USER_AGENT,
            },
            body,
            signal,
          }),
        { delayMs: this.#retryDelayMs, signal, clock: this.#clock },
      );
    } catch (error) {
      throw transportError("Tavily", this.#endpoint, error, signal);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw transportError("Tavily", this.#endpoint, error, signal, true);
    }
    const data = parseJson(text);
    if (!response.ok) {
      const now = this.#clock.now();
      throw statusError(response.status, data, retryAfterMs(response.headers, now), now);
    }
    const results = (data as { results?: unknown } | undefined)?.results;
    if (!Array.isArray(results)) {
      throw new ToolError(
        data === undefined
          ? "Tavily answered with something that is not JSON."
          : "Tavily answered without a list of results.",
        { hint: "The search service misbehaved; try again later." },
      );
    }
    return results.flatMap(toResult).slice(0, maxResults);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toResult(item: unknown): SearchResult[] {
  if (typeof item !== "object" || item === null) return [];
  const { title, url, content } = item as Record<string, unknown>;
  if (typeof url !== "string" || !isHttpUrl(url)) return [];
  return [{
    title: typeof title === "string" ? title : "",
    url,
    snippet: typeof content === "string" ? content : "",
  }];
}

/** Tavily's own words about a failure: `{"detail":{"error":…}}`, or a bare `detail` string. */
function detailOf(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === "string") return quote(detail);
  const error = (detail as { error?: unknown } | null)?.error;
  return typeof error === "string" ? quote(error) : "";
}

function statusError(
  status: number,
  body: unknown,
  waitMs: number | undefined,
  now: number,
): ToolError {
  const detail = detailOf(body);
  const said = detail ? `: ${detail}` : ".";
  if (status === 503 && waitMs !== undefined) {
    return rateLimited("Tavily", status, waitMs, "Carry on without search until then.", now);
  }
  switch (status) {
    case 400:
      return new ToolError(`Tavily rejected the search (HTTP 400)${said}`, {
        hint: "Change the query or its arguments as the message says, then search again.",
        code: "http_error",
        status,
      });
    case 401:
      return new ToolError("Tavily did not accept the API key (HTTP 401).", {
        hint:
          "The API key configured for this tool is missing or invalid; the operator must fix it. Searching again will not help.",
        code: "http_error",
        status,
      });
    case 403:
      return new ToolError(`Tavily refused the search (HTTP 403)${said}`, {
        hint:
          "The API key is not allowed to use this endpoint; the operator must check the key and plan.",
        code: "http_error",
        status,
      });
    case 429:
      return new ToolError(
        `Tavily is rate limiting this API key (HTTP 429)${said}` +
          (waitMs === undefined ? "" : ` It asks to wait ${waitPhrase(waitMs, now)}.`),
        {
          hint: waitMs === undefined
            ? "Wait a minute before searching again."
            : "Do not search again sooner; carry on without search until then.",
          code: "rate_limited",
          status,
          ...(waitMs === undefined ? {} : { retryAfterMs: waitMs }),
        },
      );
    case 432:
    case 433:
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
    default:
      return new ToolError(`Tavily failed (HTTP ${status})${said}`, {
        hint: status >= 500
          ? "The search service is having trouble; try again later."
          : "The search service refused the request; try again later.",
        code: "http_error",
        status,
      });
  }
}
