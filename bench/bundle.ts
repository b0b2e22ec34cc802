/**
 * Bundle size and cold start: the Worker as `wrangler deploy --minify` builds it (gzipped, the
 * figure Cloudflare's size limits and cold starts depend on), its time from starting workerd to
 * the first response next to an empty Worker's, and the Vercel Edge Function's bundle.
 * `deno run --lock=dev.lock -A bench/bundle.ts`, or through `deno task bench`.
 *
 * @module
 */
import { Miniflare } from "miniflare";
import { bundle, gzipSize, wranglerBuild } from "../tests/support/bundle.ts";
import { wranglerConfig } from "../tests/support/workerd.ts";

/** The whole Worker (every tool, MCP, the console) must stay within this, gzipped. */
export const WORKER_GZIP_BUDGET = 120 * 1024;
const TOOL_TOKEN = "bench-tool-token-0123456789";
const OPERATOR_TOKEN = "bench-operator-token-0123456789";
const RUNS = 5;

/** What {@linkcode benchBundle} measured. */
export interface BundleReport {
  /** The Worker's size after `wrangler deploy --dry-run --minify`, and gzipped. */
  workerBytes: number;
  workerGzipBytes: number;
  /** Median time from starting workerd to the Worker's first response, and an empty Worker's. */
  coldStartMs: number;
  emptyColdStartMs: number;
  /** The Vercel Edge Function as a minified service-worker script, and gzipped. */
  vercelBytes: number;
  vercelGzipBytes: number;
  /** What the Worker is made of: minified bytes per npm package (`outpost`: ours). */
  packages: [string, number][];
}

/** Starts workerd on `scriptPath`, sends one request, and returns the milliseconds it took. */
async function coldStart(scriptPath: string): Promise<number> {
  const config = await wranglerConfig();
  const started = performance.now();
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    // Module names are taken relative to this; the default, the working directory, is not above.
    modulesRoot: scriptPath.slice(0, scriptPath.lastIndexOf("/")),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    bindings: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN },
    kvNamespaces: (config.kv_namespaces ?? []).map((kv) => kv.binding),
    durableObjects: Object.fromEntries(
      (config.durable_objects?.bindings ?? []).map((binding) => [
        binding.name,
        { className: binding.class_name, useSQLite: true },
      ]),
    ),
  });
  try {
    const response = await miniflare.dispatchFetch("http://localhost/tools", {
      headers: { authorization: `Bearer ${TOOL_TOKEN}` },
    });
    const body = await response.text();
    if (!response.ok) throw new Error(`the Worker answered ${response.status}: ${body}`);
    return performance.now() - started;
  } finally {
    await miniflare.dispose();
  }
}

async function median(measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await measure());
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

/** Measures the bundles and the Worker's cold start. */
export async function measureBundles(): Promise<BundleReport> {
  const temp = await Deno.makeTempDir({ prefix: "outpost-bench-" });
  try {
    const module = await wranglerBuild(`${temp}/wrangler-out`);
    const minified = await Deno.readFile(module);
    // The same bindings, so that only the script differs: its Durable Object classes are stubs.
    const config = await wranglerConfig();
    const stubs = (config.durable_objects?.bindings ?? []).map(({ class_name }) =>
      `export class ${class_name} { fetch() { return new Response("ok"); } }\n`
    );
    const empty = `${temp}/empty.js`;
    await Deno.writeTextFile(
      empty,
      stubs.join("") + 'export default { fetch: () => new Response("ok") };',
    );
    const coldStartMs = await median(() => coldStart(module));
    const emptyColdStartMs = await median(() => coldStart(empty));
    const worker = await bundle("edge/cloudflare/worker.ts", { format: "esm", minify: true });
    const vercel = await bundle("tests/fixtures/vercel_service_worker.ts", {
      format: "iife",
      minify: true,
    });
    return {
      workerBytes: minified.length,
      workerGzipBytes: await gzipSize(minified),
      coldStartMs,
      emptyColdStartMs,
      vercelBytes: vercel.bytes,
      vercelGzipBytes: vercel.gzipBytes,
      packages: [...worker.packages].sort((a, b) => b[1] - a[1]),
    };
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints {@linkcode measureBundles}'s figures; `deno task bench` calls it. */
export async function benchBundle(): Promise<BundleReport> {
  const report = await measureBundles();
  const verdict = report.workerGzipBytes <= WORKER_GZIP_BUDGET ? "within" : "OVER";
  console.log(`\nBundle and cold start`);
  console.log(
    `  Worker (edge/cloudflare, wrangler --minify): ${kb(report.workerBytes)}, gzipped ` +
      `${kb(report.workerGzipBytes)} (${verdict} the ${kb(WORKER_GZIP_BUDGET)} budget)`,
  );
  console.log(
    `    workerd start to first response: ${report.coldStartMs.toFixed(0)} ms, ` +
      `${(report.coldStartMs / report.emptyColdStartMs).toFixed(2)}x an empty Worker's ` +
      `${report.emptyColdStartMs.toFixed(0)} ms (median of ${RUNS})`,
  );
  console.log(`    minified bytes by package:`);
  for (const [name, bytes] of report.packages.filter(([, bytes]) => bytes >= 1024)) {
    console.log(`      ${name.padEnd(28)} ${kb(bytes).padStart(9)}`);
  }
  console.log(
    `  Vercel Edge Function (service-worker script, minified): ${kb(report.vercelBytes)}, ` +
      `gzipped ${kb(report.vercelGzipBytes)}`,
  );
  return report;
}

if (import.meta.main) await benchBundle();
