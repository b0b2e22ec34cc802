/**
 * The seam through which the library reads the time and waits: everything that times out,
 * backs off, expires or polls takes a {@linkcode Clock} (default {@linkcode systemClock}), so
 * that tests decide windows with a fake clock instead of sleeping.
 *
 * @module
 */

/**
 * The longest timer runtimes honour: a longer `setTimeout` overflows and fires after about 1 ms,
 * so options that become timers are checked against it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The time and timers. Only two members, so that a fake one is a few lines: `now()` as
 * `Date.now()` reads it, and `setTimer` as `setTimeout` with a cancel function instead of a
 * handle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Clock } from "@outpost/agent-tools";
 * // A clock stopped at one instant whose timers never fire: a read under it never times out.
 * const stopped: Clock = { now: () => 0, setTimer: () => () => {} };
 * assert.equal(stopped.now(), 0);
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()` counts them. */
  now(): number;
  /**
   * Calls `callback` once, `ms` milliseconds from now (at once for 0 or less); returns a function
   * that cancels the call if it has not happened yet (calling it later does nothing).
   */
  setTimer(callback: () => void, ms: number): () => void;
}

/**
 * The runtime's own clock: `Date.now()` and `setTimeout`. A delay beyond
 * {@linkcode MAX_TIMER_MS} waits that long instead of overflowing into an instant one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { systemClock } from "@outpost/agent-tools";
 * assert.ok(Math.abs(systemClock.now() - Date.now()) < 1_000);
 * const fired = await new Promise((resolve) => systemClock.setTimer(() => resolve(true), 1));
 * assert.equal(fired, true);
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const timer = setTimeout(callback, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};

/**
 * Resolves `ms` milliseconds from now on `clock`, or rejects with the signal's reason when it
 * aborts first (at once if it already has).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sleep, type Clock } from "@outpost/agent-tools";
 * // A clock whose timers fire at once: the sleep ends without waiting.
 * const instant: Clock = { now: () => 0, setTimer: (callback) => (callback(), () => {}) };
 * await sleep(60_000, { clock: instant });
 * await assert.rejects(sleep(10, { signal: AbortSignal.abort(new Error("stop")) }), /stop/);
 * ```
 */
export function sleep(
  ms: number,
  { signal, clock = systemClock }: { signal?: AbortSignal; clock?: Clock } = {},
): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let cancel = () => {};
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    // Listening first: a fake clock may fire the timer before `setTimer` returns.
    signal?.addEventListener("abort", onAbort, { once: true });
    cancel = clock.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
  });
}
