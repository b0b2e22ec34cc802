import assert from "node:assert/strict";
import { SetupError, ToolError } from "../mod.ts";
import { HttpReader, MemoryUrlCache, type Page } from "../src/fetch/mod.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { closedOrigin, dripFeed, localServer } from "./support/local_server.ts";
import { waitFor } from "./support/wait.ts";

// Retries pause 1 ms here, not the 250 ms a flaky real server gets.
const local = { allowPrivateNetwork: true, retryDelayMs: 1 } as const;

Deno.test("follows a redirect chain by hand and reports the final URL", async () => {
  await using server = localServer((request) => {
    const path = new URL(request.url).pathname;
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) {
      const n = Number(hop[1]);
      return new Response(null, {
        status: n % 2 ? 301 : 302,
        headers: { location: n > 1 ? `/hop/${n - 1}` : "/final" },
      });
    }
    return new Response("<title>End</title><p>arrived</p>", {
      headers: { "content-type": "text/html" },
    });
  });
  const page = await new HttpReader(local).read(`${server.origin}/hop/4`);
  assert.equal(page.url, `${server.origin}/final`);
  assert.equal(page.title, "End");
  assert.equal(page.text, "arrived");
  assert.deepEqual(server.received.map((r) => r.path), [
    "/hop/4",
    "/hop/3",
    "/hop/2",
    "/hop/1",
    "/final",
  ]);
});

Deno.test("gives up after ten redirects", async () => {
  await using server = localServer(() =>
    new Response(null, { status: 302, headers: { location: "/loop" } })
  );
  await assert.rejects(
    new HttpReader(local).read(`${server.origin}/loop`),
    (error: Error) => error instanceof ToolError && /Too many redirects/.test(error.message),
  );
  assert.equal(server.received.length, 11);
});

Deno.test("an endless body stops at maxBytes and the stream is cancelled", async () => {
  let cancelled = false;
  let pulled = 0;
  const chunk = new TextEncoder().encode("all work and no play ".repeat(3_000));
  await using server = localServer(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          pulled++;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      }),
      { headers: { "content-type": "text/plain" } },
    )
  );
  const page = await new HttpReader({ ...local, maxBytes: 200_000 }).read(server.origin);
  assert.equal(page.sizeCapped, true);
  assert.equal(page.text.length, 200_000);
  await waitFor(() => cancelled, "the body to be cancelled");
  // Backpressure: the server produced what we read plus socket buffers, then stopped.
  assert.ok(pulled * chunk.length < 64_000_000, `pulled ${pulled} chunks`);
});

Deno.test("a slow-drip body times out with a ToolError and the stream is cancelled", {
  timeout: 20_000,
}, async () => {
  using feed = dripFeed(20, { "content-type": "text/plain" });
  await using server = localServer(() => feed.response());
  // The clock decides when the timeout falls, not the machine's speed.
  const clock = new FakeClock();
  let settled = false;
  // The outcome, caught at once: a rejection left unhandled while the clock moves fails the run.
  const outcome = new HttpReader({ ...local, timeoutMs: 30_000, clock }).read(server.origin)
    .then(() => undefined, (error: Error) => error).finally(() => settled = true);
  await server.arrived(1);
  assert.deepEqual(clock.pending, [30_000]);
  await clock.advance(29_999);
  assert.equal(settled, false);
  await clock.advance(1);
  const error = await outcome;
  assert.ok(error instanceof ToolError && /^Timed out after 30 s/.test(error.message), error);
  await waitFor(() => feed.cancelled, "the body to be cancelled");
  assert.deepEqual(clock.pending, []);
});

Deno.test("the caller's signal aborts the read with its reason", { timeout: 20_000 }, async () => {
  using feed = dripFeed(10);
  await using server = localServer(() => feed.response());
  const controller = new AbortController();
  const reading = new HttpReader(local).read(server.origin, { signal: controller.signal });
  await server.arrived(1);
  controller.abort(new Error("caller gave up"));
  await assert.rejects(reading, /caller gave up/);
});

Deno.test("gzip bodies are decompressed", async () => {
  const html = "<h1>Zipped</h1><p>" + "compressible text ".repeat(500) + "</p>";
  await using server = localServer(() => {
    const body = new Blob([html]).stream().pipeThrough(new CompressionStream("gzip"));
    return new Response(body, {
      headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" },
    });
  });
  const page = await new HttpReader(local).read(server.origin);
  assert.ok(page.text.startsWith("# Zipped\n\ncompressible text"));
});

Deno.test("charsets: header, BOM, meta, http-equiv, XML, unknown and wrong labels", async () => {
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  const utf16le = (text: string) => {
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) bytes[2 + i * 2] = text.charCodeAt(i);
    return bytes;
  };
  const cases: Record<string, [string, Uint8Array<ArrayBuffer>, string]> = {
    "/header": ["text/plain; charset=windows-1252", latin1("caf\xe9 \x80"), "café €"],
    "/quoted": ['text/plain; charset="ISO-8859-1"', latin1("na\xefve"), "naïve"],
    "/meta": ["text/html", latin1('<meta charset="windows-1252"><p>d\xe9j\xe0 vu'), "déjà vu"],
    "/equiv": [
      "text/html",
      latin1('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>\xfcber'),
      "über",
    ],
    "/xml": ["text/xml", latin1('<?xml version="1.0" encoding="ISO-8859-1"?><a>\xe9</a>'), "é"],
    "/bom": ["text/plain; charset=iso-8859-1", utf16le("héllo"), "héllo"],
    "/unknown": [
      "text/plain; charset=x-no-such-charset",
      new TextEncoder().encode("ünïcode"),
      "ünïcode",
    ],
    "/missing": ["text/plain", new TextEncoder().encode("日本語"), "日本語"],
    "/wrong": ["text/plain; charset=utf-8", latin1("caf\xe9"), "caf\ufffd"],
  };
  await using server = localServer((request) => {
    const [type, body] = cases[new URL(request.url).pathname];
    return new Response(body, { headers: { "content-type": type } });
  });
  const reader = new HttpReader(local);
  for (const [path, [, , expected]] of Object.entries(cases)) {
    const page = await reader.read(server.origin + path);
    assert.ok(page.text.includes(expected), `${path}: ${JSON.stringify(page.text)}`);
  }
});

Deno.test("JSON is compacted, invalid JSON stays text, +json counts as JSON", async () => {
  await using server = localServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/ok") {
      return Response.json({ a: [1, 2], b: { c: "d" } }, {
        headers: { "content-type": "application/json" },
      }).text().then((text) =>
        new Response(text.replace(/,/g, ",\n  "), {
          headers: { "content-type": "application/json" },
        })
      );
    }
    if (path === "/problem") {
      return new Response('{\n  "title": "Not found"\n}', {
        status: 404,
        headers: { "content-type": "application/problem+json" },
      });
    }
    return new Response("{not json", { headers: { "content-type": "application/json" } });
  });
  const reader = new HttpReader(local);
  assert.equal((await reader.read(`${server.origin}/ok`)).text, '{"a":[1,2],"b":{"c":"d"}}');
  const problem = await reader.read(`${server.origin}/problem`);
  assert.equal(problem.text, '{"title":"Not found"}');
  assert.equal(problem.status, 404);
  assert.equal((await reader.read(`${server.origin}/bad`)).text, "{not json");
});

Deno.test("binary bodies are described, not decoded", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  await using server = localServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/png") return new Response(png, { headers: { "content-type": "image/png" } });
    return new Response(new Uint8Array([65, 0, 66, 0, 1, 2]));
  });
  const reader = new HttpReader(local);
  const image = await reader.read(`${server.origin}/png`);
  assert.equal(image.text, "(binary content not shown: image/png, 12 bytes)");
  assert.equal(image.mediaType, "image/png");
  const sniffed = await reader.read(`${server.origin}/blob`);
  assert.equal(sniffed.text, "(binary content not shown: application/octet-stream, 6 bytes)");
});

Deno.test("an untyped body that looks like HTML is converted", async () => {
  await using server = localServer(() =>
    new Response(new TextEncoder().encode("<!DOCTYPE html><title>T</title><p>Hello <b>there</b>"))
  );
  const page = await new HttpReader(local).read(server.origin);
  assert.equal(page.mediaType, "text/html");
  assert.equal(page.text, "Hello **there**");
});

Deno.test("502/503/504 are retried twice; a lasting 503 is returned as the page", async () => {
  let calls = 0;
  await using server = localServer((request) => {
    calls++;
    if (new URL(request.url).pathname === "/down") return new Response("down", { status: 503 });
    return calls < 3 ? new Response("busy", { status: 502 }) : new Response("up");
  });
  const reader = new HttpReader(local);
  assert.equal((await reader.read(`${server.origin}/flaky`)).text, "up");
  assert.equal(calls, 3);
  const down = await reader.read(`${server.origin}/down`);
  assert.equal(down.status, 503);
  assert.equal(calls, 6);
});

Deno.test("an unreachable host is a ToolError that names it", async () => {
  const origin = await closedOrigin();
  await assert.rejects(
    new HttpReader(local).read(`${origin}/`),
    (error: Error) =>
      error instanceof ToolError && error.message.includes(new URL(origin).host) &&
      /Could not reach/.test(error.message),
  );
});

Deno.test("sends a browser-compatible User-Agent naming us, and prefers HTML", async () => {
  await using server = localServer(() => new Response("ok"));
  await new HttpReader(local).read(server.origin);
  const headers = server.received[0].headers;
  assert.match(
    headers.get("user-agent")!,
    /^Mozilla\/5\.0 \(compatible; outpost-agent-tools\/\d+\.\d+\.\d+; \+https:\/\//,
  );
  assert.match(headers.get("accept")!, /^text\/html/);
  await new HttpReader({ ...local, userAgent: "my-agent/1" }).read(`${server.origin}/2`);
  assert.equal(server.received[1].headers.get("user-agent"), "my-agent/1");
});

Deno.test("pages are cached per reader, so paging reads one version", async () => {
  let version = 0;
  await using server = localServer(() => new Response(`version ${++version}`));
  const reader = new HttpReader(local);
  assert.equal((await reader.read(server.origin)).text, "version 1");
  assert.equal((await reader.read(server.origin)).text, "version 1");
  assert.equal((await new HttpReader(local).read(server.origin)).text, "version 2");
  const uncached = new HttpReader({ ...local, cacheTtlMs: 0 });
  await uncached.read(server.origin);
  assert.equal((await uncached.read(server.origin)).text, "version 4");
});

Deno.test("a failing cache never fails a fetch", async () => {
  await using server = localServer(() => new Response("fine"));
  const broken = {
    get: () => Promise.reject(new Error("cache down")),
    set: () => Promise.reject(new Error("cache down")),
  };
  const page = await new HttpReader({ ...local, cache: broken }).read(server.origin);
  assert.equal(page.text, "fine");
});

Deno.test("images come only when asked for, from the same cached page", async () => {
  await using server = localServer(() =>
    new Response('<img src="/a.png" alt="A"><p>text</p>', {
      headers: { "content-type": "text/html" },
    })
  );
  const reader = new HttpReader(local);
  const plain: Page = await reader.read(server.origin);
  assert.deepEqual(plain.images, []);
  const withImages = await reader.read(server.origin, { images: true });
  assert.deepEqual(withImages.images, [{ url: `${server.origin}/a.png`, alt: "A" }]);
  assert.equal(server.received.length, 1);
});

Deno.test("malformed URLs and other schemes are ToolErrors", async () => {
  const reader = new HttpReader();
  await assert.rejects(
    reader.read("not a url"),
    (e: Error) => e instanceof ToolError && /Malformed/.test(e.message),
  );
  await assert.rejects(
    reader.read("file:///etc/passwd"),
    (e: Error) => e instanceof ToolError && /scheme/.test(e.message),
  );
  await assert.rejects(reader.read("ftp://example.com/"), ToolError);
});

Deno.test("bad options are SetupErrors", () => {
  assert.throws(() => new HttpReader({ timeoutMs: 0 }), SetupError);
  assert.throws(() => new HttpReader({ maxBytes: -1 }), SetupError);
  assert.throws(() => new HttpReader({ cacheTtlMs: -5 }), SetupError);
  assert.throws(() => new HttpReader({ cacheSize: 0 }), SetupError);
  assert.throws(() => new HttpReader({ userAgent: " " }), SetupError);
});

Deno.test("a 5xx answer is not cached: the next read refetches and sees the recovery", async () => {
  let calls = 0;
  await using server = localServer(() => {
    calls++;
    return calls <= 3 ? new Response("down", { status: 503 }) : new Response("up");
  });
  const reader = new HttpReader(local);
  assert.equal((await reader.read(server.origin)).status, 503);
  const again = await reader.read(server.origin);
  assert.equal(again.status, 200);
  assert.equal(again.text, "up");
  assert.equal(calls, 4);
});

Deno.test("a connection failure is tried three times, then is a ToolError", async () => {
  let attempts = 0;
  const reader = new HttpReader({
    ...local,
    fetch: () => {
      attempts++;
      return Promise.reject(new TypeError("error sending request: connection reset"));
    },
  });
  await assert.rejects(
    reader.read("http://127.0.0.1:9/"),
    (error: Error) => error instanceof ToolError && /connection was dropped/.test(error.message),
  );
  assert.equal(attempts, 3);
});

Deno.test("untyped bodies: HTML after comments or a <meta> is sniffed; non-text is not text", async () => {
  const bodies = [
    "\n<!-- generated --><p>Hello</p>",
    "<meta charset=utf-8><title>T</title><p>Hello</p>",
    "plain words",
    "\u0001\u0002\u0003 data",
  ];
  await using server = localServer((request) =>
    new Response(new TextEncoder().encode(bodies[Number(new URL(request.url).pathname.slice(1))]))
  );
  const reader = new HttpReader(local);
  const pages = await Promise.all(bodies.map((_, i) => reader.read(`${server.origin}/${i}`)));
  assert.deepEqual(pages.map((p) => [p.mediaType, p.text]), [
    ["text/html", "Hello"],
    ["text/html", "Hello"],
    ["text/plain", "plain words"],
    ["", "(binary content not shown: unknown type, 8 bytes)"],
  ]);
});

Deno.test("a size cap inside a character drops it, whatever label names the charset", async () => {
  const utf16 = (text: string, big: boolean) => {
    const bytes = new Uint8Array(text.length * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), !big);
    return bytes;
  };
  const cases: [string, Uint8Array<ArrayBuffer>, number][] = [
    ["utf-8", new TextEncoder().encode("abé"), 3],
    ["utf8", new TextEncoder().encode("abé"), 3],
    ["UTF8", new TextEncoder().encode("ab€"), 4],
    ["unicode-1-1-utf-8", new TextEncoder().encode("ab🙂"), 5],
    ["unicode", utf16("ab🙂", false), 6],
    ["ucs-2", utf16("ab🙂", false), 5],
    ["utf-16be", utf16("ab🙂", true), 6],
  ];
  for (const [label, body, maxBytes] of cases) {
    await using server = localServer(() =>
      new Response(body, { headers: { "content-type": `text/plain; charset=${label}` } })
    );
    const page = await new HttpReader({ ...local, maxBytes }).read(server.origin);
    assert.equal(page.sizeCapped, true, label);
    assert.equal(page.text, "ab", label);
  }
});

Deno.test("UTF-16 bodies labelled by any of the standard's names are text, not binary", async () => {
  const text = "héllo wörld";
  const le = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) le[i * 2] = text.charCodeAt(i);
  for (const label of ["utf-16le", "utf-16", "unicode", "ucs-2", "csunicode", "unicodefeff"]) {
    await using server = localServer(() =>
      new Response(le, { headers: { "content-type": `text/plain; charset=${label}` } })
    );
    const page = await new HttpReader(local).read(server.origin);
    assert.equal(page.text, text, label);
    assert.equal(page.mediaType, "text/plain", label);
  }
  // In a <meta> that is readable as ASCII, any UTF-16 name means UTF-8, as in browsers.
  await using meta = localServer(() =>
    new Response('<meta charset="ucs-2"><p>café</p>', { headers: { "content-type": "text/html" } })
  );
  assert.equal((await new HttpReader(local).read(meta.origin)).text, "café");
});

Deno.test({
  name: "an answer from a fetch that followed a redirect itself is refused",
  timeout: 30_000,
  async fn() {
    // A guard test: this fetch never connects; it claims it was redirected to a private address.
    const landing = (url: string, redirected: boolean) => () => {
      const response = new Response("secret");
      Object.defineProperty(response, "url", { value: url });
      Object.defineProperty(response, "redirected", { value: redirected });
      return Promise.resolve(response);
    };
    for (
      const [url, redirected] of [
        ["http://169.254.169.254/latest/", true],
        ["http://169.254.169.254/latest/", false],
        ["https://example.org/final", true],
        ["https://example.org/final", false],
        ["https://example.com/", true],
      ] as const
    ) {
      await assert.rejects(
        new HttpReader({ fetch: landing(url, redirected) }).read("https://example.com/"),
        (error: Error) =>
          error instanceof ToolError && /followed a redirect itself/.test(error.message),
        url,
      );
    }
  },
});

Deno.test({
  name: "a fetch that follows a real redirect is caught, and the hop is never read",
  timeout: 30_000,
  async fn() {
    await using server = localServer((request) =>
      new URL(request.url).pathname === "/start"
        ? new Response(null, { status: 302, headers: { location: "/secret" } })
        : new Response("secret")
    );
    const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: "follow" });
    await assert.rejects(
      new HttpReader({ ...local, fetch: following }).read(`${server.origin}/start`),
      (error: Error) => error instanceof ToolError && /followed a redirect/.test(error.message),
    );
  },
});

Deno.test("requests always go out with redirect: manual", async () => {
  const seen: (RequestRedirect | undefined)[] = [];
  const fetch: typeof globalThis.fetch = (_input, init) => {
    seen.push(init?.redirect);
    return Promise.resolve(
      seen.length === 1
        ? new Response(null, { status: 301, headers: { location: "/next" } })
        : new Response("ok"),
    );
  };
  await new HttpReader({ fetch }).read("https://example.com/");
  assert.deepEqual(seen, ["manual", "manual"]);
});

Deno.test("timeoutMs beyond setTimeout's range and a bad cacheSize are SetupErrors", () => {
  assert.throws(() => new HttpReader({ timeoutMs: 2 ** 31 }), SetupError);
  assert.throws(
    () => new HttpReader({ cacheSize: 0 }),
    (error: Error) => error instanceof SetupError && /cacheSize/.test(error.message),
  );
});

/** A guard-test fetch: records each URL and answers with `answer`; it never connects. */
function recordingFetch(answer: (url: string, index: number) => Response) {
  const urls: string[] = [];
  const fetch = (input: string | URL | Request): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    urls.push(url);
    return Promise.resolve(answer(url, urls.length - 1));
  };
  return { urls, fetch: fetch as typeof globalThis.fetch };
}

/** A body that never sends a byte and records whether it was cancelled. */
function silentBody() {
  let cancelled = false;
  let pulled!: () => void;
  const reading = new Promise<void>((resolve) => (pulled = resolve));
  const stream = new ReadableStream<Uint8Array>({
    pull() {
      pulled();
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    reading,
    get cancelled() {
      return cancelled;
    },
  };
}

Deno.test("every redirect hop is guarded, not only the first", async () => {
  for (const location of ["http://169.254.169.254/latest", "http://127.1/"]) {
    const { urls, fetch } = recordingFetch(() =>
      new Response(null, { status: 302, headers: { location } })
    );
    await assert.rejects(
      new HttpReader({ fetch }).read("https://pub.example/"),
      (error: Error) => error instanceof ToolError && /private or local/.test(error.message),
      location,
    );
    assert.deepEqual(urls, ["https://pub.example/"]);
  }
});

Deno.test("a cached redirect is held to the policy of the later read, without a request", async () => {
  await using server = localServer((request) =>
    new URL(request.url).pathname === "/go"
      ? new Response(null, { status: 302, headers: { location: "/b" } })
      : new Response("landed", { headers: { "content-type": "text/plain" } })
  );
  const reader = new HttpReader(local);
  assert.equal((await reader.read(`${server.origin}/go`)).text, "landed");
  await assert.rejects(
    reader.read(`${server.origin}/go`, { policy: { permits: (url) => !url.endsWith("/b") } }),
    (error: Error) =>
      error instanceof ToolError &&
      error.message.includes(`redirected to a page on ${new URL(server.origin).host}`),
  );
  assert.equal(server.received.length, 2);
});

Deno.test("aborting mid-body rejects with the caller's own reason object", async () => {
  using feed = dripFeed(10);
  await using server = localServer(() => feed.response());
  const controller = new AbortController();
  const reason = new Error("caller gave up");
  const reading = new HttpReader(local).read(server.origin, { signal: controller.signal });
  await server.arrived(1);
  controller.abort(reason);
  await assert.rejects(reading, (error) => error === reason);
  await waitFor(() => feed.cancelled, "the body to be cancelled");
});

Deno.test("an abort cancels the body even when the fetch ignores the signal", async () => {
  const body = silentBody();
  const reader = new HttpReader({
    ...local,
    fetch: () => Promise.resolve(new Response(body.stream)),
  });
  const controller = new AbortController();
  const reason = new Error("stop");
  const reading = reader.read("http://127.0.0.1:9/", { signal: controller.signal });
  await body.reading;
  controller.abort(reason);
  await assert.rejects(reading, (error) => error === reason);
  assert.equal(body.cancelled, true);
});

Deno.test("an abort before a signal-ignoring fetch answers still ends the read", async () => {
  const body = silentBody();
  let answer!: (response: Response) => void;
  let called!: () => void;
  const fetched = new Promise<void>((resolve) => (called = resolve));
  const reader = new HttpReader({
    ...local,
    fetch: () => {
      called();
      return new Promise<Response>((resolve) => (answer = resolve));
    },
  });
  const controller = new AbortController();
  const reason = new Error("stop");
  const reading = reader.read("http://127.0.0.1:9/", { signal: controller.signal });
  await fetched;
  controller.abort(reason);
  answer(new Response(body.stream));
  await assert.rejects(reading, (error) => error === reason);
  // The caller is released at once; the abandoned request cancels the late body.
  await waitFor(() => body.cancelled, "the late body to be cancelled");
});

Deno.test("a 503 body is cancelled before the retry", async () => {
  const body = silentBody();
  const { urls, fetch } = recordingFetch((_url, index) =>
    index === 0 ? new Response(body.stream, { status: 503 }) : new Response("ok")
  );
  const page = await new HttpReader({ ...local, fetch }).read("http://127.0.0.1:9/");
  assert.equal(page.text, "ok");
  assert.equal(urls.length, 2);
  assert.equal(body.cancelled, true);
});

Deno.test("a redirect's body is cancelled before the next hop", async () => {
  const body = silentBody();
  const { urls, fetch } = recordingFetch((_url, index) =>
    index === 0
      ? new Response(body.stream, { status: 302, headers: { location: "/next" } })
      : new Response("ok")
  );
  const page = await new HttpReader({ ...local, fetch }).read("http://127.0.0.1:9/");
  assert.equal(page.text, "ok");
  assert.deepEqual(urls, ["http://127.0.0.1:9/", "http://127.0.0.1:9/next"]);
  assert.equal(body.cancelled, true);
});

Deno.test("a stale entry from a custom cache is not served", async () => {
  await using server = localServer(() =>
    new Response("fresh", { headers: { "content-type": "text/plain" } })
  );
  const stale: Page = {
    url: `${server.origin}/`,
    status: 200,
    mediaType: "text/plain",
    text: "stale",
    images: [],
    sizeCapped: false,
  };
  const clock = new FakeClock();
  const reader = new HttpReader({
    ...local,
    clock,
    cacheTtlMs: 1_000,
    cache: {
      get: () => Promise.resolve({ storedAt: clock.now() - 1_000, page: stale }),
      set: () => Promise.resolve(),
    },
  });
  assert.equal((await reader.read(server.origin)).text, "fresh");
  assert.equal(server.received.length, 1);
});

Deno.test("the default cache keeps time by the reader's clock", { timeout: 60_000 }, async () => {
  await using server = localServer(() => new Response("page"));
  // Months behind the machine's time: a cache on Date.now() would find every entry expired.
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const reader = new HttpReader({ ...local, clock, cacheTtlMs: 60_000 });
  await reader.read(server.origin);
  await clock.advance(59_999);
  await reader.read(server.origin);
  assert.equal(server.received.length, 1, "served from the cache within the TTL");
  await clock.advance(1);
  await reader.read(server.origin);
  assert.equal(server.received.length, 2, "read again once the TTL has passed");
});

Deno.test("a custom fetch reporting the URL without its fragment has not moved", async () => {
  // A guard test: the fetch never connects; like fetch, it drops the fragment from response.url.
  const { urls, fetch } = recordingFetch((url) => {
    const response = new Response("same page");
    Object.defineProperty(response, "url", { value: url.replace(/#.*$/, "") });
    return response;
  });
  const page = await new HttpReader({ fetch }).read("https://pub.example/doc#part", {
    policy: { permits: (url) => url.includes("#") },
  });
  assert.equal(page.url, "https://pub.example/doc#part");
  assert.deepEqual(urls, ["https://pub.example/doc#part"]);
});

Deno.test("fifty concurrent reads of one URL make one request and share its page", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  let requests = 0;
  await using server = localServer(async () => {
    requests++;
    await release;
    return new Response("<h1>Shared</h1>", { headers: { "content-type": "text/html" } });
  });
  const reader = new HttpReader(local);
  const reads = Array.from({ length: 50 }, () => reader.read(`${server.origin}/page`));
  await server.arrived(1);
  resolve();
  const pages = await Promise.all(reads);
  assert.equal(requests, 1);
  assert.ok(pages.every((page) => page.text === "# Shared"));
});

Deno.test("one caller's abort leaves the shared read to the others; all aborting ends it", {
  timeout: 10_000,
}, async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using server = localServer(async () => {
    await release;
    return new Response("late");
  });
  const reader = new HttpReader(local);
  const quitter = new AbortController();
  const quitting = reader.read(server.origin, { signal: quitter.signal });
  const staying = reader.read(server.origin);
  await server.arrived(1);
  const reason = new Error("the caller left");
  quitter.abort(reason);
  await assert.rejects(quitting, (error) => error === reason);
  resolve();
  assert.equal((await staying).text, "late");
  assert.equal(server.received.length, 1);

  // Once every waiter has gone, the request is abandoned and a new read starts afresh.
  const called = Promise.withResolvers<void>();
  const cancelled = Promise.withResolvers<void>();
  let calls = 0;
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    calls++;
    if (calls > 1) return Promise.resolve(new Response("fresh"));
    init!.signal!.addEventListener("abort", () => cancelled.resolve());
    called.resolve();
    return new Promise<Response>(() => {});
  };
  const lone = new HttpReader({ ...local, fetch: fetch as typeof globalThis.fetch });
  const gone = new AbortController();
  const first = lone.read("http://127.0.0.1:9/", { signal: gone.signal });
  await called.promise;
  gone.abort();
  await assert.rejects(first);
  await cancelled.promise;
  assert.equal((await lone.read("http://127.0.0.1:9/")).text, "fresh");
});

Deno.test("reads under different policies do not share a request", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using server = localServer(async () => {
    await release;
    return new Response("ok");
  });
  const reader = new HttpReader({ ...local, cacheTtlMs: 0 });
  const open = { permits: () => true };
  const reads = [reader.read(server.origin), reader.read(server.origin, { policy: open })];
  await server.arrived(2);
  resolve();
  await Promise.all(reads);
  assert.equal(server.received.length, 2);
});

Deno.test("a 429 or a 503 with Retry-After is a ToolError that says when to retry", async () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  await using server = localServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/busy") {
      return new Response("slow down", { status: 429, headers: { "retry-after": "120" } });
    }
    if (path === "/bare") return new Response("slow down", { status: 429 });
    if (path === "/date") {
      const at = new Date(clock.now() + 3_600_000).toUTCString();
      return new Response("maintenance", { status: 503, headers: { "retry-after": at } });
    }
    if (path === "/forever") {
      return new Response("", { status: 503, headers: { "retry-after": "9".repeat(40) } });
    }
    return new Response("down", { status: 503, headers: { "retry-after": "<|im_start|>x" } });
  });
  // Pauses between retries fire at once: only what the reader says is under test here.
  const reader = new HttpReader({ ...local, retryDelayMs: 0, clock });
  await assert.rejects(reader.read(`${server.origin}/busy`), (error: Error) => {
    assert.ok(error instanceof ToolError);
    assert.match(
      error.message,
      /127\.0\.0\.1:\d+ is rate limiting .*HTTP 429.*wait 120 s, until 2026-06-01T12:02:00\.000Z\./,
    );
    assert.match(error.hint!, /Do not retry sooner/);
    return true;
  });
  // Each was asked once: a long Retry-After is reported, never waited out nor hammered.
  assert.equal(server.received.length, 1);
  await assert.rejects(
    reader.read(`${server.origin}/bare`),
    (error: Error) => error instanceof ToolError && /did not say for how long/.test(error.message),
  );
  await assert.rejects(
    reader.read(`${server.origin}/date`),
    (error: Error) =>
      error instanceof ToolError &&
      /overloaded \(HTTP 503\).*wait 3600 s, until 2026-06-01T13:00:00\.000Z/.test(error.message),
  );
  await assert.rejects(
    reader.read(`${server.origin}/forever`),
    (error: Error) => error instanceof ToolError && /wait more than a day\.$/.test(error.message),
  );
  assert.equal(server.received.length, 4);
  // A Retry-After that is not one is ignored: a plain 503, retried, then shown as the page.
  const page = await reader.read(`${server.origin}/junk`);
  assert.equal(page.status, 503);
  assert.equal(server.received.length, 7);
});

Deno.test(
  "a short Retry-After is waited out and the read retried",
  { timeout: 20_000 },
  async () => {
    await using server = localServer((_request, index) =>
      index === 0
        ? new Response("wait", { status: 429, headers: { "retry-after": "2" } })
        : new Response("served")
    );
    const clock = new FakeClock();
    const reading = new HttpReader({ ...local, clock }).read(server.origin);
    // The reader waits exactly the two seconds asked for (beside its 30 s timeout), no sooner.
    await clock.waitForTimers(2, "the Retry-After pause");
    assert.deepEqual(clock.pending, [2_000, 30_000]);
    await clock.advance(1_999);
    assert.equal(server.received.length, 1);
    await clock.advance(1);
    assert.equal((await reading).text, "served");
    assert.equal(server.received.length, 2);
  },
);

Deno.test("a 502/503/504 or a dropped connection is retried twice after doubling pauses", {
  timeout: 20_000,
}, async () => {
  await using server = localServer((_request, index) =>
    index < 2 ? new Response("busy", { status: 503 }) : new Response("served")
  );
  const clock = new FakeClock();
  const reading = new HttpReader({ ...local, retryDelayMs: 1_000, clock }).read(server.origin);
  // Each pause is the delay, doubled per attempt, plus up to a quarter of jitter.
  for (const [attempt, delay] of [[1, 1_000], [2, 2_000]]) {
    await clock.waitForTimers(2, `pause ${attempt}`);
    const pause = clock.pending[0];
    assert.ok(pause >= delay && pause <= delay * 1.25, `pause ${attempt}: ${pause} ms`);
    await clock.advance(pause - 1);
    assert.equal(server.received.length, attempt);
    await clock.advance(1);
  }
  assert.equal((await reading).text, "served");
  assert.equal(server.received.length, 3);
});

Deno.test("retryDelayMs is checked", () => {
  assert.throws(() => new HttpReader({ retryDelayMs: -1 }), SetupError);
  assert.throws(() => new HttpReader({ retryDelayMs: 2 ** 31 }), SetupError);
});

Deno.test({
  name: "a shared cache never hands a page read with less checking to a guarded reader",
  timeout: 30_000,
  async fn() {
    // A guard test: the fetches never connect; a resolver says where the name points.
    const cache = new MemoryUrlCache();
    const fetch = () => Promise.resolve(new Response("intranet secret"));
    const open = new HttpReader({ cache, fetch, allowPrivateNetwork: true });
    assert.equal((await open.read("http://10.0.0.7/")).text, "intranet secret");
    assert.equal((await open.read("https://wiki.corp.example/")).text, "intranet secret");
    const literal = new HttpReader({ cache, fetch });
    await assert.rejects(literal.read("http://10.0.0.7/"), /private or local/);
    // Without a resolver the name passes; a reader that resolves names must not reuse its page.
    assert.equal((await literal.read("https://wiki.corp.example/")).text, "intranet secret");
    const resolving = new HttpReader({
      cache,
      fetch: () => Promise.reject(new Error("must not connect")),
      resolveHost: () => Promise.resolve(["10.0.0.8"]),
    });
    await assert.rejects(resolving.read("http://10.0.0.7/"), /private or local/);
    await assert.rejects(resolving.read("https://wiki.corp.example/"), /resolves to "?10\.0\.0\.8/);
  },
});

Deno.test("a ToolError thrown by the fetch (a pinning proxy's refusal) is final: one attempt, its own words", async () => {
  let attempts = 0;
  const reader = new HttpReader({
    ...local,
    fetch: () => {
      attempts++;
      return Promise.reject(new ToolError("The address of pinned.test is private.", { hint: "h" }));
    },
  });
  await assert.rejects(reader.read("https://pinned.test/"), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.message, "The address of pinned.test is private.");
    return true;
  });
  assert.equal(attempts, 1);
});
