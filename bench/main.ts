/**
 * Runs every benchmark, `deno task bench`: the converter on the page corpus, the HTTP front,
 * the service's throughput against a bare `Deno.serve`, search parsing and rendering, and the
 * Worker and Edge Function bundles, each printing its detail, then one summary of their headline
 * figures. Exits with 1 if any benchmark failed.
 *
 * @module
 */
import { benchBundle, WORKER_GZIP_BUDGET } from "./bundle.ts";
import { benchHtmlToMarkdown, benchScaling } from "./html_to_markdown.ts";
import { run as benchHttp } from "./http.ts";
import { run as benchThroughput } from "./throughput.ts";
import type { BenchSummary } from "./measure.ts";
import { run as benchWebSearch } from "./web_search.ts";

/**
 * The converter prints its figures rather than returning them: its summary is the table it
 * prints, and the worst of its adversarial scaling ratios.
 */
async function benchConverter(): Promise<BenchSummary> {
  const table = await echoing(benchHtmlToMarkdown);
  const scaling = await echoing(() => Promise.resolve(benchScaling()));
  const rows = table.map(row).filter((r): r is [string, string] => r !== undefined);
  let worst: [string, number] | undefined;
  for (const [label, value] of scaling.map(row).filter((r) => r !== undefined)) {
    const ratio = Number(/\(([\d.]+)×\)/.exec(value)?.[1]);
    if (ratio && (!worst || ratio > worst[1])) worst = [label, ratio];
  }
  if (worst) rows.push(["worst scaling, N → 4N", `${worst[1]}× (${worst[0]}; ~4× is linear)`]);
  if (rows.length === 0) rows.push(["skipped", table[0] ?? "printed nothing"]);
  return { rows };
}

/** An indented `label  value` line as a row. */
function row(line: string): [string, string] | undefined {
  if (!/^\s/.test(line)) return undefined;
  const [label, ...value] = line.trim().split(/\s{2,}/);
  return value.length > 0 ? [label, value.join("  ")] : undefined;
}

/** The bundles' headline figures, from the report `benchBundle` returns. */
async function bundles(): Promise<BenchSummary> {
  const report = await benchBundle();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return {
    rows: [
      [
        "Worker, wrangler --minify",
        `${kb(report.workerBytes)}, gzipped ${kb(report.workerGzipBytes)} (budget ${
          kb(WORKER_GZIP_BUDGET)
        })`,
      ],
      [
        "Worker cold start",
        `${report.coldStartMs.toFixed(0)} ms, ${
          (report.coldStartMs / report.emptyColdStartMs).toFixed(2)
        }× an empty Worker's`,
      ],
      [
        "Vercel Edge Function",
        `${kb(report.vercelBytes)}, gzipped ${kb(report.vercelGzipBytes)}`,
      ],
      ...report.families.map((family): [string, string] => [
        `${family.name} alone`,
        `${kb(family.bytes)}, gzipped ${kb(family.gzipBytes)}`,
      ]),
    ],
  };
}

/** Runs `work` with `console.log` still printing, and returns what it printed, line by line. */
async function echoing(work: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(...args.map(String).join(" ").split("\n"));
    log(...args);
  };
  try {
    await work();
  } finally {
    console.log = log;
  }
  return lines;
}

const BENCHES: [string, () => Promise<BenchSummary>][] = [
  ["html_to_markdown", benchConverter],
  ["HTTP front", benchHttp],
  ["throughput over HTTP", () => benchThroughput()],
  ["web_search", benchWebSearch],
  ["bundles", bundles],
];

const outcomes: { title: string; seconds: number; summary?: BenchSummary; error?: unknown }[] = [];
for (const [title, run] of BENCHES) {
  console.log(`\n=== ${title}`);
  const start = performance.now();
  try {
    const summary = await run();
    const seconds = (performance.now() - start) / 1000;
    // The converter and the bundles print their own detail.
    if (title !== "html_to_markdown" && title !== "bundles") {
      for (const [label, value] of summary.rows) console.log(`  ${label}: ${value}`);
    }
    outcomes.push({ title, seconds, summary });
  } catch (error) {
    console.error(`  failed: ${error instanceof Error ? error.stack : error}`);
    outcomes.push({ title, seconds: (performance.now() - start) / 1000, error });
  }
}

console.log("\n=== Summary");
for (const { title, seconds, summary, error } of outcomes) {
  console.log(`${title} (${seconds.toFixed(1)} s)${error ? ": FAILED" : ""}`);
  const rows = summary?.rows ?? [["error", error instanceof Error ? error.message : String(error)]];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}
if (outcomes.some((outcome) => outcome.error !== undefined)) Deno.exit(1);
