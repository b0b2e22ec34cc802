/**
 * `deno task start`: serves Outpost's tools on Deno with everything kept in one file-backed
 * Deno KV under `.outpost/`: `web_fetch` (with a KV URL cache), `web_search` (DuckDuckGo, or
 * Tavily when `TAVILY_API_KEY` is set), `now` and `ask_human` (on a durable channel), as a JSON
 * API, an MCP endpoint and an operator console.
 *
 * ```sh
 * deno task start [--port 8787] [--host 127.0.0.1] [--tool-token …] [--operator-token …] [--data-dir .outpost]
 * ```
 *
 * Tokens come from `OUTPOST_TOOL_TOKEN` / `OUTPOST_OPERATOR_TOKEN` (or the flags, which other
 * users can read in the process list); missing ones are generated and printed, and then the
 * server only listens on a loopback address.
 *
 * Ctrl-C or SIGTERM stops it: open event streams end, calls without a tool-call id get up to
 * ten seconds to finish and are then aborted (an `ask_human` among them withdraws its question,
 * which nothing could re-attach to), and the store is closed. Calls with a tool-call id are
 * dropped but their questions stay pending in the store: a client that retries a call with the
 * same `Outpost-Tool-Call-Id` (and session and run ids) re-attaches to its question. After a
 * crash, a pending question without a tool-call id is withdrawn once its lease runs out.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  askHuman,
  duckduckgoSearch,
  HttpReader,
  now,
  tavilySearch,
  UserError,
  VERSION,
  webFetch,
} from "../../mod.ts";
import { createApp } from "../../src/http/mod.ts";
import { guardedServe } from "./connection_guard.ts";
import { DenoKvHumanChannel } from "./human_channel.ts";
import { resolveHost } from "./resolve_host.ts";
import { DenoKvUrlCache } from "./url_cache.ts";

const USAGE = `Usage: deno task start [options]

  --port <n>              port to listen on (default 8787; 0 picks a free one)
  --host <address>        address to bind (default 127.0.0.1)
  --tool-token <t>        bearer token for /tools and /mcp; prefer OUTPOST_TOOL_TOKEN, since
                          command lines are visible to other users
  --operator-token <t>    bearer token for the console and /questions; prefer
                          OUTPOST_OPERATOR_TOKEN
  --data-dir <dir>        where the Deno KV store lives (default .outpost)
  -h, --help              show this help`;

interface Config {
  port: number;
  host: string;
  toolToken?: string;
  operatorToken?: string;
  dataDir: string;
}

/** How long a shutdown waits for calls without a tool-call id to finish. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long aborted calls get to withdraw their questions before the store closes. */
const WITHDRAW_MS = 2_000;

/** Resolves after `ms`, without holding the process open. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => Deno.unrefTimer(setTimeout(resolve, ms)));
}

function parseFlags(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        "tool-token": { type: "string" },
        "operator-token": { type: "string" },
        "data-dir": { type: "string", default: ".outpost" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    // Unknown or malformed flags: parseArgs's message names the flag.
    throw new UserError(error instanceof Error ? error.message : String(error), { hint: USAGE });
  }
}

function readConfig(args: string[]): Config | undefined {
  const { values } = parseFlags(args);
  if (values.help) return undefined;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    throw new UserError(`--port must be a port number, not ${JSON.stringify(values.port)}.`, {
      hint: USAGE,
    });
  }
  return {
    port,
    host: values.host,
    toolToken: values["tool-token"] ?? (Deno.env.get("OUTPOST_TOOL_TOKEN") || undefined),
    operatorToken: values["operator-token"] ??
      (Deno.env.get("OUTPOST_OPERATOR_TOKEN") || undefined),
    dataDir: values["data-dir"],
  };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(host);
}

function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

async function start(config: Config): Promise<void> {
  if (!isLoopback(config.host) && (!config.toolToken || !config.operatorToken)) {
    throw new UserError(
      `Refusing to listen on ${config.host} without configured tokens: anyone who can reach it ` +
        "could call the tools and answer questions.",
      {
        hint: "Set OUTPOST_TOOL_TOKEN and OUTPOST_OPERATOR_TOKEN (or --tool-token and " +
          "--operator-token), or listen on 127.0.0.1.",
      },
    );
  }
  const generated: string[] = [];
  const toolToken = config.toolToken ?? generateToken();
  if (!config.toolToken) generated.push(`  Tool token:      ${toolToken}`);
  const operatorToken = config.operatorToken ?? generateToken();
  if (!config.operatorToken) generated.push(`  Operator token:  ${operatorToken}`);

  await Deno.mkdir(config.dataDir, { recursive: true });
  const store = `${config.dataDir}/outpost.sqlite3`;
  const kv = await Deno.openKv(store);
  const channel = new DenoKvHumanChannel(kv);
  // TavilySearch reads the key itself; it is looked at here only to choose the backend.
  const tavily = Boolean(Deno.env.get("TAVILY_API_KEY"));
  const tools = [
    webFetch(new HttpReader({ cache: new DenoKvUrlCache(kv), resolveHost })),
    tavily ? tavilySearch() : duckduckgoSearch(),
    now,
    askHuman(channel),
  ];
  const app = createApp({ tools, channel, auth: { toolToken, operatorToken } });
  // Calls without a tool-call id get a grace period on shutdown. Keyed ones are durable: their
  // questions stay pending in the store and the retried call re-attaches after a restart, so
  // they are neither waited for nor aborted.
  // Past the grace period they are aborted, so that an ask_human among them withdraws its
  // question, which no retry could re-attach to, instead of leaving it pending for nobody.
  const unkeyed = new Map<Promise<Response>, AbortController>();
  const handler = (request: Request): Promise<Response> => {
    if (request.headers.has("outpost-tool-call-id")) return app.fetch(request);
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    const response = app.fetch(new Request(request, { signal }));
    unkeyed.set(response, stop);
    response.finally(() => unkeyed.delete(response)).catch(() => {});
    return response;
  };

  // Deno.serve alone bounds neither header nor idle time, nor connections that never send a
  // request; the guard in front does, without cutting a request in flight.
  const server = guardedServe({
    hostname: config.host,
    port: config.port,
    onListen({ hostname, port }) {
      const base = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
      console.log(
        [
          `Outpost ${VERSION} listening on ${base}/`,
          `  Console:         ${base}/`,
          `  MCP:             ${base}/mcp`,
          `  Tools API:       ${base}/tools`,
          `  Search:          ${tavily ? "Tavily" : "DuckDuckGo (set TAVILY_API_KEY for Tavily)"}`,
          `  Store:           ${store}`,
          ...generated,
          ...(generated.length ? ["  (generated for this run; set them to keep them stable)"] : []),
          "Press Ctrl-C to stop.",
        ].join("\n"),
      );
    },
  }, handler);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    app.close();
    // Stops accepting connections; what is still in flight after the grace period is dropped.
    const drained = server.shutdown();
    await Promise.race([
      Promise.allSettled([...unkeyed.keys()]),
      drained,
      delay(SHUTDOWN_GRACE_MS),
    ]);
    const late = [...unkeyed];
    for (const [, controller] of late) {
      controller.abort(new DOMException("The service is stopping.", "AbortError"));
    }
    await Promise.race([Promise.allSettled(late.map(([call]) => call)), delay(WITHDRAW_MS)]);
    // Lets the withdrawals the aborts began reach the store; keyed questions stay pending.
    await Promise.race([channel.close("the service stopped"), delay(WITHDRAW_MS)]);
    kv.close();
    Deno.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
}

if (import.meta.main) {
  try {
    const config = readConfig(Deno.args);
    if (!config) console.log(USAGE);
    else await start(config);
  } catch (error) {
    if (error instanceof UserError) {
      console.error(error.hint ? `${error.message}\n${error.hint}` : error.message);
    } else {
      throw error;
    }
    Deno.exit(2);
  }
}
