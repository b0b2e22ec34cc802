import type { Clock } from "../clock.ts";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A {@linkcode Clock} that moves only when a test says so: `advance(ms)` fires, in order, every
 * timer that falls due, so that a window (a re-attach window, a lease, an expiry) is decided by
 * the test rather than by the machine's load. The contract suites drive the channels they check
 * with one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeClock } from "@outpost/agent-tools/testing";
 * const clock = new FakeClock(0);
 * let fired = false;
 * clock.setTimer(() => fired = true, 1_000);
 * await clock.advance(999);
 * assert.equal(fired, false);
 * await clock.advance(1);
 * assert.equal(fired, true);
 * assert.equal(clock.now(), 1_000);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  /** Starts the clock at `start` milliseconds since the epoch (default 2026-01-01). */
  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  /** The clock's time, in milliseconds since the epoch. */
  now(): number {
    return this.#now;
  }

  /** Calls `callback` once the clock has been advanced by `ms`; returns its cancel function. */
  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.#now + Math.max(ms, 0), seq: this.#seq++, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet fired or cancelled, as delays from now, soonest first. */
  get pending(): readonly number[] {
    return this.#timers.map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /**
   * Moves the time on by `ms`, firing each timer that falls due at its own instant, and lets
   * the jobs each one starts run before the next (so that a timer set by a callback within the
   * span fires too).
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    while (true) {
      await settle();
      const next = this.#timers.filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = next.at;
      next.callback();
    }
    this.#now = end;
    await settle();
  }

  /**
   * Resolves once `count` timers are set (the code under test has reached its wait); rejects
   * after `timeoutMs` of real time, naming `what`, instead of hanging.
   */
  async waitForTimers(
    count = 1,
    what = `${count} timer(s)`,
    timeoutMs = 30_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#timers.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Lets pending promise jobs (and I/O callbacks queued meanwhile) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
