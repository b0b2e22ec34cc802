import * as esbuild from "esbuild";

const root = new URL("../../", import.meta.url);

/** A bundled script and what went into it. */
export interface Bundle {
  /** The script. */
  code: string;
  /** Its size in bytes, and gzipped (level 9 is not available to CompressionStream: its default). */
  bytes: number;
  gzipBytes: number;
  /** Bytes in the output per npm package, and `"outpost"` for our own modules. */
  packages: Map<string, number>;
  /** Bytes in the output per module: our own by their path, an npm package's by its name. */
  modules: Map<string, number>;
}

/** How {@linkcode bundle} builds. */
export interface BundleOptions {
  /** `iife` for a service-worker script (edge-runtime), `esm` for a module Worker. */
  format: "iife" | "esm";
  minify?: boolean;
}

let installed: Promise<void> | undefined;

/**
 * esbuild resolves bare imports through a node_modules folder, which Deno makes from deno.json
 * and dev.lock (offline when the packages are cached); it is git-ignored.
 */
export function installNodeModules(): Promise<void> {
  return installed ??= (async () => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["install", "--node-modules-dir=auto", "--frozen", "--lock=dev.lock"],
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) throw new Error(`deno install failed: ${new TextDecoder().decode(stderr)}`);
  })();
}

/**
 * Bundles `entry` (a path from the repository root) for a browser-like platform: no Node
 * built-ins, as Vercel Edge and Workers want. A Node built-in anywhere in the graph fails the
 * build.
 */
export async function bundle(entry: string, options: BundleOptions): Promise<Bundle> {
  await installNodeModules();
  try {
    const result = await esbuild.build({
      entryPoints: [new URL(entry, root).pathname],
      absWorkingDir: root.pathname,
      bundle: true,
      write: false,
      metafile: true,
      format: options.format,
      minify: options.minify ?? false,
      platform: "browser",
      conditions: ["worker", "browser"],
      target: "es2022",
      logLevel: "silent",
    });
    const code = result.outputFiles[0].text;
    const packages = new Map<string, number>();
    const modules = new Map<string, number>();
    for (const output of Object.values(result.metafile.outputs)) {
      for (const [path, input] of Object.entries(output.inputs)) {
        const name = packageOf(path);
        const module = name === "outpost" ? path : name;
        packages.set(name, (packages.get(name) ?? 0) + input.bytesInOutput);
        modules.set(module, (modules.get(module) ?? 0) + input.bytesInOutput);
      }
    }
    const bytes = result.outputFiles[0].contents;
    return { code, bytes: bytes.length, gzipBytes: await gzipSize(bytes), packages, modules };
  } finally {
    await esbuild.stop();
  }
}

/** One tool family: its main name, and the folder (or file) under src/ that holds it. */
export interface Family {
  name: string;
  home: string;
}

/** Every family's main factory (or class, for the hosted family's policy). */
export const FAMILIES: Family[] = [
  { name: "webFetch", home: "fetch" },
  { name: "webSearch", home: "search" },
  { name: "askHuman", home: "human" },
  { name: "now", home: "time" },
  { name: "nativeWebSearch", home: "hosted" },
  { name: "DomainPolicy", home: "hosted" },
];

/**
 * Bundles, minified as a user's bundler would, a program that imports `name` alone from the
 * entry a program takes it from: the family's subpath (src/<home>/mod.ts) where there is one,
 * else the root entry.
 */
export async function bundleAlone({ name, home }: Family): Promise<Bundle> {
  const subpath = new URL(`src/${home}/mod.ts`, root);
  const entry = await Deno.stat(subpath).then(() => subpath, () => new URL("mod.ts", root));
  const temp = await Deno.makeTempDir({ prefix: "outpost-family-" });
  try {
    const program = `${temp}/${name}.ts`;
    await Deno.writeTextFile(
      program,
      `export { ${name} } from ${JSON.stringify(entry.pathname)};\n`,
    );
    return await bundle(program, { format: "esm", minify: true });
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}

function packageOf(path: string): string {
  const match = path.match(/node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  return match ? match[1] : "outpost";
}

/** The gzipped size of `bytes`. */
export async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes.slice()]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/**
 * Builds the Worker as `wrangler deploy --minify` does (its build step, then wrangler's own
 * bundling and minifying), into `outdir`, and returns the path of the module it would upload.
 */
export async function wranglerBuild(outdir: string): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // Wrangler's version comes from dev.lock, as every other test tool's.
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
    ],
    // The build command's paths are relative to wrangler.jsonc.
    cwd: new URL("edge/cloudflare/app/", root),
    // A dry run needs no network: no metrics, no telemetry.
    env: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    throw new Error(`wrangler deploy --dry-run failed:\n${decode(stdout)}${decode(stderr)}`);
  }
  for await (const file of Deno.readDir(outdir)) {
    if (file.name.endsWith(".js")) return `${outdir}/${file.name}`;
  }
  throw new Error(`wrangler wrote no module to ${outdir}`);
}
