import type { Clock } from "../../src/clock.ts";
import { waitFor } from "./wait.ts";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A {@linkcode Clock} that moves only when a test says so: `advance(ms)` fires, in order, every
 * timer that falls due, so a window is decided by the test rather than by the machine's load.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.#now + Math.max(ms, 0), seq: this.#seq++, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet fired or cancelled, soonest first. */
  get pending(): readonly number[] {
    return this.#timers.map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /**
   * Moves the time on by `ms`, firing each timer that falls due at its own instant, and lets
   * the promise jobs each one starts run before the next (so a timer set by a callback within
   * the span fires too).
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

  /** Resolves once `count` timers are pending (the code under test has reached its wait). */
  async waitForTimers(count = 1, what = `${count} timer(s)`): Promise<void> {
    await waitFor(() => this.#timers.length >= count, what);
  }
}

/** Lets pending promise jobs (and I/O callbacks queued meanwhile) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
