import { type Clock, systemClock } from "../clock.ts";
import { ToolError } from "../errors.ts";
import { fetchWithRetry, rateLimited, retryAfterMs, waitPhrase } from "../retry.ts";
import { USER_AGENT } from "../version.ts";
import { isHttpUrl, parseDelay, parseEndpoint, quote, transportError } from "./search_support.ts";
import type { SearchOptions, SearchResult } from "./web_search.ts";
import { requestSpan } from "../fetch/request_span.ts";

// The round trip the keyed JSON search APIs (Tavily, Brave, Exa, Serper, SearXNG) share: send
// with retries, read the answer, and turn an error status into the same ToolErrors on each.

/**
 * What every keyed JSON search backend ({@linkcode BraveSearch}, {@linkcode ExaSearch},
 * {@linkcode SerperSearch}, {@linkcode TavilySearch}) takes besides its own options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SerperSearch, type SearchApiOptions } from "@outpost/agent-tools/search";
 * const options: SearchApiOptions = { apiKey: "…", retryDelayMs: 1_000 };
 * assert.ok(new SerperSearch(options) instanceof SerperSearch);
 * ```
 */
export interface SearchApiOptions {
  /** The API key; without it, the backend's environment variable where the runtime has one. */
  apiKey?: string;
  /** The search endpoint (default the service's own). */
  endpoint?: string;
  /** The fetch to send requests with (default the global `fetch`). */
  fetch?: typeof fetch;
  /** The pause before the first retry of a failed connection or 5xx, doubling after (default 500 ms). */
  retryDelayMs?: number;
  /** The time and timers for retry pauses, `Retry-After` and date filters (default {@linkcode systemClock}). */
  clock?: Clock;
}

/** How a backend sends: its checked options, all but the key. */
export interface Transport {
  endpoint: URL;
  fetch: typeof fetch;
  retryDelayMs: number;
  clock: Clock;
}

/** Checks the options every JSON search backend shares, all but the key. */
export function transportOf(
  options: Omit<SearchApiOptions, "apiKey">,
  endpoint: string,
  backend: string,
): Transport {
  return {
    endpoint: parseEndpoint(options.endpoint, endpoint, backend),
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retryDelayMs: parseDelay(options.retryDelayMs, 500, "retryDelayMs"),
    clock: options.clock ?? systemClock,
  };
}

/** One request to a JSON search API. */
export interface JsonCall {
  /** The service as the model reads it, e.g. `Brave`. */
  service: string;
  url: URL;
  transport: Transport;
  method: "GET" | "POST";
  /** Headers besides `accept` and `user-agent` (a key, a content type). */
  headers?: Record<string, string>;
  /** A JSON body, sent as `application/json`. */
  body?: unknown;
  signal?: AbortSignal;
  /** The search's tracer and access log, to observe the request with. */
  observer?: Pick<SearchOptions, "tracer" | "noteRead">;
  /** The service's own words about a failure, from its error body ("" when it gave none). */
  detail: (body: unknown) => string;
  /** A status this service gives its own meaning to; `undefined` leaves it to the common ones. */
  special?: (status: number, said: string, body: unknown) => ToolError | undefined;
  /** Called with the answer before it is read: a redirect the caller refuses, say. */
  check?: (response: Response) => ToolError | undefined;
  /** A service that takes no key: its 429 limits the searches, and a 401 is no key error. */
  keyless?: boolean;
  /** Fetch's redirect mode (default `follow`). */
  redirect?: RequestRedirect;
}

/** Sends `call` and returns its JSON answer, or throws the {@linkcode ToolError} it comes to. */
export async function callJsonApi(call: JsonCall): Promise<unknown> {
  const { service, url, signal, observer } = call;
  const { clock, retryDelayMs } = call.transport;
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string> = {
    ...call.headers,
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    "accept": "application/json",
    "user-agent": USER_AGENT,
  };
  let response: Response;
  try {
    response = await fetchWithRetry(
      // A span per attempt: each is a request of its own.
      () =>
        requestSpan(observer?.tracer, url, async (span) => {
          const answer = await call.transport.fetch(url, {
            method: call.method,
            headers,
            body,
            signal,
            redirect: call.redirect,
          });
          span?.setAttribute("http.response.status_code", answer.status);
          return answer;
        }, call.method),
      { delayMs: retryDelayMs, signal, clock },
    );
  } catch (error) {
    throw transportError(service, url, error, signal);
  }
  const refused = call.check?.(response);
  if (refused) {
    await response.body?.cancel();
    throw refused;
  }
  let text: string | undefined;
  const read = { bytes: 0 };
  try {
    text = await readCapped(response, read);
  } catch (error) {
    throw transportError(service, url, error, signal, true);
  } finally {
    observer?.noteRead?.({ url: url.href, bytes: read.bytes });
  }
  if (text === undefined) {
    throw new ToolError(
      `${service} answered with more than ${
        MAX_ANSWER_CHARS / 1_000_000
      } million characters; the answer was not read.`,
      {
        hint:
          "The search service misbehaved (a search answer is a few kilobytes); try again later.",
        status: response.status,
      },
    );
  }
  const data = parseJson(text);
  if (!response.ok) {
    const now = clock.now();
    const detail = call.detail(data);
    const said = detail ? `: ${detail}` : ".";
    throw call.special?.(response.status, said, data) ??
      statusError(call, response.status, said, retryAfterMs(response.headers, now), now);
  }
  if (data === undefined) {
    throw new ToolError(`${service} answered with something that is not JSON.`, {
      hint: "The search service misbehaved; try again later.",
    });
  }
  return data;
}

/** The list at the end of `path` in `data`, or the error for an answer that has none. */
export function resultList(service: string, data: unknown, path: readonly string[]): unknown[] {
  let value = data;
  for (const key of path) value = (value as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(value)) {
    throw new ToolError(`${service} answered without a list of results.`, {
      hint: "The search service misbehaved; try again later.",
    });
  }
  return value;
}

/**
 * One hit from an item of a results list, its fields named by `names`; none when the item has
 * no http(s) URL. A title or snippet that is not a string counts as empty.
 */
export function hitOf(
  item: unknown,
  names: { title: string; url: string; snippet: string },
): SearchResult[] {
  if (typeof item !== "object" || item === null) return [];
  const fields = item as Record<string, unknown>;
  const url = fields[names.url];
  if (typeof url !== "string" || !isHttpUrl(url)) return [];
  const text = (value: unknown) => typeof value === "string" ? value : "";
  return [{ title: text(fields[names.title]), url, snippet: text(fields[names.snippet]) }];
}

/** The string at the end of `path` in a failure's body, quoted, or "". */
export function detailAt(body: unknown, ...paths: (readonly string[])[]): string {
  for (const path of paths) {
    let value = body;
    for (const key of path) value = (value as Record<string, unknown> | null)?.[key];
    if (typeof value === "string" && value.trim() !== "") return quote(value);
  }
  return "";
}

/** The error for a key the service does not accept: the operator's to fix, not the model's. */
export function keyRefused(service: string, status: number): ToolError {
  return new ToolError(`${service} did not accept the API key (HTTP ${status}).`, {
    hint:
      "The API key configured for this tool is missing or invalid; the operator must fix it. Searching again will not help.",
    code: "http_error",
    status,
  });
}

/**
 * The most characters of an answer read: twenty results with long snippets are a few kilobytes,
 * so this stops only a broken or hostile service from filling the memory.
 */
const MAX_ANSWER_CHARS = 4_000_000;

/** The answer as text, or `undefined` (and the rest left unread) past the cap. */
async function readCapped(
  response: Response,
  read: { bytes: number },
): Promise<string | undefined> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    read.bytes += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (text.length > MAX_ANSWER_CHARS) {
      await reader.cancel();
      return undefined;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The common meaning of an error status: a key problem, a rate limit, or a failure. */
function statusError(
  { service, keyless = false }: JsonCall,
  status: number,
  said: string,
  waitMs: number | undefined,
  now: number,
): ToolError {
  if (status === 503 && waitMs !== undefined) {
    return rateLimited(service, status, waitMs, "Carry on without search until then.", now);
  }
  switch (status) {
    case 400:
      return new ToolError(`${service} rejected the search (HTTP 400)${said}`, {
        hint: "Change the query or its arguments as the message says, then search again.",
        code: "http_error",
        status,
      });
    case 401:
      if (keyless) break;
      return keyRefused(service, status);
    case 403:
      return new ToolError(`${service} refused the search (HTTP 403)${said}`, {
        hint:
          "The API key is not allowed to use this endpoint; the operator must check the key and plan.",
        code: "http_error",
        status,
      });
    case 429:
      return new ToolError(
        `${service} is rate limiting ${
          keyless ? "these searches" : "this API key"
        } (HTTP 429)${said}` +
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
  }
  return new ToolError(`${service} failed (HTTP ${status})${said}`, {
    hint: status >= 500
      ? "The search service is having trouble; try again later."
      : "The search service refused the request; try again later.",
    code: "http_error",
    status,
  });
}
