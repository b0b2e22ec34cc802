import assert from "node:assert/strict";
import { ToolError, webFetch } from "../mod.ts";
import { HttpReader, isPrivateHost, type ResolveHost } from "../src/fetch/mod.ts";
import { ConnectProxy } from "../edge/deno/mod.ts";

// No packet leaves loopback here. Names are answered by the resolvers below, never by DNS; the
// "public" first answer of a rebinding name goes only to HttpReader's guard, which checks it
// and does not connect; the proxy then asks again and is told 127.0.0.1.

const fixtures = new URL("./fixtures/tls/", import.meta.url);
const caCerts = [Deno.readTextFileSync(new URL("ca.pem", fixtures))];
const tls = {
  cert: Deno.readTextFileSync(new URL("cert.pem", fixtures)),
  key: Deno.readTextFileSync(new URL("key.pem", fixtures)),
};

/** Answers `answers[0]` first, then `answers[1]` every time after, and counts the lookups. */
function rebinding(...answers: [string, string]) {
  const lookups: string[] = [];
  const resolve: ResolveHost = (hostname) => {
    lookups.push(hostname);
    return Promise.resolve([lookups.length === 1 ? answers[0] : answers[1]]);
  };
  return { lookups, resolve };
}

/** A server on 127.0.0.1 (TLS with a certificate for pinned.test and rebind.test, or plain). */
function origin(secure: boolean) {
  const seen: { host: string; path: string }[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    ...(secure ? tls : {}),
  }, (request) => {
    const url = new URL(request.url);
    // `Host` over HTTP/1.1, `:authority` over HTTP/2: either way, the request URL's host.
    seen.push({ host: url.host, path: url.pathname + url.search });
    if (url.pathname === "/start") {
      return new Response(null, { status: 302, headers: { location: "/doc" } });
    }
    return new Response("the intranet's secret", { headers: { "content-type": "text/plain" } });
  });
  return {
    seen,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Lets the proxy dial 127.0.0.1 (the test's origin) and nothing else private. */
const onlyTestOrigin = (host: string) => host === "127.0.0.1" || !isPrivateHost(host);

for (const secure of [true, false]) {
  const scheme = secure ? "https" : "http";

  Deno.test({
    name: `${scheme}: a name that rebinds to loopback after the guard's check is never read`,
    timeout: 30_000,
    async fn() {
      await using site = origin(secure);
      const names = rebinding("93.184.215.14", "127.0.0.1");
      await using proxy = new ConnectProxy({ resolveHost: names.resolve, caCerts });
      const tool = webFetch(new HttpReader({ resolveHost: names.resolve, fetch: proxy.fetch }));
      const url = `${scheme}://rebind.test:${site.port}/secret`;
      await assert.rejects(tool.execute({ url }), (error: Error) => {
        assert.ok(error instanceof ToolError, String(error));
        assert.match(error.message, /rebind\.test resolves to 127\.0\.0\.1, a private or local/);
        return true;
      });
      // The guard asked once and was told a public address; the proxy asked once, was told
      // 127.0.0.1, and refused: a refusal is final, so it did not ask again.
      assert.deepEqual(names.lookups, ["rebind.test", "rebind.test"]);
      assert.deepEqual(site.seen, [], "the origin was never reached");
    },
  });

  Deno.test({
    name: `${scheme}: the proxy connects to the address it checked, with the URL's name and Host`,
    timeout: 30_000,
    async fn() {
      await using site = origin(secure);
      // Checked and dialled: 127.0.0.1. A second lookup would say 127.0.0.2, which is refused.
      const names = rebinding("127.0.0.1", "127.0.0.2");
      await using proxy = new ConnectProxy({
        resolveHost: names.resolve,
        allowAddress: onlyTestOrigin,
        caCerts,
      });
      const response = await proxy.fetch(`${scheme}://pinned.test:${site.port}/page?q=1`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "the intranet's secret");
      // TLS verified the certificate for pinned.test through the tunnel, end to end.
      assert.deepEqual(site.seen, [{ host: `pinned.test:${site.port}`, path: "/page?q=1" }]);
      assert.deepEqual(names.lookups, ["pinned.test"]);
    },
  });

  Deno.test({
    name: `${scheme}: HttpReader reads through the proxy, redirects included`,
    timeout: 30_000,
    async fn() {
      await using site = origin(secure);
      // The guard is told a public address (and connects nowhere); the proxy, allowed to reach
      // the test's origin, is told 127.0.0.1.
      await using proxy = new ConnectProxy({
        resolveHost: () => Promise.resolve(["127.0.0.1"]),
        allowAddress: onlyTestOrigin,
        caCerts,
      });
      const reader = new HttpReader({
        resolveHost: () => Promise.resolve(["93.184.215.14"]),
        fetch: proxy.fetch,
      });
      const page = await reader.read(`${scheme}://pinned.test:${site.port}/start`);
      assert.equal(page.text, "the intranet's secret");
      assert.equal(page.url, `${scheme}://pinned.test:${site.port}/doc`);
      assert.deepEqual(site.seen.map((hop) => hop.path), ["/start", "/doc"]);
    },
  });
}

Deno.test({
  name: "private literals and local names are refused without a lookup",
  timeout: 30_000,
  async fn() {
    const lookups: string[] = [];
    await using proxy = new ConnectProxy({
      resolveHost: (name) => (lookups.push(name), Promise.resolve(["127.0.0.1"])),
    });
    for (
      const url of [
        "https://127.0.0.1:8089/",
        "http://[::1]:8089/",
        "https://localhost:8089/",
        "http://10.1.2.3/",
      ]
    ) {
      await assert.rejects(
        proxy.fetch(url),
        (error: Error) => error instanceof ToolError && /private or local/.test(error.message),
        url,
      );
    }
    assert.deepEqual(lookups, []);
  },
});

Deno.test({
  name: "only the proxy's own fetch may use it: anyone else gets 407",
  timeout: 30_000,
  async fn() {
    await using site = origin(false);
    await using proxy = new ConnectProxy({ allowAddress: onlyTestOrigin });
    const { port } = new URL(proxy.url);
    for (
      const start of [`CONNECT 127.0.0.1:${site.port} HTTP/1.1`, "GET http://127.0.0.1/ HTTP/1.1"]
    ) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      await conn.write(new TextEncoder().encode(`${start}\r\nhost: x\r\n\r\n`));
      // Read to the end of the status line: a socket may hand it over in more than one piece.
      const buffer = new Uint8Array(256);
      let head = "";
      for (let n; !head.includes("\r\n") && (n = await conn.read(buffer)) !== null;) {
        head += new TextDecoder().decode(buffer.subarray(0, n));
      }
      conn.close();
      assert.match(head, /^HTTP\/1\.1 407 /);
    }
    assert.deepEqual(site.seen, []);
  },
});

Deno.test({
  name: "a request head over the size bound is cut off",
  timeout: 30_000,
  async fn() {
    await using proxy = new ConnectProxy();
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(proxy.url).port),
    });
    // Sixteen kilobytes of one header line: over the bound, so the proxy hangs up at once.
    await conn.write(
      new TextEncoder().encode(`GET http://a.example/ HTTP/1.1\r\nx: ${"a".repeat(17_000)}`),
    )
      .catch(() => 0);
    const buffer = new Uint8Array(64);
    assert.equal(await conn.read(buffer).catch(() => null), null);
    conn.close();
  },
});
