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
        /^UserError ConnectProxy must read and clear /,
        new TextDecoder().decode(stderr),
      );
      assert.match(text, allowEnv.length ? /clear no_proxy,/ : /clear NO_PROXY and no_proxy,/);
      assert.match(text, /--allow-env=NO_PROXY,no_proxy/);
    }
  },
});
