import { checkOption, flag } from "../../src/option_checks.ts";

import { SetupError } from "../../src/errors.ts";

import { parseSearchBackend, SEARCH_SETTING_NAMES, type SearchSettings } from "./search_choice.ts";

import type { CallLimits } from "../../src/http/call_limiter.ts";

import { parseTenants, type Tenant } from "./tenants.ts";

import { parseCount, parseRate, parseTimeout } from "./setting_values.ts";

/**
 * The tools a deployment can serve, by model-facing name.
 */
export const SERVICE_TOOL_NAMES = ["web_fetch", "web_search", "now", "ask_human"] as const;

/**
 * One of {@linkcode SERVICE_TOOL_NAMES}.
 */
export type ServiceToolName = typeof SERVICE_TOOL_NAMES[number];

/**
 * How an Outpost deployment is configured. Every runtime's entry (`deno task start`, the
 * Worker, the Edge Function) reads these from its environment under the same names, given in
 * {@linkcode SERVICE_SETTING_NAMES}; `deno task start` also takes them as flags.
 */
export interface ServiceSettings extends SearchSettings {
  /** The bearer token for `/tools` and `/mcp`. */
  toolToken?: string;
  /** The bearer token for the console and `/questions`. */
  operatorToken?: string;
  /** Lets `web_fetch` reach loopback and private addresses: for local development only. */
  allowPrivateNetwork: boolean;
  /** The tools to serve; every tool the deployment can serve when absent. */
  tools?: readonly ServiceToolName[];
  /** The most characters `web_fetch` returns in one part. */
  maxChars?: number;
  /** How long `web_fetch` waits for a page, in milliseconds. */
  fetchTimeoutMs?: number;
  /** Makes `web_fetch` honour robots.txt (`HttpReader`'s `respectRobots`); off when absent. */
  respectRobots?: boolean;
  /**
   * How long `ask_human` waits for an answer, in milliseconds, before it withdraws the question
   * and tells the model (default {@linkcode DEFAULT_ASK_TIMEOUT_MS}, 2 hours; at most 2^31 - 1).
   */
  askTimeoutMs?: number;
  /**
   * Writes the access log: one JSON line per tool call to the runtime's log (on unless set to
   * `false`).
   */
  accessLog?: boolean;
  /** At most so many tool calls per period per tool token (`OUTPOST_RATE_LIMIT`, e.g. `60/min`). */
  rateLimit?: CallLimits["rate"];
  /** At most so many tool calls running at once per tool token. */
  concurrencyLimit?: number;
  /**
   * The tenants served, each with its own tokens, question channel and cache keys (from
   * `OUTPOST_TENANTS`); without them the deployment serves one, `default`, with `toolToken` and
   * `operatorToken`.
   */
  tenants?: readonly Tenant[];
}

/**
 * How long the service's `ask_human` waits for an answer unless `askTimeoutMs` says otherwise:
 * 2 hours. A call nobody answers, or whose caller went away, ends then and withdraws its
 * question, so questions cannot pile up for ever.
 */
export const DEFAULT_ASK_TIMEOUT_MS = 2 * 60 * 60_000;

/**
 * The environment names of {@linkcode ServiceSettings}, the same on every runtime.
 */
export const SERVICE_SETTING_NAMES = {
  toolToken: "OUTPOST_TOOL_TOKEN",
  operatorToken: "OUTPOST_OPERATOR_TOKEN",
  ...SEARCH_SETTING_NAMES,
  allowPrivateNetwork: "OUTPOST_ALLOW_PRIVATE_NETWORK",
  tools: "OUTPOST_TOOLS",
  maxChars: "OUTPOST_MAX_CHARS",
  fetchTimeoutMs: "OUTPOST_FETCH_TIMEOUT_MS",
  respectRobots: "OUTPOST_RESPECT_ROBOTS",
  askTimeoutMs: "OUTPOST_ASK_TIMEOUT_MS",
  accessLog: "OUTPOST_ACCESS_LOG",
  rateLimit: "OUTPOST_RATE_LIMIT",
  concurrencyLimit: "OUTPOST_CONCURRENCY_LIMIT",
  tenants: "OUTPOST_TENANTS",
} as const satisfies Record<keyof ServiceSettings, string>;

/**
 * Reads {@linkcode ServiceSettings} from an environment: a Worker's `env`, or the process
 * environment as an object. Empty values count as unset; values that are not strings (a Worker's bindings)
 * are ignored. Throws `SetupError`, naming the variable and what it takes, for a malformed value.
 */
export function readServiceSettings(env: Readonly<Record<string, unknown>>): ServiceSettings {
  const read = (key: keyof ServiceSettings): string | undefined => {
    const value = env[SERVICE_SETTING_NAMES[key]];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  // Parsed where set, under its variable's name; undefined where not.
  const parsed = <T>(key: keyof ServiceSettings, parse: (value: string, source: string) => T) => {
    const value = read(key);
    return value === undefined ? undefined : parse(value, SERVICE_SETTING_NAMES[key]);
  };
  const accessLog = read("accessLog");
  return {
    toolToken: read("toolToken"),
    operatorToken: read("operatorToken"),
    search: parsed("search", parseSearchBackend),
    tavilyApiKey: read("tavilyApiKey"),
    braveApiKey: read("braveApiKey"),
    exaApiKey: read("exaApiKey"),
    serperApiKey: read("serperApiKey"),
    searxngUrl: read("searxngUrl"),
    allowPrivateNetwork: parseSwitch(read("allowPrivateNetwork"), "allowPrivateNetwork"),
    respectRobots: parseSwitch(read("respectRobots"), "respectRobots"),
    tools: parsed("tools", parseToolNames),
    maxChars: parsed("maxChars", parseCount),
    fetchTimeoutMs: parsed("fetchTimeoutMs", parseCount),
    askTimeoutMs: parsed("askTimeoutMs", parseTimeout),
    accessLog: accessLog === undefined ? true : parseSwitch(accessLog, "accessLog"),
    rateLimit: parsed("rateLimit", parseRate),
    concurrencyLimit: parsed("concurrencyLimit", parseCount),
    tenants: parsed("tenants", parseTenants),
  };
}

/**
 * Parses a comma-separated list of tool names, as `OUTPOST_TOOLS` and `--tools` take it.
 * Throws `SetupError` naming `source` for an unknown or repeated name, or an empty list.
 */
export function parseToolNames(list: string, source: string): ServiceToolName[] {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const known: readonly string[] = SERVICE_TOOL_NAMES;
  const hint = `Name some of: ${SERVICE_TOOL_NAMES.join(", ")}, separated by commas.`;
  if (names.length === 0) throw new SetupError(`${source} names no tool.`, { hint });
  for (const [index, name] of names.entries()) {
    if (!known.includes(name)) {
      throw new SetupError(
        `${source} names an unknown tool, ${JSON.stringify(name.slice(0, 40))}.`,
        {
          hint,
        },
      );
    }
    if (names.indexOf(name) !== index) {
      throw new SetupError(`${source} names ${name} twice.`, { hint });
    }
  }
  return names as ServiceToolName[];
}

function parseSwitch(value: string | undefined, key: keyof ServiceSettings): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  const parsed = lower === "true" || lower === "1"
    ? true
    : lower === "false" || lower === "0"
    ? false
    : value;
  return checkOption(SERVICE_SETTING_NAMES[key], parsed, flag);
}
