import assert from "node:assert/strict";
import { InvalidInputError, type PageReader, SetupError, ToolError, webFetch } from "../mod.ts";
import { BrowserReader, HttpReader, isPrivateHost, type ResolveHost } from "../src/fetch/mod.ts";
import { ConnectProxy, launchChromium } from "../edge/deno/mod.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { bundleForNode, findNode } from "./support/node.ts";
import { waitFor } from "./support/wait.ts";

// No packet leaves loopback. The site is "page.test" on 127.0.0.1; the private target is
// "intranet.test" on 127.0.0.2, a second loopback address the proxy is told to refuse as it
// refuses every private one. Names are answered by the resolvers below, never by DNS.

const CHROMIUM = "/usr/bin/chromium";
// Skipped where Debian's chromium is missing; CI sets OUTPOST_REQUIRE_CHROMIUM=1 so it never is.
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);
const ignore = chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1";
if (ignore) console.warn(`${CHROMIUM} is missing: the browser reader tests are skipped.`);

/** Where the proxy connects: the site to loopback, the intranet to the refused 127.0.0.2. */
const proxyNames: ResolveHost = (name) =>
  Promise.resolve(name === "intranet.test" ? ["127.0.0.2"] : ["127.0.0.1"]);
/**
 * What the reader's own check is told: public addresses for both names, so that a refusal of
 * intranet.test can only be the proxy's (literal private addresses it refuses itself).
 */
const publicNames: ResolveHost = (name) =>
  Promise.resolve([name === "intranet.test" ? "93.184.215.15" : "93.184.215.14"]);
/** The proxy may reach the test's site on 127.0.0.1, and nothing else private. */
const onlyTheSite = (host: string) => host === "127.0.0.1" || !isPrivateHost(host);

/** The private server: it counts every request that reaches it, WebSocket upgrades included. */
function intranet() {
  const seen: string[] = [];
  /** What reached it by its address rather than by a name: `/fetch`, `/ws`… */
  const byAddress: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    seen.push(path);
    if (request.headers.get("host")?.startsWith("127.0.0.2")) byAddress.push(path);
    if (request.headers.get("upgrade") === "websocket") {
      return Deno.upgradeWebSocket(request).response;
    }
    return new Response("the intranet's secret", { headers: { "content-type": "text/html" } });
  });
  return {
    seen,
    byAddress,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The page's attempts on one base URL: fetch, image, iframe, redirect, WebSocket. */
function attempts(base: string): string {
  const b = JSON.stringify(base);
  return `
  tries.push(settle(fetch(${b} + "/fetch")));
  tries.push(settle(new Promise((done) => {
    const image = new Image(); image.onload = image.onerror = done; image.src = ${b} + "/img";
  })));
  tries.push(settle(new Promise((done) => {
    const frame = document.createElement("iframe"); frame.onload = done;
    frame.src = ${b} + "/iframe"; document.body.append(frame);
  })));
  tries.push(settle(fetch("/redirect?to=" + encodeURIComponent(${b} + "/redirect"))));
  tries.push(settle(new Promise((done) => {
    const socket = new WebSocket(${b}.replace("http", "ws") + "/ws");
    socket.onopen = socket.onerror = socket.onclose = done;
  })));`;
}

/** The site: a page only a script fills, a page that attacks the intranet, redirects, a worker. */
function site(privatePort: number) {
  const targets = [`http://intranet.test:${privatePort}`, `http://127.0.0.2:${privatePort}`];
  let release = Promise.withResolvers<void>();
  const stalled = Promise.withResolvers<void>();
  const blob = { sent: 0, cancelled: false };
  const asked = new Set<string>();
  const hits = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    asked.add(url.pathname);
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const html = (body: string) =>
      new Response(
        `<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`,
        {
          headers: { "content-type": "text/html" },
        },
      );
    switch (url.pathname) {
      case "/shell":
        return html(`<div id="app"></div><script>
          document.getElementById("app").innerHTML =
            "<h1>Built</h1><p>Only a script wrote this sentence, and it is long enough to read.</p>";
        </script>`);
      case "/redirect":
        return new Response(null, {
          status: 302,
          headers: { location: url.searchParams.get("to")! },
        });
      // Held open while the page tries, so the browser does not take the network for quiet.
      case "/hold":
        await release.promise;
        release = Promise.withResolvers();
        return new Response("");
      case "/done":
        release.resolve();
        return new Response("");
      // A page whose image never comes: its load event never fires.
      case "/stuck":
        return html(`<p>Waiting for an image that never comes.</p><img src="/never">`);
      case "/never":
        await stalled.promise;
        return new Response("");
      // A page whose script pulls in more than it may.
      case "/big":
        return html(`<p id="out">A page that downloads a lot.</p><script>
          fetch("/blob").then((r) => r.text()).then((t) => {
            document.getElementById("out").textContent = "Downloaded " + t.length;
          });
        </script>`);
      // Two megabytes, then nothing until the test ends: the download never finishes.
      case "/blob":
        return new Response(
          new ReadableStream({
            async pull(controller) {
              if (blob.sent >= 2_000_000) await stalled.promise;
              controller.enqueue(new Uint8Array(65_536).fill(120));
              blob.sent += 65_536;
            },
            cancel() {
              blob.cancelled = true;
            },
          }),
        );
      case "/sw.js":
        return new Response(
          `self.addEventListener("install", (event) => event.waitUntil(Promise.all(${
            JSON.stringify(targets)
          }.map((base) => fetch(base + "/sw").catch(() => {})))));`,
          { headers: { "content-type": "text/javascript" } },
        );
      case "/attack":
        return html(`<p id="out">pending</p><script>
          const tries = [fetch("/hold")];
          const settle = (promise) =>
            Promise.race([promise, new Promise((done) => setTimeout(done, 5000))]).catch(() => {});
          ${targets.map(attempts).join("\n")}
          tries.push(settle(navigator.serviceWorker.register("/sw.js").then((registration) =>
            new Promise((done) => {
              const worker = registration.installing;
              if (!worker) return done();
              worker.onstatechange = () => worker.state !== "installing" && done();
            })
          )));
          Promise.all(tries.slice(1)).then(() => {
            document.getElementById("out").textContent = "The script made every attempt it could.";
            return fetch("/done");
          });
        </script>`);
      default:
        return new Response("not found", { status: 404 });
    }
  });
  return {
    origin: `http://page.test:${server.addr.port}`,
    asked,
    hits,
    blob,
    [Symbol.asyncDispose]: () => (stalled.resolve(), server.shutdown()),
  };
}

/**
 * A plain reader that finds every URL an empty HTML page, so that the browser is the one to
 * read it: its requests, redirects included, are what these tests watch.
 */
const emptyShell: PageReader = {
  read: (url) =>
    Promise.resolve({
      url,
      status: 200,
      mediaType: "text/html",
      text: "",
      images: [],
      sizeCapped: false,
    }),
};

/** A browser behind the checking proxy, and a reader on it, for `origin`. */
async function browser(
  origin: string,
  guarded: boolean,
  http = emptyShell,
  // The reader's own check of each request, on top of the proxy's (default: as `guarded`).
  checked = guarded,
) {
  const chromium = await launchChromium({
    path: CHROMIUM,
    proxy: {
      resolveHost: proxyNames,
      allowAddress: guarded ? onlyTheSite : () => true,
    },
    // Service workers need a secure origin; the test's site is plain HTTP.
    args: [`--unsafely-treat-insecure-origin-as-secure=${origin}`],
  });
  const reader = new BrowserReader({
    browser: chromium.endpoint,
    proxyCredentials: chromium.proxyCredentials,
    resolveHost: publicNames,
    allowPrivateNetwork: !checked,
    http,
    settleMs: 20_000,
    timeoutMs: 40_000,
  });
  return { chromium, reader };
}

Deno.test({
  name: "a page whose text only a script writes is read in the browser",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    // The plain read goes through a checking proxy of its own, told the same names.
    await using proxy = new ConnectProxy({ resolveHost: proxyNames, allowAddress: onlyTheSite });
    const http = new HttpReader({ resolveHost: publicNames, fetch: proxy.fetch });
    const { chromium, reader } = await browser(page.origin, true, http);
    await using _ = chromium;
    const tool = webFetch(reader);
    const plain = await tool.execute({ url: `${page.origin}/shell`, render: "never" });
    assert.doesNotMatch(plain, /Only a script wrote this sentence/);
    assert.match(plain, /render: "always"/, "the model is told it can ask for the browser");
    // "auto", the default: the plain read finds no text, so the browser reads the page.
    const text = await tool.execute({ url: `${page.origin}/shell` });
    assert.match(text, /Only a script wrote this sentence/);
    assert.match(text, /HTTP 200 · text\/html · rendered in a browser/);
    // One plain read (kept for the next ones) and one render.
    assert.equal(page.hits.get("/shell"), 2);
    // Read again, the rendered page comes from the cache; max_age: 0 reads and renders afresh.
    assert.equal(await tool.execute({ url: `${page.origin}/shell` }), text);
    assert.equal(page.hits.get("/shell"), 2);
    assert.match(await tool.execute({ url: `${page.origin}/shell`, max_age: 0 }), /rendered/);
    assert.equal(page.hits.get("/shell"), 4);
  },
});

for (const checked of [true, false]) {
  Deno.test({
    name: `a page's fetch, image, iframe, redirect, WebSocket and service worker never reach a ` +
      `private address (${checked ? "proxy and the reader's check" : "the proxy alone"})`,
    ignore,
    timeout: 60_000,
    sanitizeResources: false,
    async fn() {
      await using target = intranet();
      await using page = site(target.port);
      const { chromium, reader } = await browser(page.origin, true, emptyShell, checked);
      await using _ = chromium;
      const read = await reader.read(`${page.origin}/attack`);
      assert.match(read.text, /The script made every attempt it could/);
      assert.deepEqual(target.seen, [], "the private server was never reached");
    },
  });
}

Deno.test({
  name:
    "without the guard the same page reaches the private server by every way (the test's control)",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    const { chromium, reader } = await browser(page.origin, false);
    await using _ = chromium;
    const read = await reader.read(`${page.origin}/attack`);
    assert.match(read.text, /The script made every attempt it could/);
    for (const path of ["/fetch", "/img", "/iframe", "/redirect", "/ws", "/sw"]) {
      assert.ok(target.seen.includes(path), `${path} reached it: ${target.seen}`);
    }
  },
});

Deno.test({
  name: "the reader's own check alone refuses private addresses but cannot see WebSockets",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    // The proxy lets everything through; the reader is told intranet.test is public.
    const { chromium, reader } = await browser(page.origin, false, emptyShell, true);
    await using _ = chromium;
    const read = await reader.read(`${page.origin}/attack`);
    assert.match(read.text, /The script made every attempt it could/);
    // Of the attempts on 127.0.0.2 by its address, only the WebSocket got past the check,
    // which is why the browser runs behind the checking proxy.
    assert.deepEqual(target.byAddress, ["/ws"]);
  },
});

Deno.test({
  name: "the page itself, or a redirect of it, at a private address is refused unread",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    const { chromium, reader } = await browser(page.origin, true);
    await using _ = chromium;
    for (
      const url of [
        `http://127.0.0.2:${target.port}/`,
        `http://intranet.test:${target.port}/`,
        `${page.origin}/redirect?to=http://127.0.0.2:${target.port}/`,
        `${page.origin}/redirect?to=http://intranet.test:${target.port}/`,
      ]
    ) {
      await assert.rejects(reader.read(url, { render: "always" }), (error: Error) => {
        assert.ok(error instanceof ToolError, String(error));
        return true;
      }, url);
    }
    assert.deepEqual(target.seen, [], "the private server was never reached");
  },
});

/** The pages the browser has open, from its DevTools HTTP endpoint. */
async function openPages(endpoint: string): Promise<string[]> {
  const { host } = new URL(endpoint);
  const response = await fetch(`http://${host}/json/list`);
  const targets = await response.json() as { type: string; url: string }[];
  return targets.filter((t) => t.type === "page" && t.url !== "about:blank").map((t) => t.url);
}

Deno.test({
  name: "a render is bounded in time, and its tab is closed after",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    const { chromium } = await browser(page.origin, true);
    await using _ = chromium;
    const clock = new FakeClock();
    const reader = new BrowserReader({
      browser: chromium.endpoint,
      proxyCredentials: chromium.proxyCredentials,
      resolveHost: publicNames,
      http: emptyShell,
      timeoutMs: 10_000,
      clock,
    });
    const refused = assert.rejects(
      reader.read(`${page.origin}/stuck`, { render: "always" }),
      (error: Error) => {
        assert.ok(error instanceof ToolError && error.code === "timeout", String(error));
        assert.match(error.message, /Timed out after 10 s rendering/);
        return true;
      },
    );
    await waitFor(() => page.asked.has("/never"), "the page to ask for its image");
    await clock.advance(10_000);
    await refused;
    await waitFor(
      async () => (await openPages(chromium.endpoint)).length === 0,
      "the tab to close",
    );
  },
});

Deno.test({
  name: "a render is bounded in bytes: loading stops past maxBytes and the answer says so",
  ignore,
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    await using target = intranet();
    await using page = site(target.port);
    const { chromium } = await browser(page.origin, true);
    await using _ = chromium;
    const reader = new BrowserReader({
      browser: chromium.endpoint,
      proxyCredentials: chromium.proxyCredentials,
      resolveHost: publicNames,
      http: emptyShell,
      maxBytes: 1_000_000,
      // Neither quiet nor the end of the deadline can end this read: only the cap can.
      settleMs: 120_000,
      timeoutMs: 120_000,
    });
    const text = await webFetch(reader).execute({ url: `${page.origin}/big` });
    assert.match(text, /download stopped at the size limit/);
    assert.match(text, /A page that downloads a lot\./);
    // The tab was closed with the download still open, which hung up on it.
    await waitFor(() => page.blob.cancelled, "the download to be cut");
  },
});

/** A DevTools endpoint that accepts connections and never answers: it counts who is connected. */
function silentBrowser() {
  let open = 0;
  let most = 0;
  let opened = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onopen = () => {
      opened++;
      most = Math.max(most, ++open);
    };
    socket.onclose = () => open--;
    return response;
  });
  return {
    endpoint: `ws://127.0.0.1:${server.addr.port}/devtools/browser/silent`,
    get open() {
      return open;
    },
    get opened() {
      return opened;
    },
    get most() {
      return most;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test({
  name: "at most maxPages renders run at once; the others wait their turn, and may give up",
  timeout: 30_000,
  async fn() {
    await using browser = silentBrowser();
    const reader = new BrowserReader({ browser: browser.endpoint, http: emptyShell, maxPages: 2 });
    const url = "https://example.com/app";
    const callers = [0, 1, 2].map(() => new AbortController());
    const reads = callers.map((caller) =>
      assert.rejects(
        reader.read(url, { render: "always", signal: caller.signal }),
        (error: Error) => error.message === "gave up",
      )
    );
    await waitFor(() => browser.opened === 2, "two renders to connect");
    // The third waits for a turn: giving up, it never connected.
    callers[2].abort(new Error("gave up"));
    await reads[2];
    assert.equal(browser.opened, 2);
    for (const caller of callers) caller.abort(new Error("gave up"));
    await Promise.all(reads);
    await waitFor(() => browser.open === 0, "the connections to close");
    assert.equal(browser.most, 2);
  },
});

Deno.test("bad BrowserReader options and read options are SetupErrors", () => {
  const browser = "ws://127.0.0.1:9/devtools/browser/x";
  assert.throws(() => new BrowserReader({ browser: "http://127.0.0.1:9/" }), SetupError);
  assert.throws(() => new BrowserReader({ browser, maxPages: 0 }), SetupError);
  assert.throws(() => new BrowserReader({ browser, timeoutMs: -1 }), SetupError);
  assert.throws(() => new BrowserReader({ browser, maxBytes: 0 }), SetupError);
  assert.throws(
    () => new BrowserReader({ browser, render: "sometimes" as "auto" }),
    SetupError,
  );
  const reader = new BrowserReader({ browser, http: emptyShell });
  return assert.rejects(
    reader.read("https://example.com/", { render: "sometimes" as "auto" }),
    SetupError,
  );
});

Deno.test("web_fetch refuses a render it does not know", { timeout: 10_000 }, async () => {
  const tool = webFetch(new BrowserReader({ browser: "ws://127.0.0.1:9/x", http: emptyShell }));
  await assert.rejects(
    tool.execute({ url: "https://example.com/", render: "sometimes" }),
    InvalidInputError,
  );
});

Deno.test({
  name:
    "a browser that cannot be reached leaves the plain read in auto, and is an error when asked",
  timeout: 30_000,
  async fn() {
    // A port that was just free: nothing listens there.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr;
    listener.close();
    const reader = new BrowserReader({
      browser: `ws://127.0.0.1:${port}/devtools/browser/gone`,
      http: emptyShell,
    });
    const page = await reader.read("https://example.com/app");
    assert.equal(page.text, "");
    assert.equal(page.rendered, undefined);
    await assert.rejects(
      reader.read("https://example.com/app", { render: "always" }),
      (error: Error) => error instanceof ToolError && /in the browser failed/.test(error.message),
    );
  },
});

Deno.test({
  name: "the same reader renders on Node (the bundle a Node user gets, over Node's WebSocket)",
  ignore,
  timeout: 120_000,
  sanitizeResources: false,
  async fn() {
    const node = await findNode();
    assert.ok(node, "no node found (OUTPOST_NODE, else PATH)");
    await using target = intranet();
    await using page = site(target.port);
    // No proxy here: the site is on loopback, and the browser is told where page.test is.
    await using chromium = await launchChromium({
      path: CHROMIUM,
      proxy: false,
      args: ["--host-resolver-rules=MAP page.test 127.0.0.1, MAP * ~NOTFOUND"],
    });
    const temp = await Deno.makeTempDir({ prefix: "outpost-node-" });
    try {
      const module = await bundleForNode("tests/fixtures/node_browser_read.ts", temp);
      const { code, stdout, stderr } = await new Deno.Command(node, {
        // Node 20 has its WebSocket behind a flag; Node 22 has it on.
        args: ["--experimental-websocket", module, chromium.endpoint, `${page.origin}/shell`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      assert.equal(code, 0, decoder.decode(stderr));
      const result = JSON.parse(decoder.decode(stdout));
      assert.equal(result.rendered, true);
      assert.match(result.text, /Only a script wrote this sentence/);
    } finally {
      await Deno.remove(temp, { recursive: true });
    }
  },
});
