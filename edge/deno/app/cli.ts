/**
 * `deno task fetch <url>` and `deno task search <query>`: run `web_fetch` or `web_search` once
 * and print exactly what the model would see, built as `deno task start` builds them — the same
 * address guard, PDF reading, environment names (`OUTPOST_ALLOW_PRIVATE_NETWORK`,
 * `OUTPOST_MAX_CHARS`, `OUTPOST_FETCH_TIMEOUT_MS`, `OUTPOST_SEARCH` and the search keys) and
 * flags. From the
 * published package:
 *
 * ```sh
 * deno run --allow-net --allow-env jsr:@outpost/agent-tools/cli fetch https://example.com/
 * deno run --allow-net --allow-env jsr:@outpost/agent-tools/cli search "deno kv"
 * ```
 *
 * A tool error (unreachable host, refused address, bad input) is printed as the model would
 * read it, on stderr, and exits with status 1; a bad command line exits with 2.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { formatToolError, SetupError, ToolError } from "../../../mod.ts";
import { PRIVATE_NETWORK_WARNING, SETTING_FLAGS, withSettingFlags } from "./setting_flags.ts";
import {
  readServiceSettings,
  type ServiceSettings,
  type ServiceToolName,
} from "../../service/service_settings.ts";
import { serviceTools } from "../../service/service_app.ts";
import { pdfDecoder } from "../../../pdf/mod.ts";
import { ConnectProxy } from "../connect_proxy.ts";
import { resolveHost } from "../resolve_host.ts";

const USAGE = `Usage: deno task fetch <url> [options]
       deno task search <query> [options]

Prints what web_fetch or web_search gives the model, built as deno task start builds it.

fetch options:
  --offset <n>              where to continue reading, from a truncation notice
  --images                  list the page's images after the first part
  --max-chars <n>           the most characters in one part (OUTPOST_MAX_CHARS)
  --fetch-timeout <ms>      how long to wait for the page (OUTPOST_FETCH_TIMEOUT_MS)
  --allow-private-network   let it reach loopback and private addresses
                            (OUTPOST_ALLOW_PRIVATE_NETWORK=true): for local development
                            only; --no-allow-private-network turns it off
  --respect-robots          refuse what the site's robots.txt disallows for us
                            (OUTPOST_RESPECT_ROBOTS=true)
search options:
  --max-results <n>         how many results (default 5)
  --time-range <d|w|m|y>    only results from the past day, week, month or year
  The backend is OUTPOST_SEARCH's (brave, searxng, exa, serper, tavily, duckduckgo) with
  its key or URL (BRAVE_API_KEY, SEARXNG_URL, EXA_API_KEY, SERPER_API_KEY, TAVILY_API_KEY);
  without it, Tavily when TAVILY_API_KEY is set, else DuckDuckGo.
  -h, --help                show this help`;

/**
 * Where {@linkcode runCli} reads its environment and writes its output; the defaults are the
 * process's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CliIo, runCli } from "@outpost/agent-tools/cli";
 * const lines: string[] = [];
 * const io: CliIo = { env: {}, stdout: (text) => lines.push(text), stderr: console.error };
 * assert.equal(await runCli(["--help"], io), 0);
 * assert.match(lines[0], /^Usage: deno task fetch <url>/);
 * ```
 */
export interface CliIo {
  /** The environment settings are read from (default `Deno.env.toObject()`). */
  env?: Readonly<Record<string, string>>;
  /** Receives what the model would see (default: standard output). */
  stdout?: (text: string) => void;
  /** Receives errors and warnings (default: standard error). */
  stderr?: (text: string) => void;
  /** The `fetch` the tools use (default: the global one). */
  fetch?: typeof fetch;
  /** Aborts the call, as Ctrl-C does. */
  signal?: AbortSignal;
}

/**
 * Runs one command line, `fetch <url> …` or `search <query> …`, and resolves to its exit
 * status: 0 with the tool's answer on `stdout`, 1 with the tool's error as the model would read
 * it on `stderr`, 2 for a bad command line, 130 when `signal` aborted it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCli } from "@outpost/agent-tools/cli";
 * // `deno task fetch https://example.com/` is `runCli(["fetch", "https://example.com/"])`.
 * const status = await runCli(["--help"]);
 * assert.equal(status, 0);
 * ```
 */
export async function runCli(args: readonly string[], io: CliIo = {}): Promise<number> {
  const stdout = io.stdout ?? ((text: string) => console.log(text));
  const stderr = io.stderr ?? ((text: string) => console.error(text));
  let call: { tool: ServiceToolName; input: Record<string, unknown>; settings: ServiceSettings };
  try {
    const parsed = parseCommand(args, io.env ?? Deno.env.toObject());
    if (!parsed) {
      stdout(USAGE);
      return 0;
    }
    call = parsed;
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    stderr(error.hint ? `${error.message}\n${error.hint}` : error.message);
    return 2;
  }
  const { tool, input, settings } = call;
  if (settings.allowPrivateNetwork && tool === "web_fetch") {
    stderr(PRIVATE_NETWORK_WARNING);
  }
  // As in the service: with the guard on, connections go only to addresses the guard checked.
  const proxy = io.fetch || settings.allowPrivateNetwork
    ? undefined
    : new ConnectProxy({ resolveHost });
  let built;
  try {
    [built] = serviceTools({ ...settings, tools: [tool] }, {
      resolveHost,
      fetch: io.fetch ?? proxy?.fetch,
      decoders: [pdfDecoder()],
    });
  } catch (error) {
    await proxy?.close();
    // A backend without the key or URL it needs: a setting to fix, like a bad flag.
    if (!(error instanceof SetupError)) throw error;
    stderr(error.hint ? `${error.message}\n${error.hint}` : error.message);
    return 2;
  }
  try {
    stdout(await built.execute(input, { signal: io.signal }));
    return 0;
  } catch (error) {
    if (io.signal?.aborted) {
      stderr("Interrupted.");
      return 130;
    }
    if (!(error instanceof ToolError)) throw error;
    stderr(formatToolError(error));
    return 1;
  } finally {
    await proxy?.close();
  }
}

function parseCommand(args: readonly string[], env: Readonly<Record<string, string>>) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        offset: { type: "string" },
        images: { type: "boolean" },
        ...SETTING_FLAGS,
        "max-results": { type: "string" },
        "time-range": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    });
  } catch (error) {
    // Unknown or malformed flags: parseArgs's message names the flag.
    throw new SetupError(error instanceof Error ? error.message : String(error), { hint: USAGE });
  }
  const { values, positionals } = parsed;
  if (values.help) return undefined;
  const [command, ...rest] = positionals;
  if (command !== "fetch" && command !== "search") {
    throw new SetupError(
      command === undefined ? "Name a command." : `Unknown command ${JSON.stringify(command)}.`,
      { hint: USAGE },
    );
  }
  const settings = withSettingFlags(readServiceSettings(env), values);
  if (command === "fetch") {
    const given = Object.keys(values).find((flag) =>
      flag === "max-results" || flag === "time-range"
    );
    if (given) throw new SetupError(`--${given} is a search option.`, { hint: USAGE });
    if (rest.length !== 1) {
      throw new SetupError("fetch takes one URL.", { hint: USAGE });
    }
    const input: Record<string, unknown> = { url: rest[0] };
    if (values.offset !== undefined) input.offset = count(values.offset);
    if (values.images) input.images = true;
    return { tool: "web_fetch" as const, input, settings };
  }
  const fetchOnly = ["offset", "images", ...Object.keys(SETTING_FLAGS)];
  const given = Object.keys(values).find((flag) => fetchOnly.includes(flag));
  if (given) throw new SetupError(`--${given} is a fetch option.`, { hint: USAGE });
  if (rest.length === 0) throw new SetupError("search takes a query.", { hint: USAGE });
  const input: Record<string, unknown> = { query: rest.join(" ") };
  if (values["max-results"] !== undefined) input.max_results = count(values["max-results"]);
  if (values["time-range"] !== undefined) input.time_range = values["time-range"];
  return { tool: "web_search" as const, input, settings };
}

/** A whole number as a number, anything else as given, for the tool's own validation to refuse. */
function count(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}

if (import.meta.main) {
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  Deno.addSignalListener("SIGINT", onInterrupt);
  const status = await runCli(Deno.args, { signal: interrupt.signal });
  Deno.removeSignalListener("SIGINT", onInterrupt);
  Deno.exit(status);
}
