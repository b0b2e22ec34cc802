import { type Clock, systemClock } from "../clock.ts";
import { SetupError } from "../errors.ts";
import { type CallLimiter, type CallLimits, rateExceeded, tooManyRunning } from "./call_limiter.ts";

/** A caller's state: its rate bucket and its calls running. */
interface Caller {
  /**
   * The bucket, in units of `1/periodMs` of a call (so that refilling is whole numbers): a call
   * costs `periodMs`, a millisecond refills `calls`, and a full bucket holds `calls * periodMs`.
   */
  credit: number;
  /** When `credit` was last brought up to date, on the clock. */
  at: number;
  running: number;
}

const NOTHING_TO_RELEASE = () => {};

/**
 * A {@linkcode CallLimiter} in memory: each instance counts on its own, so a deployment of
 * several instances (processes, isolates) admits up to that many times the limits. What Deno
 * and Vercel Edge deployments use. Limits are read per call from `limitsFor(key)`, so that they
 * may differ per caller and change while it runs; `undefined` for a caller without limits. Limits
 * that are no whole numbers above 0 make `acquire` reject with a `SetupError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryCallLimiter } from "@outpost/agent-tools/http";
 * import { FakeClock } from "@outpost/agent-tools/testing";
 * const clock = new FakeClock(0);
 * const limiter = new MemoryCallLimiter(() => ({ rate: { calls: 2, periodMs: 60_000 } }), { clock });
 * (await limiter.acquire("token"))();
 * (await limiter.acquire("token"))();
 * // The third call within the minute waits for the bucket to refill by one call: 30 s.
 * await assert.rejects(limiter.acquire("token"), { code: "rate_limited", retryAfterMs: 30_000 });
 * await clock.advance(30_000);
 * (await limiter.acquire("token"))();
 * ```
 */
export class MemoryCallLimiter implements CallLimiter {
  readonly #limitsFor: (key: string) => CallLimits | undefined;
  readonly #clock: Clock;
  // One entry per caller that has limits: callers are tool tokens, a set the deployment fixes.
  readonly #callers = new Map<string, Caller>();

  /** Limits each caller as `limitsFor` says, timed by `options.clock` (default the system's). */
  constructor(
    limitsFor: (key: string) => CallLimits | undefined,
    options: { clock?: Clock } = {},
  ) {
    this.#limitsFor = limitsFor;
    this.#clock = options.clock ?? systemClock;
  }

  /** Admits a call of `key` within its limits, or refuses it (see {@linkcode CallLimiter}). */
  acquire(key: string): Promise<() => void> {
    const limits = this.#limitsFor(key);
    if (!limits?.rate && limits?.concurrency === undefined) {
      return Promise.resolve(NOTHING_TO_RELEASE);
    }
    const { rate, concurrency } = limits;
    const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) > 0;
    if (
      (rate && !(whole(rate.calls) && whole(rate.periodMs) && whole(rate.calls * rate.periodMs))) ||
      (concurrency !== undefined && !whole(concurrency))
    ) {
      return Promise.reject(
        new SetupError(
          "Call limits take whole numbers above 0: rate.calls, rate.periodMs and concurrency.",
        ),
      );
    }
    const now = this.#clock.now();
    let caller = this.#callers.get(key);
    if (!caller) {
      caller = { credit: rate ? rate.calls * rate.periodMs : 0, at: now, running: 0 };
      this.#callers.set(key, caller);
    }
    // Refused calls take nothing: neither a slot nor a share of the rate.
    if (concurrency !== undefined && caller.running >= concurrency) {
      return Promise.reject(tooManyRunning(concurrency));
    }
    if (rate) {
      const full = rate.calls * rate.periodMs;
      caller.credit = Math.min(full, caller.credit + Math.max(0, now - caller.at) * rate.calls);
      caller.at = now;
      if (caller.credit < rate.periodMs) {
        const waitMs = Math.ceil((rate.periodMs - caller.credit) / rate.calls);
        return Promise.reject(rateExceeded(rate, waitMs));
      }
      caller.credit -= rate.periodMs;
    }
    const admitted = caller;
    admitted.running++;
    let ended = false;
    return Promise.resolve(() => {
      if (ended) return;
      ended = true;
      admitted.running--;
    });
  }
}
