import { parse } from "jsonc-parser";
import {
  Miniflare,
  type Request as MiniflareRequest,
  Response as MiniflareResponse,
} from "miniflare";
import type { DurableObjectNamespaceLike } from "../../edge/cloudflare/mod.ts";
import { writeConsoleAssets } from "../../edge/cloudflare/app/console_assets.ts";

/** The Worker's folder: its entry, `worker.ts`, and `wrangler.jsonc`. */
const WORKER_DIR = new URL("../../edge/cloudflare/app/", import.meta.url);

/** What `wrangler.jsonc` says that the tests need. */
interface WranglerConfig {
  compatibility_date: string;
  compatibility_flags?: string[];
  kv_namespaces?: { binding: string }[];
  durable_objects?: { bindings: { name: string; class_name: string }[] };
}

/** Options of {@linkcode startWorker}. */
export interface WorkerOptions {
  /** The Worker's vars (settings such as `OUTPOST_TOOL_TOKEN`). */
  vars?: Record<string, string>;
  /** Keeps KV and Durable Object storage in this folder, so that a restart finds it. */
  persistDir?: string;
  /**
   * Answers every request the Worker sends out (its `fetch`), in place of the network: the
   * scenarios send DuckDuckGo's host to a fixture this way, with the Worker unchanged.
   */
  outbound?: typeof fetch;
  /** Leaves a binding of `wrangler.jsonc` out, by name. */
  without?: string[];
  /** Another entry module to run with the same configuration (default: the Worker's). */
  entry?: URL;
  /** Rate-limiting bindings, simulated by Miniflare: `{ NAME: { simple: { limit, period } } }`. */
  ratelimits?: Record<string, { namespace_id: string; simple: { limit: number; period: 10 | 60 } }>;
  /** Receives what workerd writes to its stdout (the Worker's `console.log`), chunk by chunk. */
  onStdout?: (text: string) => void;
}

/** A KV namespace of the running Worker, reached from the test through Miniflare. */
export interface TestKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  list(): Promise<{ keys: { name: string; expiration?: number }[] }>;
}

/** The Worker running in workerd; `await using` (or `close()`) stops it. */
export interface RunningWorker extends AsyncDisposable {
  /** Where the Worker listens on 127.0.0.1, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** Sends a request to the Worker; `path` is relative to its origin. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The KV namespace bound as `binding`. */
  kv(binding: string): Promise<TestKv>;
  /** The Durable Object namespace bound as `binding`, to reach its objects from the test. */
  durableObjects(binding: string): Promise<DurableObjectNamespaceLike>;
  /** Stops workerd and starts it again on the same storage (give `persistDir` to keep any). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const bundles = new Map<string, Promise<string>>();

/**
 * Bundles `entry` (default `edge/cloudflare/app/worker.ts`) as wrangler's build step does
 * (`deno bundle`, which resolves deno.json's imports), once per test process, and returns the
 * bundle's path.
 */
export function bundleWorker(entry = new URL("worker.ts", WORKER_DIR)): Promise<string> {
  let bundled = bundles.get(entry.href);
  if (!bundled) bundles.set(entry.href, bundled = bundle(entry));
  return bundled;
}

async function bundle(entry: URL): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "outpost-worker-" });
  const output = `${dir}/worker.js`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      // As wrangler's build step does, with deno.lock, which must already pin what it loads.
      "--frozen",
      "--platform=browser",
      `--output=${output}`,
      entry.pathname,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
  return output;
}

let consoleAssets: Promise<string> | undefined;

/**
 * Writes the Worker's static assets (the console) as wrangler's build step does, once per test
 * process, and returns their folder.
 */
export function buildConsoleAssets(): Promise<string> {
  return consoleAssets ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "outpost-assets-" });
    await writeConsoleAssets(dir);
    return dir;
  })();
}

/** Miniflare's requests and responses are its own (undici's): this carries them across. */
function outboundService(outbound: typeof fetch) {
  return async (request: MiniflareRequest) => {
    const body = request.method === "GET" || request.method === "HEAD"
      ? undefined
      : await request.arrayBuffer();
    const response = await outbound(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      redirect: "manual",
    });
    return new MiniflareResponse(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
    });
  };
}

/** The settings in `wrangler.jsonc`: the compatibility date and the bindings. */
export async function wranglerConfig(): Promise<WranglerConfig> {
  const text = await Deno.readTextFile(new URL("wrangler.jsonc", WORKER_DIR));
  return parse(text) as WranglerConfig;
}

/**
 * Starts the Outpost Worker in workerd (through Miniflare) with the compatibility date and
 * bindings of `wrangler.jsonc`: KV namespaces and SQLite-backed Durable Objects.
 */
export async function startWorker(options: WorkerOptions = {}): Promise<RunningWorker> {
  const scriptPath = await bundleWorker(options.entry);
  // The Worker's own entry is served with its static assets, as wrangler.jsonc configures them;
  // another entry may answer `/` itself.
  const assets = options.entry ? undefined : await buildConsoleAssets();
  const config = await wranglerConfig();
  const without = new Set(options.without ?? []);
  const persist = options.persistDir;
  const miniflareOptions = () => ({
    modules: true,
    scriptPath,
    // The bundle lives in a temporary folder: module names are taken relative to it.
    modulesRoot: scriptPath.slice(0, scriptPath.lastIndexOf("/")),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    host: "127.0.0.1",
    port: 0,
    // Placeholder `request.cf` data: by default Miniflare downloads it from Cloudflare.
    cf: false,
    bindings: options.vars ?? {},
    kvNamespaces: (config.kv_namespaces ?? []).map((kv) => kv.binding)
      .filter((name) => !without.has(name)),
    durableObjects: Object.fromEntries(
      (config.durable_objects?.bindings ?? []).filter((binding) => !without.has(binding.name))
        .map((binding) => [binding.name, { className: binding.class_name, useSQLite: true }]),
    ),
    ...(assets ? { assets: { directory: assets, routerConfig: { has_user_worker: true } } } : {}),
    ...(options.ratelimits ? { ratelimits: options.ratelimits } : {}),
    ...(persist === undefined ? {} : { kvPersist: persist, durableObjectsPersist: persist }),
    ...(options.outbound ? { outboundService: outboundService(options.outbound) } : {}),
    ...(options.onStdout
      ? {
        handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
          stdout.on("data", (chunk) => options.onStdout!(String(chunk)));
          stderr.resume();
        },
      }
      : {}),
  });
  let miniflare = new Miniflare(miniflareOptions());
  let origin = (await miniflare.ready).origin;
  const close = () => miniflare.dispose();
  const worker: RunningWorker = {
    get origin() {
      return origin;
    },
    kv: async (binding) => await miniflare.getKVNamespace(binding) as unknown as TestKv,
    durableObjects: async (binding) =>
      await miniflare.getDurableObjectNamespace(binding) as unknown as DurableObjectNamespaceLike,
    fetch: (path, init) => fetch(new URL(path, origin), init),
    async restart() {
      await miniflare.dispose();
      miniflare = new Miniflare(miniflareOptions());
      origin = (await miniflare.ready).origin;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return worker;
}
