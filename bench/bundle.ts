/**
 * Bundle size and cold start: the Worker as `wrangler deploy --minify` builds it (gzipped, the
 * figure Cloudflare's 3 MB / 10 MB limits and cold starts depend on), its time from starting
 * workerd to the first response, next to an empty Worker's, and the Vercel Edge Function's
 * bundle. `deno run -A bench/bundle.ts`, or through `deno task bench`.
 *
 * @module
 */
import { Miniflare } from "miniflare";
import { bundle, gzipSize } from "../tests/support/bundle.ts";

const root = new URL("../", import.meta.url);
/** The whole Worker (every tool, MCP, the console) must stay within this, gzipped. */
export const WORKER_GZIP_BUDGET = 120 * 1024;
/** The date the equivalent Worker runs under: one that Deno's `npm:miniflare@^4` accepts. */
const COMPATIBILITY_DATE = "2026-07-30";
const TOOL_TOKEN = "bench-tool-token-0123456789";
const OPERATOR_TOKEN = "bench-operator-token-0123456789";
const RUNS = 5;

/** What {@linkcode benchBundle} measured. */
export interface BundleReport {
  /** Which Worker was measured: the real entry, or the equivalent until it exists. */
  worker: string;
  /** Its size after `wrangler deploy --dry-run --minify`, and gzipped. */
  workerBytes: number;
  workerGzipBytes: number;
  /** Median time from starting workerd to the Worker's first response, and an empty Worker's. */
  coldStartMs: number;
  emptyColdStartMs: number;
  /** The Vercel Edge Function as a minified service-worker script, and gzipped. */
  vercelBytes: number;
  vercelGzipBytes: number;
  /** What the Worker bundle is made of: minified bytes per npm package (`outpost`: ours). */
  packages: [string, number][];
}

interface WorkerEntry {
  name: string;
  /** Arguments for `wrangler deploy` besides the dry run, out dir and minify. */
  wranglerArgs: string[];
  /** Where wrangler runs (its build command's paths are relative to the config). */
  cwd: URL;
  /** Bindings beyond the settings, as Miniflare takes them. */
  bindings: {
    kvNamespaces?: string[];
    durableObjects?: Record<string, { className: string; useSQLite: boolean }>;
  };
  compatibilityDate: string;
  /** The source entry, for the package breakdown. */
  source: string;
}

async function exists(path: URL): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function run(args: string[], cwd: URL): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  if (code !== 0) throw new Error(`deno ${args.join(" ")} failed:\n${text}`);
  return text;
}

/** The Worker entry when it is in the tree, else a bundle of the app with every tool. */
async function workerEntry(temp: string): Promise<WorkerEntry> {
  const config = new URL("edge/cloudflare/wrangler.jsonc", root);
  if (await exists(config)) {
    const text = await Deno.readTextFile(config);
    const date = text.match(/"compatibility_date"\s*:\s*"([^"]+)"/)?.[1] ?? COMPATIBILITY_DATE;
    const kv = [...text.matchAll(/"binding"\s*:\s*"([^"]+)"/g)].map((m) => m[1]);
    const objects = [
      ...text.matchAll(/\{\s*"name"\s*:\s*"([^"]+)"\s*,\s*"class_name"\s*:\s*"([^"]+)"/g),
    ];
    return {
      name: "edge/cloudflare/worker.ts",
      wranglerArgs: ["--config", config.pathname],
      cwd: new URL(".", config),
      bindings: {
        kvNamespaces: kv,
        durableObjects: Object.fromEntries(
          objects.map(([, name, className]) => [name, { className, useSQLite: true }]),
        ),
      },
      compatibilityDate: date,
      source: "edge/cloudflare/worker.ts",
    };
  }
  // Deno resolves deno.json's imports; wrangler then minifies the single module it is given.
  const source = "bench/fixtures/all_tools_worker.ts";
  const script = `${temp}/all_tools_worker.js`;
  await run([
    "bundle",
    "--lock=dev.lock",
    "--quiet",
    "--platform=browser",
    `--output=${script}`,
    source,
  ], root);
  return {
    name: `${source} (the app with every tool, until the Worker entry exists)`,
    wranglerArgs: ["--name", "outpost", "--compatibility-date", COMPATIBILITY_DATE, script],
    // Wrangler leaves a .wrangler folder where it runs: not in the repository.
    cwd: new URL(`file://${temp}/`),
    bindings: {},
    compatibilityDate: COMPATIBILITY_DATE,
    source,
  };
}

/** Builds as `wrangler deploy --minify` would and returns the module it would upload. */
async function wranglerBuild(entry: WorkerEntry, temp: string): Promise<string> {
  const outdir = `${temp}/wrangler-out`;
  await run([
    "run",
    // Wrangler may run outside the repository: it still takes its version from dev.lock.
    `--config=${new URL("deno.json", root).pathname}`,
    `--lock=${new URL("dev.lock", root).pathname}`,
    "--frozen",
    "-A",
    "npm:wrangler@^4.164.0",
    "deploy",
    "--dry-run",
    "--minify",
    "--outdir",
    outdir,
    ...entry.wranglerArgs,
  ], entry.cwd);
  for await (const file of Deno.readDir(outdir)) {
    if (file.name.endsWith(".js")) return `${outdir}/${file.name}`;
  }
  throw new Error(`wrangler wrote no module to ${outdir}`);
}

/** Starts workerd on `scriptPath`, sends one request, and returns the milliseconds it took. */
async function coldStart(
  scriptPath: string,
  entry: Pick<WorkerEntry, "bindings" | "compatibilityDate">,
): Promise<number> {
  const started = performance.now();
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    // Module names are taken relative to this; the default, the working directory, is not above.
    modulesRoot: scriptPath.slice(0, scriptPath.lastIndexOf("/")),
    compatibilityDate: entry.compatibilityDate,
    bindings: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN },
    ...entry.bindings,
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
    const entry = await workerEntry(temp);
    const module = await wranglerBuild(entry, temp);
    const minified = await Deno.readFile(module);
    // The same bindings, so that only the script differs: its Durable Object classes are stubs.
    const stubs = Object.values(entry.bindings.durableObjects ?? {}).map(({ className }) =>
      `export class ${className} { fetch() { return new Response("ok"); } }\n`
    );
    const empty = `${temp}/empty.js`;
    await Deno.writeTextFile(
      empty,
      stubs.join("") + 'export default { fetch: () => new Response("ok") };',
    );
    const coldStartMs = await median(() => coldStart(module, entry));
    const emptyColdStartMs = await median(() => coldStart(empty, entry));
    const worker = await bundle(entry.source, { format: "esm", minify: true });
    const vercel = await bundle("tests/fixtures/vercel_service_worker.ts", {
      format: "iife",
      minify: true,
    });
    return {
      worker: entry.name,
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
  console.log(`  Worker: ${report.worker}`);
  console.log(
    `    wrangler --minify: ${kb(report.workerBytes)}, gzipped ${kb(report.workerGzipBytes)} ` +
      `(${verdict} the ${kb(WORKER_GZIP_BUDGET)} budget)`,
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
