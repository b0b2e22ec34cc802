import type { QuestionStore } from "./question_store.ts";

/**
 * Wakes the waits of one channel object when their questions may have changed: one store watch
 * for all of them while any waits, however many wait, which hands each change to the waits on
 * the questions it names (all of them when it names none).
 */
export class QuestionWakers {
  readonly #store: QuestionStore;
  readonly #closer: AbortSignal;
  /** The waits, by question id. */
  readonly #wakers = new Map<string, Set<() => void>>();
  /** The watch while any wait, and when it is watching. */
  #watch?: { stop: AbortController; ready: Promise<void> };

  /** Wakes waits on `store`'s changes; every wait wakes once `closer` aborts. */
  constructor(store: QuestionStore, closer: AbortSignal) {
    this.#store = store;
    this.#closer = closer;
  }

  /** Resolves once the store watch the waits share is watching; starts it if need be. */
  watching(): Promise<void> {
    if (this.#watch && !this.#watch.stop.signal.aborted) return this.#watch.ready;
    const stop = new AbortController();
    let ready!: () => void;
    const watch = { stop, ready: new Promise<void>((resolve) => ready = resolve) };
    this.#watch = watch;
    (async () => {
      try {
        for await (const ids of this.#store.watch(stop.signal)) {
          ready();
          if (stop.signal.aborted) break;
          const woken = ids === undefined ? [...this.#wakers.keys()] : ids;
          for (const id of woken) for (const wake of [...this.#wakers.get(id) ?? []]) wake();
        }
      } catch {
        // A store that failed or closed: the waits read again, and find out for themselves.
      } finally {
        ready();
        if (this.#watch === watch) this.#watch = undefined;
        for (const wakers of [...this.#wakers.values()]) for (const wake of [...wakers]) wake();
      }
    })();
    return watch.ready;
  }

  /** A promise that resolves when question `id` may have changed, `signal` aborts, or close. */
  listen(id: string, signal?: AbortSignal): { promise: Promise<void>; cancel(): void } {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => {
      wake = () => {
        const wakers = this.#wakers.get(id);
        if (wakers?.delete(wake) && wakers.size === 0) this.#wakers.delete(id);
        signal?.removeEventListener("abort", wake);
        this.#closer.removeEventListener("abort", wake);
        resolve();
      };
    });
    let wakers = this.#wakers.get(id);
    if (!wakers) this.#wakers.set(id, wakers = new Set());
    wakers.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
    this.#closer.addEventListener("abort", wake, { once: true });
    return { promise, cancel: wake };
  }

  /** Stops the watch once no wait is left (or, with `always`, at once). */
  idle(always = false): void {
    if (always || this.#wakers.size === 0) this.#watch?.stop.abort();
  }
}
