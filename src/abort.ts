/** A signal combined from others, and the way to let go of them. */
export interface LinkedSignal {
  /** Aborts with the reason of the first of the signals to abort. */
  readonly signal: AbortSignal;
  /** Stops listening to the signals; call it once the combined signal is no longer needed. */
  release(): void;
}

/**
 * Combines signals as `AbortSignal.any` does, where the runtime has it. Vercel's `edge-runtime`
 * lacks it; there a controller listens to each signal, and `release` removes those listeners so
 * that a long-lived signal (an agent run's, say) does not collect one per call.
 */
export function linkSignals(signals: readonly AbortSignal[]): LinkedSignal {
  if (typeof AbortSignal.any === "function") {
    return { signal: AbortSignal.any([...signals]), release() {} };
  }
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
