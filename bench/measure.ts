/**
 * What every benchmark behind `deno task bench` shares: the summary it returns to
 * `bench/main.ts`, and a timer for small operations.
 *
 * @module
 */

/** A benchmark's headline figures, as `deno task bench` prints them in its summary. */
export interface BenchSummary {
  /** One `[label, value]` per figure, e.g. `["POST /tools/echo", "41.2 µs/call"]`. */
  rows: [string, string][];
}

/** Microseconds per call of one operation. */
export interface Timing {
  /** The median over batches, which shrugs off a batch slowed by GC or a neighbour. */
  medianUs: number;
  /** Calls timed, warm-up excluded. */
  calls: number;
}

/**
 * Times `operation`: a warm-up, then batches until about `budgetMs` has passed; the result is
 * the median time per call over the batches. For operations that take microseconds to
 * milliseconds; a ratio of two timings taken alike is what to compare across machines.
 */
export async function measure(
  operation: () => unknown,
  budgetMs = 400,
): Promise<Timing> {
  const warmUp = performance.now() + budgetMs / 4;
  let batch = 1;
  // Grow the batch until one takes about a millisecond, so the clock's resolution does not matter.
  while (performance.now() < warmUp) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await operation();
    if (performance.now() - start < 1) batch *= 2;
  }
  const perCall: number[] = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || perCall.length < 5) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await operation();
    perCall.push((performance.now() - start) * 1000 / batch);
  }
  perCall.sort((a, b) => a - b);
  return { medianUs: perCall[Math.floor(perCall.length / 2)], calls: perCall.length * batch };
}

/** A timing as printed: `41.2 µs/call`, or milliseconds past 10 000 µs. */
export function perCall(timing: Timing): string {
  return timing.medianUs >= 10_000
    ? `${(timing.medianUs / 1000).toFixed(1)} ms/call`
    : `${timing.medianUs.toFixed(1)} µs/call`;
}
