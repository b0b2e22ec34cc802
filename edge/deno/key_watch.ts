import type { Clock } from "../../src/clock.ts";

/**
 * Wakes a waiter when watched keys change, when `pollMs` passes (other processes' writes), or
 * when a signal aborts. It keeps one watch read outstanding across waits, with one callback
 * that hands its result to whoever waits then, so a change that arrives between two waits still
 * wakes the second, and a long wait of many polls holds nothing per poll.
 */
export class KeyWatch {
  readonly #reader: ReadableStreamDefaultReader<unknown>;
  readonly #pollMs: number;
  #reading = false;
  /** A change reported while nobody waited, for the next wait. */
  #changed = false;
  /** Set once the watch has ended: the store was closed, or the read failed. */
  #ended = false;
  #error: unknown;
  /** The wait in progress, if any. */
  #waiter?: (again: boolean) => void;
  #closed = false;

  readonly #clock: Clock;

  constructor(kv: Deno.Kv, keys: Deno.KvKey[], pollMs: number, clock: Clock) {
    this.#reader = kv.watch(keys).getReader();
    this.#pollMs = pollMs;
    this.#clock = clock;
  }

  /** Resolves `true` to look again, `false` once the watch has ended (the store was closed). */
  changed(signal: AbortSignal): Promise<boolean> {
    if (this.#changed) {
      this.#changed = false;
      return Promise.resolve(true);
    }
    this.#pull();
    return new Promise<boolean>((resolve, reject) => {
      const settle = (again: boolean) => {
        if (this.#waiter !== settle) return;
        this.#waiter = undefined;
        cancelTimer();
        signal.removeEventListener("abort", onAbort);
        if (this.#error !== undefined) reject(this.#error);
        else resolve(again && !this.#ended);
      };
      const onAbort = () => settle(true);
      this.#waiter = settle;
      const cancelTimer = Number.isFinite(this.#pollMs)
        ? this.#clock.setTimer(() => settle(true), this.#pollMs)
        : () => {};
      if (this.#ended || signal.aborted) return settle(true);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Ends the watch stream. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader.cancel();
  }

  /** Starts a read unless one is outstanding or the watch has ended. */
  #pull(): void {
    if (this.#reading || this.#ended) return;
    this.#reading = true;
    this.#reader.read().then(
      (result) => this.#report(!result.done),
      (error) => {
        this.#error = error;
        this.#report(false);
      },
    );
  }

  #report(changed: boolean): void {
    this.#reading = false;
    if (!changed) this.#ended = true;
    if (this.#waiter) this.#waiter(changed);
    else if (changed) this.#changed = true;
  }
}
