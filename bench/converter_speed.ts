/**
 * The converter's speed against a floor (htmlparser2's bare tokenizer), measured the same way in
 * every runtime: this module uses only `node:process` and web standards, so the Deno bench runs it
 * in place and the Node bench runs it bundled.
 *
 * On a shared machine wall time also counts the time other processes hold the core, so each run
 * is timed in CPU time of this process (`process.cpuUsage`), and wall time beside it. Each round
 * runs every contender once over the whole corpus, interleaved page by page (so that a change of
 * load between two passes cannot favour one), in an order rotated from page to page and round to
 * round so that no contender always runs first on a page or after another's garbage; a
 * contender's cost is the median over rounds of its time divided by the floor's in that round.
 *
 * @module
 */
import process from "node:process";

/** One contender: a name and a conversion of one page whose result is kept alive. */
export type Contender = [name: string, run: (html: string) => unknown];

/** A contender's figures: medians over rounds. */
export interface Speed {
  /** Time over the floor's, median of the per-round ratios of CPU time. */
  ratio: number;
  /** The 25th and 75th percentiles of those ratios: how far one round can be trusted. */
  low: number;
  high: number;
  /** The same ratio in wall time. */
  wallRatio: number;
  /** Median CPU and wall milliseconds of one pass over the corpus. */
  cpuMs: number;
  wallMs: number;
}

/** What {@linkcode timeAgainstFloor} found: the floor and each contender by name. */
export interface SpeedReport {
  rounds: number;
  floor: Speed;
  contenders: Record<string, Speed>;
}

/** Keeps results observable, so that no runtime can drop a conversion as dead code. */
let sink = 0;

/** Times one run of `run` on `html` into `at` of `cpu` and `wall`, in milliseconds. */
function time(
  run: (html: string) => unknown,
  html: string,
  cpu: number[],
  wall: number[],
  at: number,
) {
  const startCpu = process.cpuUsage();
  const startWall = performance.now();
  sink ^= String(run(html)).length;
  const endWall = performance.now();
  const used = process.cpuUsage(startCpu);
  cpu[at] += (used.user + used.system) / 1_000;
  wall[at] += endWall - startWall;
}

/**
 * Times `floor` and each contender over `pages` for `rounds` rounds after `warmup` untimed ones.
 */
export function timeAgainstFloor(
  pages: string[],
  floor: (html: string) => unknown,
  contenders: Contender[],
  rounds: number,
  warmup = 3,
): SpeedReport {
  const all: Contender[] = [["floor", floor], ...contenders];
  const cpu: number[][] = all.map(() => []);
  const wall: number[][] = all.map(() => []);
  for (let round = -warmup; round < rounds; round++) {
    const roundCpu = all.map(() => 0);
    const roundWall = all.map(() => 0);
    pages.forEach((html, page) => {
      for (let k = 0; k < all.length; k++) {
        const i = (round + page + k + all.length * warmup) % all.length;
        time(all[i][1], html, roundCpu, roundWall, i);
      }
    });
    if (round < 0) continue;
    all.forEach((_, i) => {
      cpu[i].push(roundCpu[i]);
      wall[i].push(roundWall[i]);
    });
  }
  const speed = (i: number): Speed => {
    const ratios = cpu[i].map((time, round) => time / cpu[0][round]);
    return {
      ratio: percentile(ratios, 0.5),
      low: percentile(ratios, 0.25),
      high: percentile(ratios, 0.75),
      wallRatio: percentile(wall[i].map((time, round) => time / wall[0][round]), 0.5),
      cpuMs: percentile(cpu[i], 0.5),
      wallMs: percentile(wall[i], 0.5),
    };
  };
  const report: SpeedReport = { rounds, floor: speed(0), contenders: {} };
  all.slice(1).forEach(([name], k) => report.contenders[name] = speed(k + 1));
  if (sink === -1) console.log(sink);
  return report;
}

/** The value at fraction `p` of the sorted `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}
