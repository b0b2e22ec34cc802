import { systemClock } from "../clock.ts";
import { type Link, LinkedList } from "../linked_list.ts";

/** A call {@linkcode UnkeyedCalls} tracks, until it ends. */
export type UnkeyedCall = Link<AbortController>;

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
  readonly #calls = new LinkedList<AbortController>();
  #stopping = false;
  /** Resolves the waits of `drain` once no call is tracked. */
  #idle: (() => void)[] = [];

  /** Whether {@linkcode drain} has ended the grace period: a call aborted since is not a failure. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * Tracks a call until {@linkcode end}: `controller`, which gives the call its signal, is aborted
   * when the grace period ends. Costs a call no promise of its own: its route ends it in its own
   * `finally`.
   */
  begin(controller: AbortController): UnkeyedCall {
    if (this.#stopping) controller.abort(stoppingReason());
    return this.#calls.push(controller);
  }

  /** Ends the tracking of `call`, which {@linkcode begin} began. */
  end(call: UnkeyedCall): void {
    // Every call ends here: only a drain that waits makes anything to resolve.
    if (this.#calls.remove(call) && this.#calls.size === 0 && this.#idle.length > 0) {
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /**
   * Waits up to `graceMs` for the tracked calls to end, aborts those still running, and resolves
   * when they have all ended.
   */
  async drain(graceMs: number): Promise<void> {
    const settled = () =>
      new Promise<void>((resolve) => this.#calls.size ? this.#idle.push(resolve) : resolve());
    let cancel = () => {};
    const grace = new Promise<void>((resolve) => cancel = systemClock.setTimer(resolve, graceMs));
    await Promise.race([settled(), grace]);
    cancel();
    this.#stopping = true;
    for (const controller of this.#calls.values()) controller.abort(stoppingReason());
    await settled();
  }
}

function stoppingReason(): DOMException {
  return new DOMException("The service is stopping.", "AbortError");
}
