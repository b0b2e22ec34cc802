import assert from "node:assert/strict";
import { cpuUsage } from "node:process";

/** Milliseconds of CPU this process has used: unlike the wall clock, other processes' load does not add to it. */
function cpuMs(): number {
  const { user, system } = cpuUsage();
  return (user + system) / 1000;
}

/** The times of one shape at size `n` and `4n`, in milliseconds, and their ratio. */
export interface Scaling {
  n: number;
  ms: number;
  ms4: number;
  ratio: number;
}

/**
 * Asserts that `run` takes linear time in the size of what `build` makes: it times sizes `n`
 * and `4n` in one run and requires the ratio to stay under `maxRatio`. Linear work gives about
 * 4, quadratic about 16. The bound is a ratio, never absolute milliseconds, and the time is the
 * process's CPU time, so a slow or busy machine passes as well. A run too quick to time well is
 * repeated until a span of runs takes about `spanMs`; the two sizes take turns and each keeps
 * its best span, so that a collection or a burst of other work does not count. Noise only ever
 * lengthens a span, so once `minTries` turns show the ratio plainly linear (under half the
 * bound) the measurement stops; otherwise it takes up to `tries` turns before it judges.
 */
export async function assertLinear<T>(
  what: string,
  build: (n: number) => T,
  run: (input: T) => unknown,
  { n, maxRatio = 10, tries = 7, minTries = 3, spanMs = 25 }: {
    n: number;
    maxRatio?: number;
    tries?: number;
    minTries?: number;
    spanMs?: number;
  },
): Promise<Scaling> {
  const span = async (input: T, reps: number) => {
    const start = cpuMs();
    for (let i = 0; i < reps; i++) await run(input);
    return (cpuMs() - start) / reps;
  };
  const small = build(n);
  const large = build(4 * n);
  // Both sizes run once untimed, so that compiling for either is not timed; the first run also
  // tells how many runs make a span long enough to time.
  const reps = Math.min(1_000, Math.ceil(spanMs / Math.max(await span(small, 1), 0.05)));
  await span(large, 1);
  // The sizes take turns, so that a slow spell of the machine falls on both alike.
  let ms = Infinity;
  let ms4 = Infinity;
  for (let i = 0; i < tries && (i < minTries || ms4 / ms >= maxRatio / 2); i++) {
    ms = Math.min(ms, await span(small, reps));
    ms4 = Math.min(ms4, await span(large, Math.ceil(reps / 4)));
  }
  const ratio = ms4 / ms;
  // CPU time is the whole process's, so a burst of the runtime's own threads (a concurrent
  // collection, the compiler) can still land on the large size's spans on a crowded machine. A
  // ratio over the bound is measured once more, with spans four times as long, before it fails:
  // quadratic work fails both measurements (about 16 each time), noise does not repeat.
  if (ratio >= maxRatio && spanMs <= 25) {
    return await assertLinear(what, build, run, {
      n,
      maxRatio,
      tries,
      minTries,
      spanMs: spanMs * 4,
    });
  }
  // `OUTPOST_SCALING=1 deno test …` prints each shape's figures, for the hostile-shape table.
  if (Deno.env.get("OUTPOST_SCALING")) {
    console.log(`| ${what} | ${n} | ${ms.toFixed(2)} | ${ms4.toFixed(2)} | ${ratio.toFixed(1)} |`);
  }
  assert.ok(
    ratio < maxRatio,
    `${what}: ${ms.toFixed(2)} ms at n = ${n}, ${ms4.toFixed(2)} ms at 4n: ratio ${
      ratio.toFixed(1)
    } (linear is about 4)`,
  );
  return { n, ms, ms4, ratio };
}
