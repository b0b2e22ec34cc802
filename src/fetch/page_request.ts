import type { Clock } from "../clock.ts";
import { ToolError } from "../errors.ts";
import { fetchWithRetry, rateLimited, retryAfterMs } from "../retry.ts";
import { unreachable } from "./read_errors.ts";

const ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5";
const RETRY_STATUSES = new Set([502, 503, 504]);

/** How {@linkcode sendGet} sends: the reader's settings it needs. */
export interface GetSettings {
  fetch: typeof fetch;
  userAgent: string;
  retryDelayMs: number;
  clock: Clock;
}

/**
 * One GET of `url`, redirects handed back as they came, retried twice with backoff on
 * connection failures and 502/503/504. A 429, or a 503 that says when to come back, is a
 * `ToolError` saying when, not a page.
 */
export async function sendGet(
  url: URL,
  signal: AbortSignal,
  settings: GetSettings,
): Promise<Response> {
  const { clock } = settings;
  let response: Response;
  try {
    response = await fetchWithRetry(
      () =>
        settings.fetch(url.href, {
          method: "GET",
          headers: { "accept": ACCEPT, "user-agent": settings.userAgent },
          redirect: "manual",
          signal,
        }),
      {
        delayMs: settings.retryDelayMs,
        signal,
        retryOn: (status) => RETRY_STATUSES.has(status),
        clock,
      },
    );
  } catch (cause) {
    // A ToolError from the fetch itself (a pinning proxy's refusal) reaches the model in its
    // own words.
    if (signal.aborted || cause instanceof ToolError) throw cause;
    throw unreachable(url, cause);
  }
  const now = clock.now();
  const wait = retryAfterMs(response.headers, now);
  if (response.status === 429 || (response.status === 503 && wait !== undefined)) {
    await response.body?.cancel().catch(() => {});
    throw rateLimited(url.host, response.status, wait, undefined, now);
  }
  return response;
}
