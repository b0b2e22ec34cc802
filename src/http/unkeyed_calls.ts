import { systemClock } from "../clock.ts";

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
    // One controller, which the grace period's end aborts directly and `outer` through one
    // listener: what a call costs here is paid on every request.
    const controller = new AbortController();
    const onAbort = () => controller.abort(outer.reason);
    if (outer.aborted) onAbort();
    else if (this.#stopping) controller.abort(stoppingReason());
    else outer.addEventListener("abort", onAbort);
    const running = call(controller.signal).finally(() => {
      outer.removeEventListener("abort", onAbort);
      this.#calls.delete(running);
    });
    this.#calls.set(running, controller);
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
