import { type Clock, sleep, systemClock } from "./clock.ts";
import { ToolError } from "./errors.ts";

/** How {@linkcode fetchWithRetry} retries. */
export interface RetryOptions {
  /** Further attempts after the first (default 2). */
  retries?: number;
  /** The first pause in milliseconds; each later one doubles (default 500). */
  delayMs?: number;
  /** Stops the waiting and the attempts when it aborts. */
  signal?: AbortSignal;
  /** Which answers are worth another attempt (default: every 5xx). */
  retryOn?: (status: number) => boolean;
  /**
   * The longest `Retry-After` on a retryable answer or a 429 that is waited out silently before
   * the next attempt (default {@linkcode MAX_SILENT_RETRY_AFTER_MS}). A longer one ends the
   * attempts at once and the answer is returned, so that the caller can say when to retry.
   */
  maxRetryAfterMs?: number;
  /** Reads the time and waits the pauses (default {@linkcode systemClock}). */
  clock?: Clock;
}

/** The longest `Retry-After` waited out without telling anyone: two seconds. */
export const MAX_SILENT_RETRY_AFTER_MS = 2_000;

/**
 * Sends a request, and sends it again after a growing pause when the connection fails or the
 * server answers 5xx; 4xx and every other answer are returned at once. An answer's
 * `Retry-After` sets the pause instead, when it is short (a 429 is then retried too); a long
 * one returns the answer at once, for the caller to report. `send` is called anew for each
 * attempt because a request body can be read only once. Returns the last answer (a 5xx when
 * they all failed) or throws the last connection error; a `ToolError` thrown by `send` is
 * thrown at once, never retried; an abort ends it with the signal's reason.
 */
export async function fetchWithRetry(
  send: () => Promise<Response>,
  options: RetryOptions = {},
): Promise<Response> {
  const {
    retries = 2,
    delayMs = 500,
    signal,
    retryOn = (status) => status >= 500,
    maxRetryAfterMs = MAX_SILENT_RETRY_AFTER_MS,
    clock = systemClock,
  } = options;
  for (let attempt = 0;; attempt++) {
    signal?.throwIfAborted();
    const last = attempt >= retries;
    // A little jitter keeps clients that failed together from retrying in lockstep.
    let wait = delayMs * 2 ** attempt * (1 + Math.random() / 4);
    try {
      const response = await send();
      const asked = response.status === 429 || retryOn(response.status)
        ? retryAfterMs(response.headers, clock.now())
        : undefined;
      if (asked !== undefined) {
        if (last || asked > maxRetryAfterMs) return response;
        wait = asked;
      } else if (!retryOn(response.status) || last) {
        return response;
      }
      await response.body?.cancel();
    } catch (error) {
      signal?.throwIfAborted();
      // A ToolError is a verdict (a refused address, say), not a broken connection.
      if (last || error instanceof ToolError) throw error;
    }
    await sleep(wait, { signal, clock });
  }
}

/**
 * How long a response's `Retry-After` asks to wait, in milliseconds: delay-seconds or an HTTP
 * date (0 when that has passed); `undefined` without a header or with one that says neither.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value || value.length > 64) return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, Number.MAX_SAFE_INTEGER);
  // Only the date forms RFC 9110 allows: a weekday name and a GMT time.
  if (!/^[A-Za-z]{3,9}, .*GMT$|^[A-Za-z]{3} [A-Za-z]{3} .*\d{4}$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The {@linkcode ToolError} for a server that is rate limiting us (a 429, or a 503 with
 * `Retry-After`): `who` (our wording, never the server's) and when to try again, a wait clipped
 * to what a model can use, counted from `now`.
 */
export function rateLimited(
  who: string,
  status: number,
  waitMs: number | undefined,
  hint = "Try another source meanwhile.",
  now = Date.now(),
): ToolError {
  const verb = status === 429 ? "is rate limiting these requests" : "is overloaded";
  if (waitMs === undefined) {
    return new ToolError(`${who} ${verb} (HTTP ${status}) and did not say for how long.`, {
      hint: `Wait at least a minute before trying again. ${hint}`,
      code: "rate_limited",
      status,
    });
  }
  return new ToolError(
    `${who} ${verb} (HTTP ${status}); it asks to wait ${waitPhrase(waitMs, now)}.`,
    { hint: `Do not retry sooner. ${hint}`, code: "rate_limited", status, retryAfterMs: waitMs },
  );
}

/** A `Retry-After` wait as a model reads it: seconds and the time, clipped at a day. */
export function waitPhrase(waitMs: number, now = Date.now()): string {
  const seconds = Math.ceil(waitMs / 1000);
  return seconds > DAY_S
    ? "more than a day"
    : `${seconds} s, until ${new Date(now + seconds * 1000).toISOString()}`;
}

const DAY_S = 24 * 60 * 60;
