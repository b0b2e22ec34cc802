/**
 * Runs the package on Node as a Node user gets it: a module bundled by esbuild for platform
 * "node" (ESM, Node's conditions for the npm packages, as Lambda's and Vercel's Node builds
 * do), started by the machine's `node` in a process of its own.
 */
import * as esbuild from "esbuild";
import { installNodeModules } from "./bundle.ts";
import { firstLineUrl } from "./child_url.ts";

const root = new URL("../../", import.meta.url);

/** The oldest Node the package supports. */
export const NODE_MAJOR = 20;

/**
 * The machine's `node`: `OUTPOST_NODE` if set, else the first on `PATH`; undefined when that is
 * not an executable file.
 */
export async function findNode(): Promise<string | undefined> {
  const explicit = Deno.env.get("OUTPOST_NODE");
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  for (const path of explicit ? [explicit] : dirs.map((dir) => `${dir}/node`)) {
    const info = await Deno.stat(path).catch(() => undefined);
    if (info?.isFile && (info.mode ?? 0o111) & 0o111) return path;
  }
  return undefined;
}

/** `node --version`, e.g. `v20.20.2`. */
export async function nodeVersion(node: string): Promise<string> {
  const { stdout } = await new Deno.Command(node, { args: ["--version"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).trim();
}

/**
 * Bundles `entry` (a path from the repository root) for Node into `outdir`; returns its path.
 * The entry imports the package by its name, as a user's code does; deno.json's `exports` say
 * which module each entry point is.
 */
export async function bundleForNode(entry: string, outdir: string): Promise<string> {
  await installNodeModules();
  const outfile = `${outdir}/${entry.replace(/^.*\//, "").replace(/\.ts$/, ".mjs")}`;
  try {
    await esbuild.build({
      entryPoints: [new URL(entry, root).pathname],
      absWorkingDir: root.pathname,
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: `node${NODE_MAJOR}`,
      plugins: [await packageEntries()],
      logLevel: "silent",
    });
  } finally {
    await esbuild.stop();
  }
  return outfile;
}

/** Resolves `<name>` and `<name>/<entry>` to the modules deno.json exports under them. */
async function packageEntries(): Promise<esbuild.Plugin> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const exports: Record<string, string> = config.exports;
  const name: string = config.name;
  return {
    name: "package-entries",
    setup(build) {
      build.onResolve({ filter: /^@/ }, ({ path }) => {
        if (path !== name && !path.startsWith(`${name}/`)) return undefined;
        const module = exports[`.${path.slice(name.length)}`];
        if (module === undefined) return { errors: [{ text: `deno.json exports no ${path}` }] };
        return { path: new URL(module, root).pathname };
      });
    },
  };
}

/** A module serving on 127.0.0.1 in a `node` process; `await using` stops it. */
export interface NodeServer extends AsyncDisposable {
  /** The server's origin, without a trailing slash. */
  url: string;
  /** What the process wrote to its standard error so far. */
  stderr(): string;
}

/**
 * Starts `module` with `node` and waits for the origin it prints. `prelude` (a script) runs
 * first, through `--import`; `env` is the whole environment besides `PATH`.
 */
export async function nodeServer(node: string, module: string, options: {
  env: Record<string, string>;
  prelude?: string;
}): Promise<NodeServer> {
  const args = [];
  if (options.prelude !== undefined) {
    const prelude = module.replace(/\.mjs$/, ".prelude.mjs");
    await Deno.writeTextFile(prelude, options.prelude);
    args.push("--import", new URL(`file://${prelude}`).href);
  }
  const child = new Deno.Command(node, {
    args: [...args, module],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errors = "";
  const drainedErrors = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (errors += text) }),
  );
  const stop = async () => {
    await child.stdin.close().catch(() => {});
    await child.status;
    await drainedErrors;
  };
  const { url, drained } = await firstLineUrl(child.stdout, "node", stop, () => errors);
  return {
    url,
    stderr: () => errors,
    async [Symbol.asyncDispose]() {
      await stop();
      await drained;
    },
  };
}
