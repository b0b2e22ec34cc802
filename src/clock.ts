/**
 * Time, timers and aborts, in one place: everything that times out, backs off, expires or polls
 * takes a {@linkcode Clock} (default {@linkcode systemClock}), so that tests decide windows with
 * a fake clock instead of sleeping; signals are combined and bounded here too, where the
 * runtimes differ (Vercel's `edge-runtime` lacks `AbortSignal.any`).
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
 * import type { Clock } from "@outpost/agent-tools/time";
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
 * import { systemClock } from "@outpost/agent-tools/time";
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
 * import { type Clock, sleep } from "@outpost/agent-tools/time";
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

/** A signal combined from others, and the way to let go of them. */
export interface LinkedSignal {
  /** Aborts with the reason of the first of the signals to abort. */
  readonly signal: AbortSignal;
  /** Stops listening to the signals; call it once the combined signal is no longer needed. */
  release(): void;
}

/**
 * Combines signals as `AbortSignal.any` does: a controller listens to each signal, and `release`
 * removes those listeners so that a long-lived signal (an agent run's, say) does not collect one
 * per call. Not `AbortSignal.any` itself: Vercel's `edge-runtime` lacks it, and Deno's keeps
 * weak references whose collection took a fifth of a busy service's time.
 */
export function linkSignals(signals: readonly AbortSignal[]): LinkedSignal {
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted) return { signal: AbortSignal.abort(aborted.reason), release() {} };
  const controller = new AbortController();
  const release = () => {
    for (const signal of signals) signal.removeEventListener("abort", onAbort);
  };
  function onAbort(this: AbortSignal) {
    release();
    controller.abort(this.reason);
  }
  for (const signal of signals) signal.addEventListener("abort", onAbort);
  return { signal: controller.signal, release };
}

/** A signal bounded in time, and whether the time is what ran out. */
export interface TimeLimit extends LinkedSignal {
  /** Whether the time ran out (whatever else aborted the signal first). */
  readonly expired: boolean;
}

/**
 * A signal that aborts `ms` milliseconds from now on `clock`, with `reason()` (default a
 * `TimeoutError`), or when `signal` does, with its reason. `release` cancels the timer and stops
 * listening to `signal`; call it once the work is done.
 */
export function timeLimit(
  ms: number,
  { signal, clock = systemClock, reason = timeoutReason }: {
    signal?: AbortSignal;
    clock?: Clock;
    reason?: () => unknown;
  } = {},
): TimeLimit {
  const timer = new AbortController();
  let expired = false;
  const cancel = clock.setTimer(() => {
    expired = true;
    timer.abort(reason());
  }, ms);
  const linked = signal ? linkSignals([signal, timer.signal]) : undefined;
  return {
    signal: linked?.signal ?? timer.signal,
    get expired() {
      return expired;
    },
    release() {
      cancel();
      linked?.release();
    },
  };
}

function timeoutReason(): DOMException {
  return new DOMException("The time limit ran out.", "TimeoutError");
}

/** Rejects as soon as `signal` aborts, even when the work itself ignores the signal. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
