/** One piece of work in flight and the callers waiting for it. */
interface Flight<T> {
  readonly controller: AbortController;
  readonly promise: Promise<T>;
  waiters: number;
}

/**
 * Runs at most one piece of work per key at a time: a caller that asks for a key already in
 * flight waits for the same result instead of starting its own, so fifty concurrent reads of
 * one URL make one request. Each caller's signal ends only its own wait; the work itself is
 * aborted once every caller waiting for it has given up.
 */
export class Coalescer<T> {
  readonly #flights = new Map<string, Flight<T>>();

  /** The result of `work` for `key`, started now or shared with the run already in flight. */
  run(
    key: string,
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const flight = this.#flights.get(key) ?? this.#start(key, work);
    flight.waiters++;
    if (!signal) return flight.promise.finally(() => this.#leave(key, flight));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#leave(key, flight);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          this.#leave(key, flight);
          resolve(value);
        },
        (error) => {
          signal.removeEventListener("abort", onAbort);
          this.#leave(key, flight);
          reject(error);
        },
      );
    });
  }

  #start(key: string, work: (signal: AbortSignal) => Promise<T>): Flight<T> {
    const controller = new AbortController();
    const promise = work(controller.signal);
    const flight: Flight<T> = { controller, promise, waiters: 0 };
    this.#flights.set(key, flight);
    const land = () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    };
    promise.then(land, land);
    return flight;
  }

  #leave(key: string, flight: Flight<T>): void {
    if (--flight.waiters > 0 || flight.controller.signal.aborted) return;
    // Nobody waits any more: a later caller starts afresh rather than joining an aborted run.
    if (this.#flights.get(key) === flight) {
      this.#flights.delete(key);
      flight.controller.abort(new DOMException("Every caller gave up.", "AbortError"));
    }
  }
}
