/**
 * Requests per second and p99 latency of `now` over HTTP at 50 concurrent keep-alive
 * connections: the Deno service (`edge/deno/app/main.ts`, its connection guard in front) against a
 * bare `Deno.serve` that checks the same bearer token and answers the same JSON, each in a
 * process of its own on 127.0.0.1, loaded in turn from this process in the same run (this process
 * on one CPU, the server loaded on another, where `taskset` can pin them). The headline is the
 * service's rate as a share of the bare server's, for the JSON API (`POST /tools/now`) and MCP
 * (`tools/call` on `POST /mcp`). Part of `deno task bench`; alone:
 *
 * ```sh
 * deno run --lock=dev.lock -A bench/throughput.ts [seconds=1] [connections=50] [rounds=9]
 * ```
 *
 * @module
 */
import type { BenchSummary } from "./measure.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
const encoder = new TextEncoder();

const NOW_BODY = JSON.stringify({ tz: "UTC" });
const MCP_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "now", arguments: { tz: "UTC" } },
});

/** A keep-alive POST as raw bytes, the same on every connection. */
function post(path: string, body: string, headers: string[] = []): Uint8Array {
  return encoder.encode(
    [
      `POST ${path} HTTP/1.1`,
      "host: 127.0.0.1",
      `authorization: Bearer ${TOOL_TOKEN}`,
      "content-type: application/json",
      `content-length: ${encoder.encode(body).length}`,
      ...headers,
      "",
      body,
    ].join("\r\n"),
  );
}

const ROUTES = {
  "JSON API, POST /tools/now": post("/tools/now", NOW_BODY),
  "MCP, tools/call now": post("/mcp", MCP_BODY, ["accept: application/json, text/event-stream"]),
};

/**
 * The bare baseline: the token check and the answers the service gives (`now`'s JSON; an MCP
 * result, its text and structured content, as one JSON body), with nothing else.
 */
const BARE_SERVER = `
const header = "Bearer ${TOOL_TOKEN}";
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log("listening " + port) },
  async (request) => {
    if (request.headers.get("authorization") !== header) return new Response(null, { status: 401 });
    const input = await request.json();
    const text = new Date().toISOString();
    if (new URL(request.url).pathname === "/mcp") {
      const structuredContent = { time: text, timeZone: "UTC", utcOffset: "+00:00" };
      const result = { content: [{ type: "text", text }], structuredContent };
      const data = JSON.stringify({ result, jsonrpc: "2.0", id: input.id });
      return new Response(data, { headers: { "content-type": "application/json" } });
    }
    return Response.json({ text });
  });
`;

/** A server in a child process, and the port it listens on. */
interface Child {
  port: number;
  /** The CPU time (user and system) the process has used, in milliseconds (Linux). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts a server; `ready` finds the port it listens on in what it prints, or is the port it was
 * told to listen on. Given its port, what the server prints goes to /dev/null, as a deployment's
 * access log goes to a file or a collector: read by this process, the service's log (a line per
 * call) took the load generator's time while the service was loaded, and never the bare
 * server's, which prints nothing.
 */
async function spawn(
  args: string[],
  env: Record<string, string>,
  ready: RegExp | number,
): Promise<Child> {
  const [command, ...prefix] = [...serverCpu, Deno.execPath()];
  const child = new Deno.Command(command, {
    args: [...prefix, ...args],
    env,
    stdin: "null",
    stdout: typeof ready === "number" ? "null" : "piped",
    stderr: "inherit",
  }).spawn();
  let exited = false;
  const status = child.status.finally(() => exited = true);
  const stop = async () => {
    child.kill("SIGTERM");
    await status;
  };
  const cpuMs = () => processCpuMs(child.pid);
  if (typeof ready === "number") {
    for (const deadline = Date.now() + 60_000;;) {
      if (exited) throw new Error("the server exited before listening");
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`the server did not listen on port ${ready} within a minute`);
      }
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port: ready })).close();
        return { port: ready, cpuMs, stop };
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  let match: RegExpExecArray | null = null;
  while (!(match = ready.exec(output))) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`the server exited before listening: ${output}`);
    output += value;
  }
  // Keep draining what it prints, so that it never blocks on a full pipe.
  const drained = (async () => {
    while (!(await lines.read()).done);
  })().catch(() => {});
  return {
    port: Number(match[1]),
    cpuMs,
    async stop() {
      await stop();
      await drained;
    },
  };
}

/** What starts a server on a CPU of its own (`taskset -c 1`), once {@linkcode pin} has pinned. */
let serverCpu: string[] = [];

/**
 * Puts the load generator (this process) and the servers on CPUs of their own, as load tests do:
 * left to the scheduler, a server shared a CPU with the load generator in some rounds and not in
 * others, and its CPU per request doubled in those (the two took turns on every request), so
 * that the same code measured 0.4 of the bare rate in one run and 0.7 in the next. Without
 * `taskset` (util-linux) or a second CPU nothing is pinned. Returns what undoes it, and says what
 * it did.
 */
async function pin(): Promise<{ label: string; release: () => Promise<void> }> {
  const taskset = async (...args: string[]) => {
    try {
      const { success, stdout } = await new Deno.Command("taskset", { args, stderr: "null" })
        .output();
      return success ? new TextDecoder().decode(stdout) : undefined;
    } catch {
      return undefined;
    }
  };
  const mask = (await taskset("-p", String(Deno.pid)))?.trim().split(" ").at(-1);
  if (!mask || navigator.hardwareConcurrency < 2) {
    return { label: "not pinned", release: () => Promise.resolve() };
  }
  // Every thread of this process (`-a`); threads made later inherit it.
  if (await taskset("-a", "-p", "-c", "0", String(Deno.pid)) === undefined) {
    return { label: "not pinned", release: () => Promise.resolve() };
  }
  serverCpu = ["taskset", "-c", "1"];
  return {
    label: "load generator on CPU 0, each server on CPU 1",
    release: async () => {
      serverCpu = [];
      await taskset("-a", "-p", mask, String(Deno.pid));
    },
  };
}

/** A port free on 127.0.0.1 now, for a server told which to listen on. */
function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = probe.addr as Deno.NetAddr;
  probe.close();
  return port;
}

/** The CPU time a process has used, in milliseconds, from /proc (NaN elsewhere than Linux). */
function processCpuMs(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function startBare(): Promise<Child> {
  return spawn(["eval", BARE_SERVER], {}, /listening (\d+)/);
}

async function startService(dataDir: string): Promise<Child> {
  const main = new URL("../edge/deno/app/main.ts", import.meta.url).pathname;
  const port = freePort();
  return await spawn(
    [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      main,
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--tools",
      "now",
    ],
    { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN },
    port,
  );
}

/** What one load run measured. */
interface Load {
  /** Connections the server closed before answering, which were opened again. */
  closed: number;
  requestsPerSecond: number;
  p99Ms: number;
  /**
   * The server's CPU time per request, in µs: on a machine shared with other work, a steadier
   * measure of its cost than the rate, which the load generator's share of the CPU also bounds.
   */
  cpuUs: number;
}

/** Whether `text` holds one whole response (a Content-Length or a chunked body). */
function complete(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = text.slice(0, end).toLowerCase();
  if (!head.startsWith("http/1.1 200")) throw new Error(`not answered: ${text.slice(0, 200)}`);
  const length = /content-length: (\d+)/.exec(head);
  if (length) return text.length - end - 4 >= Number(length[1]);
  return text.endsWith("\r\n0\r\n\r\n");
}

/**
 * Sends `request` over `connections` keep-alive connections, one at a time on each, for
 * `seconds` after a warm-up of a quarter of that; the rate and p99 of the timed part.
 */
async function load(
  { port, cpuMs }: Child,
  request: Uint8Array,
  seconds: number,
  connections: number,
): Promise<Load> {
  const decoder = new TextDecoder();
  const latencies: number[] = [];
  const warm = performance.now() + seconds * 250;
  const end = warm + seconds * 1000;
  let closed = 0;
  async function client(): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    while (performance.now() < end) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.setNoDelay(true);
      try {
        for (let start = performance.now(); start < end; start = performance.now()) {
          await conn.write(request);
          let text = "";
          do {
            const n = await conn.read(buffer);
            if (n === null) throw new Closed();
            text += decoder.decode(buffer.subarray(0, n));
          } while (!complete(text));
          if (start >= warm) latencies.push(performance.now() - start);
        }
      } catch (error) {
        // A burst of new connections from one peer is more than the guard's per-peer share of
        // half-open ones: the oldest may be closed before its first request; it reconnects.
        if (!(error instanceof Closed)) throw error;
        closed++;
      } finally {
        conn.close();
      }
    }
  }
  let cpuAtWarm = NaN;
  const cpuTimer = setTimeout(() => cpuAtWarm = cpuMs(), seconds * 250);
  await Promise.all(Array.from({ length: connections }, client));
  clearTimeout(cpuTimer);
  const cpuUs = (cpuMs() - cpuAtWarm) * 1000 / latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    closed,
    cpuUs,
    requestsPerSecond: latencies.length / seconds,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)],
  };
}

const format = ({ requestsPerSecond, p99Ms, cpuUs, closed }: Load) =>
  `${Math.round(requestsPerSecond)} req/s, p99 ${p99Ms.toFixed(1)} ms, ${
    cpuUs.toFixed(0)
  } µs CPU/request` +
  (closed ? `, ${closed} connections closed unanswered` : "");

class Closed extends Error {}

/** The 1-minute load average (Linux), or `?`. */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  } catch {
    return "?";
  }
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Loads the bare server and the service in turn on each route, `rounds` times (bare, service,
 * bare, service…: a neighbour's burst then weighs on both), after one untimed pass over every
 * route, and reports the median of each figure and of the rounds' ratios. Many short rounds
 * rather than a few long ones: on a shared machine the rate of one second can differ from the
 * next by a fifth, and the median of more pairs is less at its mercy.
 */
export async function run(seconds = 1, connections = 50, rounds = 9): Promise<BenchSummary> {
  const dataDir = await Deno.makeTempDir({ prefix: "outpost-bench-" });
  const pinned = await pin();
  const rows: [string, string][] = [["CPUs", pinned.label]];
  const loadBefore = loadAverage();
  let bare: Child | undefined;
  let service: Child | undefined;
  try {
    bare = await startBare();
    service = await startService(dataDir);
    // A deployed service runs warm: both servers first serve every route, untimed, so that no
    // route is measured while the service's code is still being compiled (whichever route came
    // first read 0.1 lower than when it came second).
    for (const request of Object.values(ROUTES)) {
      for (const server of [bare, service]) await load(server, request, seconds, connections);
    }
    for (const [route, request] of Object.entries(ROUTES)) {
      const pairs: { bare: Load; service: Load }[] = [];
      for (let round = 0; round < rounds; round++) {
        pairs.push({
          bare: await load(bare, request, seconds, connections),
          service: await load(service, request, seconds, connections),
        });
      }
      const typical = (side: "bare" | "service"): Load => ({
        requestsPerSecond: median(pairs.map((pair) => pair[side].requestsPerSecond)),
        p99Ms: median(pairs.map((pair) => pair[side].p99Ms)),
        cpuUs: median(pairs.map((pair) => pair[side].cpuUs)),
        closed: median(pairs.map((pair) => pair[side].closed)),
      });
      const rate = median(
        pairs.map((pair) => pair.service.requestsPerSecond / pair.bare.requestsPerSecond),
      );
      const cpu = median(pairs.map((pair) => pair.service.cpuUs / pair.bare.cpuUs));
      rows.push([`${route}, bare Deno.serve`, format(typical("bare"))]);
      rows.push([`${route}, service`, format(typical("service"))]);
      rows.push([
        `${route}, service / bare`,
        `${rate.toFixed(2)} of the rate (goal ≥ 0.50), ${cpu.toFixed(1)}× the CPU per request`,
      ]);
    }
  } finally {
    await Promise.all([bare?.stop(), service?.stop()]);
    await pinned.release();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
  // The rate is the CPU's to give: on a machine busy with other work both sides get less of it.
  rows.push(["load average (1 min) before, after", `${loadBefore}, ${loadAverage()}`]);
  return { rows };
}

if (import.meta.main) {
  const [seconds, connections, rounds] = [1, 50, 9].map((fallback, i) =>
    Deno.args[i] === undefined ? fallback : Number(Deno.args[i])
  );
  for (const [label, value] of (await run(seconds, connections, rounds)).rows) {
    console.log(`  ${label}: ${value}`);
  }
}
