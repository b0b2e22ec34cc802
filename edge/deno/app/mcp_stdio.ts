/**
 * `deno task mcp`: serves Outpost's tools to one MCP client over stdin and stdout, the way
 * desktop and IDE clients (Claude Desktop, Claude Code, Cursor, VS Code) start MCP servers:
 * `web_fetch` (PDFs included), `web_search` (the backend `OUTPOST_SEARCH` names, else Tavily
 * when `TAVILY_API_KEY` is set, else DuckDuckGo), `now` and
 * `ask_human`. A client that declares the `elicitation` capability is asked `ask_human`
 * questions itself; otherwise they go to the store `deno task start` would choose, where its
 * console shows them: PostgreSQL when `OUTPOST_DATABASE_URL` names a database (the one the
 * service's replicas share), else the Deno KV store in `--data-dir`.
 *
 * ```sh
 * deno task mcp [--data-dir .outpost]
 * OUTPOST_DATABASE_URL=postgres://outpost:…@db.internal:5432/outpost deno task mcp
 * deno run --allow-net --allow-env --allow-read --allow-write jsr:@outpost/agent-tools/mcp
 * ```
 *
 * It reads the same environment as `deno task start` (`readServiceSettings`):
 * `OUTPOST_ALLOW_PRIVATE_NETWORK=true` lets `web_fetch` read loopback and private addresses (an
 * intranet, a local dev server; off by default), `OUTPOST_TOOLS` picks the tools. Where the
 * deployment has tenants (`OUTPOST_TENANTS` or `OUTPOST_TENANTS_FILE`), it acts for the one
 * `OUTPOST_TENANT` names: that tenant's tools, domain rules, questions (seen by its operators),
 * cached pages and limits. `OUTPOST_RATE_LIMIT` and `OUTPOST_CONCURRENCY_LIMIT` (or the tenant's
 * `limits`) bound the client's calls, counted in memory as one tool token's. Stdout carries the
 * protocol; logs go to stderr.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { SetupError, type Tool } from "../../../mod.ts";
import { MemoryQuestionChannel } from "../../../src/human/mod.ts";
import { McpToolServer } from "../../../src/http/mcp_server.ts";
import { readServiceSettings } from "../../service/service_settings.ts";
import { type ServiceParts, tenantPolicy, tenantService } from "../../service/service_app.ts";
import type { CallTelemetry } from "../../../src/call_telemetry.ts";
import { type CallLimits, limitCall } from "../../../src/http/call_limiter.ts";
import { MemoryCallLimiter } from "../../../src/http/memory_call_limiter.ts";
import { denoTracer } from "./deno_tracer.ts";
import { toolsByName } from "../../../src/run_tool_calls.ts";
import { pdfDecoder } from "../../../pdf/mod.ts";
import { browserFromSetting } from "../chromium.ts";
import { ConnectProxy } from "../connect_proxy.ts";
import { resolveHost } from "../resolve_host.ts";
import { DEFAULT_TENANT, type Tenant } from "../../service/tenants.ts";
import { DATABASE_URL_VARIABLE, openStores } from "./stores.ts";
import { TENANTS_FILE_VARIABLE, withTenantsFile } from "./tenants_file.ts";
import { DomainPolicy } from "../../../src/hosted/domain_policy.ts";
import type { ServiceSettings } from "../../service/service_settings.ts";

/** Which of a deployment's tenants this server acts for, where there are several. */
const TENANT_VARIABLE = "OUTPOST_TENANT";

/**
 * Options of {@linkcode serveMcpStdio}.
 *
 * @example
 * ```ts
 * // Not asserted: the server takes over this process's stdin and stdout (tests/mcp_stdio_test.ts
 * // drives it as a child process).
 * import { now } from "@outpost/agent-tools/time";
 * import type { McpStdioOptions } from "@outpost/agent-tools/mcp";
 * const options: McpStdioOptions = { tools: [now], progressIntervalMs: 10_000 };
 * ```
 */
export interface McpStdioOptions {
  /** The tools to serve; names must be unique. */
  tools: readonly Tool[];
  /** How often a call that sent a `progressToken` gets a progress notification (default 15 s). */
  progressIntervalMs?: number;
  /**
   * Receives failures that became a generic tool error, and messages that reach no request (a
   * response that could not be sent, a client's response to nothing) (default: logged to stderr).
   */
  onError?: (error: unknown) => void;
  /** An access log and a tracer for the tool calls; none by default. */
  telemetry?: CallTelemetry;
  /**
   * A rate and a number running at once for the client's tool calls, counted in memory as one
   * caller's (over HTTP, each tool token is one); a call over them is a tool error of code
   * `rate_limited`. None by default.
   */
  limits?: CallLimits;
}

/**
 * Serves `tools` to the MCP client on this process's stdin and stdout, and resolves when the
 * client hangs up (stdin ends). A call's context ids come from its `params._meta`
 * (`outpost/toolCallId`, `outpost/sessionId`, `outpost/runId`); a call with a tool-call id is
 * not withdrawn when the client goes away, only when it cancels the call, so its `ask_human`
 * question stays in a durable channel for the re-run to re-attach to.
 *
 * @example
 * ```ts
 * // Not asserted: it serves this process's stdin and stdout until the client hangs up
 * // (tests/mcp_stdio_test.ts drives it as a child process).
 * import { now } from "@outpost/agent-tools/time";
 * import { serveMcpStdio } from "@outpost/agent-tools/mcp";
 * await serveMcpStdio({ tools: [now] });
 * ```
 */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const { progressIntervalMs = 15_000, onError = (error) => console.error(error) } = options;
  if (!Array.isArray(options.tools)) throw new SetupError("serveMcpStdio needs `tools`.");
  const { limits } = options;
  const limiter = limits && new MemoryCallLimiter(() => limits);
  const server = new McpToolServer(toolsByName(options.tools), {
    progressIntervalMs,
    onError,
    durableOnClose: true,
    telemetry: options.telemetry,
    ...(limiter ? { admit: (run) => limitCall(limiter, "stdio", run) } : {}),
  });
  const closed = Promise.withResolvers<void>();
  server.onclose = () => closed.resolve();
  const transport = new StdioServerTransport();
  // The SDK's transport does not notice stdin ending; a client that exits ends the session.
  process.stdin.once("end", () => void transport.close());
  await server.connect(transport);
  await closed.promise;
}

const USAGE = `Usage: deno task mcp [--data-dir <dir>]

  --data-dir <dir>   keep the URL cache and unanswered ask_human questions in the Deno KV
                     store there (the one \`deno task start --data-dir <dir>\` serves a console
                     for), unless ${DATABASE_URL_VARIABLE} names a PostgreSQL database
                     (postgres://user:password@host:5432/db), which is then used as by
                     \`deno task start\`; with neither, ask_human works only with clients that
                     support MCP elicitation
  -h, --help         show this help

Environment (as for \`deno task start\`): OUTPOST_SEARCH (brave, searxng, exa, serper, tavily or
duckduckgo) with BRAVE_API_KEY, SEARXNG_URL, EXA_API_KEY, SERPER_API_KEY or TAVILY_API_KEY,
OUTPOST_ALLOW_PRIVATE_NETWORK=true (let web_fetch read loopback and private addresses),
OUTPOST_TOOLS (which tools), OUTPOST_MAX_CHARS, OUTPOST_FETCH_TIMEOUT_MS,
OUTPOST_RATE_LIMIT and OUTPOST_CONCURRENCY_LIMIT (the client's calls, counted in memory),
OUTPOST_TENANTS or OUTPOST_TENANTS_FILE with OUTPOST_TENANT (the tenant this server acts for),
OUTPOST_BROWSER (a Chromium to run pages built by JavaScript: its path, e.g. /usr/bin/chromium,
with --allow-run; or a browser's ws:// DevTools URL). Each tool call is logged as a JSON line on
stderr (OUTPOST_ACCESS_LOG=false turns it off), and traced with OTEL_DENO=true.`;

async function main(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { "data-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new SetupError(error instanceof Error ? error.message : String(error), { hint: USAGE });
  }
  if (values.help) {
    console.error(USAGE);
    return;
  }
  const env = Deno.env.toObject();
  const settings = withTenantsFile(readServiceSettings(env), env);
  const tenant = servedTenant(settings, env[TENANT_VARIABLE]?.trim());
  // As `deno task start` chooses: the database the environment names, else the data dir's KV.
  const stores = await openStores({ env, dataDir: values["data-dir"] });
  console.error(
    `Outpost MCP over stdio, tenant ${tenant.id}: questions and pages kept ${
      stores
        ? `in ${stores.label}`
        : "nowhere (ask_human reaches only clients that support elicitation)"
    }.`,
  );
  let nobody: MemoryQuestionChannel | undefined;
  if (!stores) {
    nobody = new MemoryQuestionChannel();
    nobody.close(
      `no operator channel: start the MCP server with --data-dir or ${DATABASE_URL_VARIABLE}`,
    );
  }
  // With the guard on, connections go only to addresses the guard checked (DNS rebinding).
  const proxy = settings.allowPrivateNetwork ? undefined : new ConnectProxy({ resolveHost });
  const browser = await browserFromSetting(Deno.env.get("OUTPOST_BROWSER"), {
    allowPrivateNetwork: settings.allowPrivateNetwork,
    resolveHost,
  });
  const parts: ServiceParts = {
    ...(browser.reader ? { reader: browser.reader } : {}),
    ...(stores ? { cache: stores.cache } : {}),
    // A channel even without a store: elicitation can still reach the client's user.
    channelFor: (id) => stores?.channelFor(id) ?? nobody!,
    domainPolicy: (mode, rules) => DomainPolicy[mode](rules),
    resolveHost,
    // As `deno task start` does: PDFs are read, not shown as binary.
    decoders: [pdfDecoder()],
    ...(proxy ? { fetch: proxy.fetch } : {}),
    tracer: denoTracer(),
    // Stdout carries the protocol: the access log goes to stderr.
    log: (line) => console.error(line),
  };
  const named = `${TENANT_VARIABLE}: tenant ${JSON.stringify(tenant.id)}`;
  const { tools, channel, telemetry, limits } = tenantService(
    settings,
    parts,
    tenant,
    tenantPolicy(tenant, parts, named),
  );
  await serveMcpStdio({ tools, telemetry, limits });
  await channel?.close();
  await browser.close();
  await proxy?.close();
  await stores?.close();
}

/**
 * The tenant this server acts for: without `OUTPOST_TENANTS` the default one; with it, the one
 * `OUTPOST_TENANT` names (its tools, domain rules, questions and cached pages). Throws
 * `SetupError` listing the ids when none or an unknown one is named.
 */
function servedTenant(settings: ServiceSettings, id: string | undefined): Tenant {
  if (!settings.tenants) {
    if (id && id !== DEFAULT_TENANT) {
      throw new SetupError(`${TENANT_VARIABLE} names a tenant, but no tenants are configured.`, {
        hint: `List them in OUTPOST_TENANTS or ${TENANTS_FILE_VARIABLE}, or leave it unset.`,
      });
    }
    return { id: DEFAULT_TENANT, toolTokens: [] };
  }
  const tenant = settings.tenants.find((t) => t.id === id);
  if (!tenant) {
    throw new SetupError(
      id
        ? `${TENANT_VARIABLE} names no configured tenant.`
        : `${TENANT_VARIABLE} must name the tenant this server acts for.`,
      { hint: `One of: ${settings.tenants.map((t) => t.id).join(", ")}.` },
    );
  }
  return tenant;
}

if (import.meta.main) {
  try {
    await main(Deno.args);
    Deno.exit(0);
  } catch (error) {
    console.error(
      error instanceof SetupError && error.hint ? `${error.message}\n${error.hint}` : error,
    );
    Deno.exit(2);
  }
}
