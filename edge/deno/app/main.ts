/**
 * `deno task start`: serves Outpost's tools on Deno with everything kept in one file-backed
 * Deno KV under `.outpost/` — or, with `OUTPOST_DATABASE_URL` set, in PostgreSQL, which any
 * number of replicas share: `web_fetch` (with a URL cache in that store), `web_search` (the backend
 * `OUTPOST_SEARCH` names; without it Tavily when `TAVILY_API_KEY` is set, else DuckDuckGo), `now` and `ask_human` (on a durable channel), as a JSON
 * API, an MCP endpoint and an operator console.
 *
 * ```sh
 * deno task start [--port 8787] [--host 127.0.0.1] [--data-dir .outpost] [--tools web_fetch,now]
 *   [--max-chars 20000] [--fetch-timeout 15000] [--allow-private-network] [--respect-robots]
 *   [--header-timeout 10000] [--shutdown-grace 10000] [--ask-timeout 7200000]
 * ```
 *
 * The service settings are read from the environment under the names every runtime uses
 * (`SERVICE_SETTING_NAMES`); a flag of the same name overrides its variable. Tokens come from
 * `OUTPOST_TOOL_TOKEN` / `OUTPOST_OPERATOR_TOKEN` (or the flags, which other users can read in
 * the process list); missing ones are generated and printed, and then the server only listens
 * on a loopback address.
 *
 * Ctrl-C or SIGTERM stops it: open event streams end, calls without a tool-call id get up to
 * the shutdown grace (default ten seconds) to finish and are then aborted (an `ask_human` among them withdraws its question,
 * which nothing could re-attach to), and the store is closed. Calls with a tool-call id are
 * dropped but their questions stay pending in the store: a client that retries a call with the
 * same tool-call id (the `Outpost-Tool-Call-Id` header, or `outpost/toolCallId` in an MCP call's
 * `_meta`) re-attaches to its question. After a crash, a pending question without a tool-call id
 * is withdrawn once its lease runs out.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { SetupError, VERSION } from "../../../mod.ts";
import { MemoryCallLimiter } from "../../../src/http/mod.ts";
import { parseTimeout } from "../../service/setting_values.ts";
import {
  parseToolNames,
  readServiceSettings,
  SERVICE_SETTING_NAMES as ENV,
  SERVICE_TOOL_NAMES,
  type ServiceSettings,
} from "../../service/service_settings.ts";
import { createServiceApp } from "../../service/service_app.ts";
import { withTenantsFile } from "./tenants_file.ts";
import { DATABASE_URL_VARIABLE, openStores } from "./stores.ts";
import { listenProblem } from "./listen_problem.ts";
import type { QuestionChannel } from "../../../mod.ts";
import { DomainPolicy } from "../../../src/hosted/domain_policy.ts";
import {
  chosenSearch,
  SEARCH_BACKEND_NAMES,
  type SearchBackendName,
} from "../../service/search_choice.ts";
import { pdfDecoder } from "../../../pdf/mod.ts";
import { PRIVATE_NETWORK_WARNING, SETTING_FLAGS, withSettingFlags } from "./setting_flags.ts";
import { browserFromSetting } from "../chromium.ts";
import { ConnectProxy } from "../connect_proxy.ts";
import { guardedServe } from "./connection_guard.ts";
import { resolveHost } from "../resolve_host.ts";
import { denoTracer } from "./deno_tracer.ts";
import { lineWriter } from "./line_writer.ts";

/** The environment names of the settings only this entry has. */
const DENO_ENV = {
  headerTimeoutMs: "OUTPOST_HEADER_TIMEOUT_MS",
  shutdownGraceMs: "OUTPOST_SHUTDOWN_GRACE_MS",
} as const;

const USAGE = `Usage: deno task start [options]

  --port <n>                 port to listen on (default 8787; 0 picks a free one)
  --host <address>           address to bind (default 127.0.0.1)
  --data-dir <dir>           where the Deno KV store lives (default .outpost), unless
                             ${DATABASE_URL_VARIABLE} names a PostgreSQL database
                             (postgres://user:password@host:5432/db), which replicas share
  --tools <list>             the tools to serve, comma-separated (default: all of
                             ${SERVICE_TOOL_NAMES.join(", ")})
                             env ${ENV.tools}
  --max-chars <n>            the most characters web_fetch returns in one part
                             env ${ENV.maxChars}
  --fetch-timeout <ms>       how long web_fetch waits for a page, in milliseconds
                             env ${ENV.fetchTimeoutMs}
  --allow-private-network    let web_fetch reach loopback and private addresses, such as a
                             page on this machine: for local development only (prints a
                             warning); --no-allow-private-network turns it off
                             env ${ENV.allowPrivateNetwork}=true
  --respect-robots           make web_fetch honour each site's robots.txt (off by default)
                             env ${ENV.respectRobots}=true
  --ask-timeout <ms>         how long ask_human waits for an answer before it withdraws the
                             question, in milliseconds (default 7200000: 2 hours)
                             env ${ENV.askTimeoutMs}
  --tool-token <t>           bearer token for /tools and /mcp
                             env ${ENV.toolToken}
  --operator-token <t>       bearer token for the console and /questions
                             env ${ENV.operatorToken}
  --header-timeout <ms>      how long a new connection may take to send its first request's
                             headers (default 10000)
                             env ${DENO_ENV.headerTimeoutMs}
  --shutdown-grace <ms>      how long a stop waits for calls without a tool-call id before
                             it aborts them (default 10000)
                             env ${DENO_ENV.shutdownGraceMs}
  -h, --help                 show this help

OUTPOST_BROWSER renders pages built by JavaScript: the path of a Chromium to launch (e.g.
/usr/bin/chromium; run with --allow-run), or the ws:// DevTools URL of a browser elsewhere.

A flag wins over its environment variable; the variables are the same on every runtime.
Prefer the variables for tokens: command lines are visible to other users. Missing tokens are
generated for the run. ${ENV.search} chooses web_search's backend (${
  SEARCH_BACKEND_NAMES.join(", ")
}) with its key or URL (${ENV.braveApiKey}, ${ENV.searxngUrl}, ${ENV.exaApiKey}, ${ENV.serperApiKey}, ${ENV.tavilyApiKey}); without it,
${ENV.tavilyApiKey} selects Tavily, and DuckDuckGo serves otherwise. Each tool call is logged as
a JSON line on stdout (${ENV.accessLog}=false turns it off), and traced with OTEL_DENO=true.`;

/** How the start-up banner names each search backend. */
const SEARCH_LABELS: Record<SearchBackendName, string> = {
  brave: "Brave Search API",
  searxng: "SearXNG",
  exa: "Exa",
  serper: "Serper (Google)",
  tavily: "Tavily",
  duckduckgo: `DuckDuckGo (set ${ENV.search} for another backend)`,
};

interface Config {
  port: number;
  host: string;
  dataDir: string;
  settings: ServiceSettings;
  /** How long a client may take to send a request's headers. */
  headerTimeoutMs: number;
  /** How long a shutdown waits for calls without a tool-call id to finish. */
  shutdownGraceMs: number;
  /** The environment, which may name a PostgreSQL database to use instead of Deno KV. */
  env: Record<string, string>;
}

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
        tools: { type: "string" },
        "header-timeout": { type: "string" },
        "shutdown-grace": { type: "string" },
        "ask-timeout": { type: "string" },
        ...SETTING_FLAGS,
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
      allowNegative: true,
    });
  } catch (error) {
    // Unknown or malformed flags: parseArgs's message names the flag.
    throw new SetupError(error instanceof Error ? error.message : String(error), { hint: USAGE });
  }
}

function readConfig(args: string[]): Config | undefined {
  const { values } = parseFlags(args);
  if (values.help) return undefined;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    throw new SetupError(`--port must be a port number, not ${JSON.stringify(values.port)}.`, {
      hint: USAGE,
    });
  }
  const env = Deno.env.toObject();
  const settings = withTenantsFile(withSettingFlags(readServiceSettings(env), values), env);
  /** A flag's milliseconds, else its variable's (empty counts as unset), else `fallback`. */
  const milliseconds = (flag: string, variable: string, fallback: number): number => {
    const given = values[flag as keyof typeof values];
    const source = typeof given === "string" ? `--${flag}` : variable;
    const value = typeof given === "string" ? given : env[variable]?.trim() || undefined;
    return value === undefined ? fallback : parseTimeout(value, source);
  };
  return {
    port,
    host: values.host,
    dataDir: values["data-dir"],
    headerTimeoutMs: milliseconds("header-timeout", DENO_ENV.headerTimeoutMs, 10_000),
    shutdownGraceMs: milliseconds("shutdown-grace", DENO_ENV.shutdownGraceMs, 10_000),
    env,
    settings: {
      ...settings,
      toolToken: values["tool-token"] ?? settings.toolToken,
      operatorToken: values["operator-token"] ?? settings.operatorToken,
      tools: values.tools === undefined ? settings.tools : parseToolNames(values.tools, "--tools"),
      askTimeoutMs: values["ask-timeout"] === undefined
        ? settings.askTimeoutMs
        : parseTimeout(values["ask-timeout"], "--ask-timeout"),
    },
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
  const { settings } = config;
  const { tenants } = settings;
  if (
    !tenants && !isLoopback(config.host) && (!settings.toolToken || !settings.operatorToken)
  ) {
    throw new SetupError(
      `Refusing to listen on ${config.host} without configured tokens: anyone who can reach it ` +
        "could call the tools and answer questions.",
      {
        hint: "Set OUTPOST_TOOL_TOKEN and OUTPOST_OPERATOR_TOKEN (or --tool-token and " +
          "--operator-token), or listen on 127.0.0.1.",
      },
    );
  }
  const generated: string[] = [];
  const tokens = tenants ? {} : {
    toolToken: settings.toolToken ?? generateToken(),
    operatorToken: settings.operatorToken ?? generateToken(),
  };
  if (!tenants && !settings.toolToken) generated.push(`  Tool token:      ${tokens.toolToken}`);
  if (!tenants && !settings.operatorToken) {
    generated.push(`  Operator token:  ${tokens.operatorToken}`);
  }

  const stores = await openStores({ env: config.env, dataDir: config.dataDir });
  // Each tenant's questions apart (a key prefix, a space); the default tenant keeps today's.
  const channels = new Map<string, QuestionChannel>();
  const channelFor = (tenant: string) => {
    let channel = channels.get(tenant);
    if (!channel) channels.set(tenant, channel = stores.channelFor(tenant));
    return channel;
  };
  const search = SEARCH_LABELS[chosenSearch(settings)];
  // With the guard on, connections go only to addresses the guard checked (DNS rebinding).
  const proxy = settings.allowPrivateNetwork ? undefined : new ConnectProxy({ resolveHost });
  const browser = await browserFromSetting(Deno.env.get("OUTPOST_BROWSER"), {
    allowPrivateNetwork: settings.allowPrivateNetwork,
    resolveHost,
  });
  const accessLog = lineWriter((bytes) => Deno.stdout.write(bytes), {
    onDropped: (count) =>
      console.error(`${count} access-log lines dropped: stdout is not read fast enough.`),
  });
  let app;
  try {
    app = createServiceApp({ ...settings, ...tokens }, {
      ...(browser.reader ? { reader: browser.reader } : {}),
      cache: stores.cache,
      channelFor,
      domainPolicy: (mode, rules) => DomainPolicy[mode](rules),
      resolveHost,
      decoders: [pdfDecoder()],
      fetch: proxy?.fetch,
      tracer: denoTracer(),
      log: accessLog.write,
      // In memory: each process counts on its own, so N replicas admit N times the limits.
      limiterFor: (_tenant, limits) => new MemoryCallLimiter(() => limits),
    }, "in the environment, or with --tool-token and --operator-token");
  } catch (error) {
    await browser.close();
    throw error;
  }
  const tools = settings.tools ?? SERVICE_TOOL_NAMES;
  // Deno.serve alone bounds neither header nor idle time, nor connections that never send a
  // request; the guard in front does, without cutting a request in flight.
  // A browser left running would outlive a server that cannot listen.
  const serve = (...args: Parameters<typeof guardedServe>) => {
    try {
      return guardedServe(...args);
    } catch (error) {
      void browser.close();
      throw error;
    }
  };
  const server = serve({
    hostname: config.host,
    port: config.port,
    headerTimeoutMs: config.headerTimeoutMs,
    onListen({ hostname, port }) {
      const base = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
      console.log(
        [
          `Outpost ${VERSION} listening on ${base}/`,
          `  Console:         ${base}/`,
          `  MCP:             ${base}/mcp`,
          `  Tools API:       ${base}/tools`,
          ...(tenants
            ? [`  Tenants:         ${tenants.map((t) => t.id).join(", ")}`]
            : [`  Tools:           ${tools.join(", ")}`]),
          ...(tenants || tools.includes("web_search") ? [`  Search:          ${search}`] : []),
          ...(browser.reader
            ? ["  Browser:         pages built by JavaScript are rendered (OUTPOST_BROWSER)"]
            : []),
          `  Store:           ${stores.label}`,
          ...generated,
          ...(generated.length ? ["  (generated for this run; set them to keep them stable)"] : []),
          "Press Ctrl-C to stop.",
        ].join("\n"),
      );
      if (settings.allowPrivateNetwork) {
        console.warn(PRIVATE_NETWORK_WARNING);
      }
    },
  }, app.fetch);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    app.close();
    // Stops accepting connections. Calls without a tool-call id get a grace period, then are
    // aborted, so that an ask_human among them withdraws its question, which no retry could
    // re-attach to. Keyed calls are durable: their questions stay pending in the store and the
    // retried call re-attaches after a restart, so they are neither waited for nor aborted.
    server.shutdown().catch(() => {});
    const grace = config.shutdownGraceMs;
    await Promise.race([app.drain(grace), delay(grace + WITHDRAW_MS)]);
    // Keyed calls still waiting are dropped, not answered: closing the channel must not send
    // their clients an error, which they might not retry.
    server.close();
    // Lets the withdrawals the aborts began reach the store; keyed questions stay pending.
    await Promise.race([
      Promise.all([...channels.values()].map((channel) => channel.close("the service stopped"))),
      delay(WITHDRAW_MS),
    ]);
    await browser.close();
    await proxy?.close();
    await Promise.race([accessLog.flush(), delay(WITHDRAW_MS)]);
    await stores.close();
    Deno.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
}

if (import.meta.main) {
  let config: Config | undefined;
  try {
    config = readConfig(Deno.args);
    if (!config) console.log(USAGE);
    else await start(config);
  } catch (error) {
    const problem = error instanceof SetupError ? error : config && listenProblem(error, config);
    if (problem) {
      console.error(problem.hint ? `${problem.message}\n${problem.hint}` : problem.message);
    } else {
      throw error;
    }
    Deno.exit(2);
  }
}
