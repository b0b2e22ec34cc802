import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolError } from "../mod.ts";
import { ConnectProxy } from "../edge/deno/mod.ts";
import { localServer } from "./support/local_server.ts";

// Deno applies NO_PROXY/no_proxy even to a client's explicit proxy. These tests set them and
// check that ConnectProxy's guard still holds. No packet leaves loopback: the pages are on
// 127.0.0.1, reached as `localhost` (the hosts file) or `127.0.0.1`; in the subprocesses,
// tests/support/rebinding_dns.ts answers every lookup and refuses to answer for a client that
// could go around the proxy.

const root = new URL("../", import.meta.url);
const PRELOAD = new URL("support/rebinding_dns.ts", import.meta.url).pathname;
const EXEMPTIONS = ["NO_PROXY", "no_proxy"];

/** Every way of exempting hosts that would send these URLs around the proxy. */
const SETTINGS: [string, string, string][] = [
  ["NO_PROXY", "*", "localhost"],
  ["no_proxy", "*", "localhost"],
  ["NO_PROXY", "localhost", "localhost"],
  ["no_proxy", ".localhost", "localhost"],
  ["NO_PROXY", "*", "127.0.0.1"],
  ["NO_PROXY", "127.0.0.1", "127.0.0.1"],
  ["NO_PROXY", "rebind.example,.example,127.0.0.1", "127.0.0.1"],
  ["no_proxy", "127.0.0.0/8", "127.0.0.1"],
];

/** Runs `fn` with exactly `env` as NO_PROXY/no_proxy, and puts back what was there. */
async function withExemptions(env: Record<string, string>, fn: () => Promise<void>) {
  const saved = EXEMPTIONS.map((name) => [name, Deno.env.get(name)] as const);
  for (const name of EXEMPTIONS) Deno.env.delete(name);
  for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
  try {
    await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test({
  name: "NO_PROXY and no_proxy in any form do not take requests around ConnectProxy's guard",
  timeout: 60_000,
  async fn() {
    await using site = localServer(() => new Response("loopback only"));
    const { port } = new URL(site.origin);
    const around: string[] = [];
    for (const [name, value, host] of SETTINGS) {
      for (const scheme of ["http", "https"]) {
        await withExemptions({ [name]: value }, async () => {
          await using proxy = new ConnectProxy();
          // The variable is back as it was, for the rest of the process.
          assert.equal(Deno.env.get(name), value);
          const url = `${scheme}://${host}:${port}/secret`;
          const arrived = site.received.length;
          const error = await proxy.fetch(url).then(
            (response) => response.body?.cancel(),
            (e) => e,
          );
          if (site.received.length > arrived || !(error instanceof ToolError)) {
            around.push(`${name}=${value} ${url}`);
          } else {
            assert.match(error.message, /is a private or local network address/);
          }
        });
      }
    }
    assert.deepEqual(around, [], "requests that went around the proxy");
  },
});

Deno.test({
  name: "without leave to read and clear NO_PROXY, ConnectProxy refuses to start",
  timeout: 60_000,
  async fn() {
    const script = `import { ConnectProxy } from "${new URL("edge/deno/mod.ts", root)}";
try { await new ConnectProxy().close(); console.log("started"); }
catch (error) { console.log(error.name, error.message, error.hint); }`;
    for (const allowEnv of [[], ["--allow-env=NO_PROXY"]]) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", "--allow-net=127.0.0.1", "--allow-read", ...allowEnv, "-"],
        cwd: root,
        env: { NO_COLOR: "1", NO_PROXY: "*" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(script));
      await writer.close();
      const { stdout, stderr } = await child.output();
      const text = new TextDecoder().decode(stdout);
      assert.match(
        text,
        /^SetupError ConnectProxy must read and clear /,
        new TextDecoder().decode(stderr),
      );
      assert.match(text, allowEnv.length ? /clear no_proxy,/ : /clear NO_PROXY and no_proxy,/);
      assert.match(text, /--allow-env=NO_PROXY,no_proxy/);
    }
  },
});

/** A `deno task` command line from deno.json, minus `deno`, with the rebinding resolver preloaded. */
async function taskArgs(name: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const [deno, ...args] = (config.tasks[name] as string).split(/\s+/);
  assert.equal(deno, "deno");
  const entry = args.findIndex((arg) => arg.startsWith("edge/deno/"));
  return [...args.slice(0, entry), "--preload", PRELOAD, ...args.slice(entry)];
}

/** What a child needs of this environment (no OUTPOST_ settings, no proxy variables). */
function childEnv(exemption: Record<string, string>, probePort: string): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", REBINDING_PROBE_PORT: probePort };
  for (const name of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...exemption };
}

/** A page on 127.0.0.1 that only a rebinding name could reach, and the probe's landing place. */
function loopbackPage() {
  const site = localServer(() => new Response("the intranet's secret"));
  const port = new URL(site.origin).port;
  return {
    site,
    port,
    url: `http://rebind.example:${port}/secret`,
    [Symbol.asyncDispose]: () => site.close(),
  };
}

const REFUSAL = /rebind\.example resolves to 127\.0\.0\.1, a private or local network address/;

Deno.test({
  name: "deno task fetch: with NO_PROXY set, a rebinding name is refused at the connection",
  timeout: 120_000,
  async fn() {
    await using page = loopbackPage();
    for (
      const exemption of <Record<string, string>[]> [
        { NO_PROXY: "*" },
        { no_proxy: "*" },
        { NO_PROXY: "rebind.example" },
        { no_proxy: ".example" },
        { NO_PROXY: "localhost,127.0.0.1,.example" },
      ]
    ) {
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [...await taskArgs("fetch"), page.url],
        cwd: root,
        env: childEnv(exemption, page.port),
        clearEnv: true,
        stdin: "null",
      }).output();
      const text = new TextDecoder().decode(stderr);
      assert.equal(code, 1, text);
      assert.match(text, REFUSAL, JSON.stringify(exemption));
    }
    assert.deepEqual(page.site.received, [], "the loopback page was never reached");
  },
});

Deno.test({
  name: "deno task start: with NO_PROXY=* set, a rebinding name is refused at the connection",
  timeout: 120_000,
  async fn() {
    await using page = loopbackPage();
    const dataDir = await Deno.makeTempDir({ prefix: "outpost-no-proxy-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: [...await taskArgs("start"), "--port", "0", "--data-dir", dataDir],
      cwd: root,
      env: {
        ...childEnv({ NO_PROXY: "*" }, page.port),
        OUTPOST_TOOL_TOKEN: "tool-token-0123456789",
      },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let output = "";
      let service: RegExpExecArray | null = null;
      while (!(service = /listening on (http:\/\/\S+?)\/\n/.exec(output))) {
        const { value, done } = await lines.read();
        assert.ok(!done, `the service exited: ${output}`);
        output += value;
      }
      const response = await fetch(`${service[1]}/tools/web_fetch`, {
        method: "POST",
        headers: { authorization: "Bearer tool-token-0123456789" },
        body: JSON.stringify({ url: page.url }),
      });
      const text = await response.text();
      assert.equal(response.status, 422, text);
      assert.match(text, REFUSAL);
      assert.deepEqual(page.site.received, [], "the loopback page was never reached");
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await lines.cancel();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "deno task mcp: with no_proxy=* set, a rebinding name is refused at the connection",
  timeout: 120_000,
  async fn() {
    await using page = loopbackPage();
    const [command, ...args] = [Deno.execPath(), ...await taskArgs("mcp")];
    const client = new Client({ name: "outpost-no-proxy-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        cwd: root.pathname,
        env: childEnv({ no_proxy: "*" }, page.port),
        stderr: "inherit",
      }),
    );
    try {
      const result = await client.callTool({ name: "web_fetch", arguments: { url: page.url } });
      assert.equal(result.isError, true);
      assert.match((result.content as { text: string }[])[0].text, REFUSAL);
      assert.deepEqual(page.site.received, [], "the loopback page was never reached");
    } finally {
      await client.close();
    }
  },
});
