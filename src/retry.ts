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
}

/**
 * Sends a request, and sends it again after a growing pause when the connection fails or the
 * server answers 5xx; 4xx and every other answer are returned at once. `send` is called anew
 * for each attempt because a request body can be read only once. Returns the last answer (a 5xx
 * when they all failed) or throws the last connection error; an abort ends it with the
 * signal's reason.
 */
export async function fetchWithRetry(
  send: () => Promise<Response>,
  options: RetryOptions = {},
): Promise<Response> {
  const { retries = 2, delayMs = 500, signal, retryOn = (status) => status >= 500 } = options;
  for (let attempt = 0;; attempt++) {
    signal?.throwIfAborted();
    const last = attempt >= retries;
    try {
      const response = await send();
      if (!retryOn(response.status) || last) return response;
      await response.body?.cancel();
    } catch (error) {
      signal?.throwIfAborted();
      if (last) throw error;
    }
    // A little jitter keeps clients that failed together from retrying in lockstep.
    await pause(delayMs * 2 ** attempt * (1 + Math.random() / 4), signal);
  }
}

/**
 * The longest timer runtimes honour: a longer `setTimeout` overflows and fires after about 1 ms,
 * so options that become timers are checked against it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. A
 * pause beyond {@linkcode MAX_TIMER_MS} (a doubled backoff can get there) waits that long instead
 * of overflowing into an instant one.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
