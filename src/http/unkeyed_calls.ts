import { linkSignals, systemClock } from "../clock.ts";

/**
 * The tool calls in flight that carry no tool-call id. Nobody can re-attach to such a call, so a
 * stopping service gives them a grace period and then aborts them (an `ask_human` among them
 * withdraws its question instead of leaving it pending for nobody). Calls with an id are never
 * tracked here: they are durable, and their retry re-attaches after a restart.
 *
 * Each call gets its own controller, made within its request: workerd refuses an object that
 * keeps one controller across requests.
 */
export class UnkeyedCalls {
  readonly #calls = new Map<Promise<unknown>, AbortController>();
  #stopping = false;

  /** Whether {@linkcode drain} has ended the grace period: a call aborted since is not a failure. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Runs `call` with a signal that aborts with `outer` or when the grace period ends. */
  run<T>(outer: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const stop = new AbortController();
    if (this.#stopping) stop.abort(stoppingReason());
    const linked = linkSignals([outer, stop.signal]);
    const running = call(linked.signal).finally(() => {
      linked.release();
      this.#calls.delete(running);
    });
    this.#calls.set(running, stop);
    return running;
  }

  /**
   * Waits up to `graceMs` for the tracked calls to end, aborts those still running, and resolves
   * when they have all ended.
   */
  async drain(graceMs: number): Promise<void> {
    const settled = () => Promise.allSettled([...this.#calls.keys()]);
    let cancel = () => {};
    const grace = new Promise<void>((resolve) => cancel = systemClock.setTimer(resolve, graceMs));
    await Promise.race([settled(), grace]);
    cancel();
    this.#stopping = true;
    for (const stop of this.#calls.values()) stop.abort(stoppingReason());
    await settled();
  }
}

function stoppingReason(): DOMException {
  return new DOMException("The service is stopping.", "AbortError");
}
