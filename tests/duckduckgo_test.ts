import assert from "node:assert/strict";
import { FENCE_BEGIN, FENCE_END, SetupError, ToolError, VERSION, webSearch } from "../mod.ts";
import { DuckDuckGoSearch } from "../src/search/mod.ts";
import { closedOrigin, cutOffServer, endless, localServer } from "./support/local_server.ts";

// Fixtures written for these tests in the shape of DuckDuckGo's no-JS result page: result items
// (`result__a` title link, `result__url`, `result__snippet`), ads marked `result--ad` and linked
// through `y.js`, and a next-page form in `.nav-link` whose hidden inputs carry `vqd`.

interface Hit {
  title: string;
  href: string;
  shown: string;
  snippet: string;
  ad?: boolean;
}

function wrapped(target: string): string {
  return `//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=f00d${target.length}`;
}

function resultItem(hit: Hit): string {
  const kind = hit.ad ? "result--ad" : "web-result";
  return `
  <div class="result results_links results_links_deep ${kind}">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="${hit.href}">${hit.title}</a>
      </h2>
      <div class="result__extras">
        <div class="result__extras__url">
          <a class="result__url" href="${hit.href}">${hit.shown}</a>
        </div>
      </div>
      <a class="result__snippet" href="${hit.href}">${hit.snippet}</a>
      <div class="clear"></div>
    </div>
  </div>`;
}

function navForm(label: string, fields: Record<string, string>): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}" />`)
    .join("\n      ");
  return `
  <div class="nav-link">
    <form action="/html/" method="post">
      <input type="submit" class="btn btn--alt" value="${label}" />
      ${hidden}
    </form>
  </div>`;
}

function resultPage(query: string, items: string[], nav = ""): string {
  return `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>${query} at DuckDuckGo</title></head>
<body>
  <div class="header">
    <form id="search_form" name="x" action="/html/" method="post">
      <input type="text" name="q" class="search__input" value="${query}" />
      <input type="submit" class="search__button" value="S" />
    </form>
  </div>
  <div id="links" class="results">
  ${items.join("\n")}
  ${nav}
  </div>
</body>
</html>`;
}

const NEXT_FIELDS = {
  q: "deno",
  s: "10",
  nextParams: "",
  v: "l",
  o: "json",
  dc: "11",
  api: "d.js",
  vqd: "4-27182818284590452353602874713527",
  kl: "wt-wt",
};

const noResultsPage = resultPage("zzqxj", [
  `<div class="result result--no-result"><div class="no-results">No results.</div></div>`,
]);

const challengePage = `<!DOCTYPE html>
<html><body>
  <div class="anomaly-modal__mask">
    <div class="anomaly-modal__modal" data-testid="anomaly-modal">
      <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
      <form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST">
        <input type="hidden" name="challenge" value="abc" />
        <button type="submit" class="anomaly-modal__image_btn" name="img_click" value="1">pick</button>
      </form>
    </div>
  </div>
</body></html>`;

const unreadablePage = `<!DOCTYPE html>
<html><body><main><h1>Welcome</h1><p>Nothing that looks like a result list.</p></main></body></html>`;

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

function form(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}

function backend(origin: string, extra: { region?: string } = {}): DuckDuckGoSearch {
  return new DuckDuckGoSearch({
    endpoint: `${origin}/html/`,
    pageDelayMs: 0,
    retryDelayMs: 0,
    ...extra,
  });
}

Deno.test("unwraps redirect links, skips ads, drops highlights and decodes entities", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() =>
    html(resultPage("deno", [
      resultItem({
        title: "Sponsored <b>Deno</b> hosting",
        href: "https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=x&amp;u3=1",
        shown: "ads.example",
        snippet: "Buy now",
        ad: true,
      }),
      resultItem({
        title: "Ad linked straight to the advertiser",
        href: "https://ads.example/landing?utm=1",
        shown: "ads.example",
        snippet: "Still an ad",
        ad: true,
      }),
      resultItem({
        title: "<b>Deno</b>, the next-generation JavaScript runtime",
        href: wrapped("https://deno.com/"),
        shown: "deno.com",
        snippet: "<b>Deno</b> features improved security &amp; performance &#x2014; it&#39;s fast.",
      }),
      resultItem({
        title: "Manual &lt;intro&gt;",
        href: wrapped("https://docs.deno.com/runtime/?tab=a&b=c d"),
        shown: "docs.deno.com/runtime",
        snippet: "Learn   how\n  to use <b>Deno</b>.",
      }),
    ]))
  );
  const search = webSearch(
    new DuckDuckGoSearch({ endpoint: `${server.origin}/html/`, region: "de-DE" }),
  );
  const out = await search.execute({ query: "deno", max_results: 5, time_range: "w" });
  assert.equal(
    out,
    [
      FENCE_BEGIN,
      "1. Deno, the next-generation JavaScript runtime",
      "https://deno.com/",
      "Deno features improved security & performance — it's fast.",
      "",
      "2. Manual <intro>",
      "https://docs.deno.com/runtime/?tab=a&b=c%20d",
      "Learn how to use Deno.",
      FENCE_END,
    ].join("\n"),
  );
  assert.equal(server.received.length, 1);
  const [request] = server.received;
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/html/");
  assert.match(request.headers.get("content-type") ?? "", /application\/x-www-form-urlencoded/);
  assert.equal(
    request.headers.get("user-agent"),
    `Mozilla/5.0 (compatible; outpost-agent-tools/${VERSION}; +https://jsr.io/@outpost/agent-tools)`,
  );
  assert.deepEqual(form(request.body), { q: "deno", kl: "de-de", df: "w" });
});

Deno.test("keeps direct links as they are and leaves out df without a time range", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() =>
    html(resultPage("rust", [
      resultItem({
        title: "Rust Programming Language",
        href: "https://www.rust-lang.org/",
        shown: "www.rust-lang.org",
        snippet: "A language empowering everyone.",
      }),
      resultItem({
        title: "Rust ad",
        href: "//duckduckgo.com/y.js?ad_domain=x.example",
        shown: "x.example",
        snippet: "ad without the ad class",
      }),
      resultItem({
        title: "The Book",
        href: "http://doc.rust-lang.org/book/ch01-00.html#installation",
        shown: "doc.rust-lang.org/book",
        snippet: "",
      }),
    ]))
  );
  const results = await backend(server.origin).search("rust", { maxResults: 10 });
  assert.deepEqual(results, [
    {
      title: "Rust Programming Language",
      url: "https://www.rust-lang.org/",
      snippet: "A language empowering everyone.",
    },
    {
      title: "The Book",
      url: "http://doc.rust-lang.org/book/ch01-00.html#installation",
      snippet: "",
    },
  ]);
  assert.deepEqual(form(server.received[0].body), { q: "rust", kl: "wt-wt" });
});

function hits(prefix: string, count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) =>
    resultItem({
      title: `${prefix} ${from + i}`,
      href: wrapped(`https://${prefix}.example/${from + i}`),
      shown: `${prefix}.example/${from + i}`,
      snippet: `About ${prefix} ${from + i}.`,
    }));
}

Deno.test("follows the next-page form with its hidden fields, vqd included", {
  timeout: 60_000,
}, async () => {
  await using server = localServer((_request, index) =>
    index === 0
      ? html(resultPage("deno", hits("page", 3), navForm("Next", NEXT_FIELDS)))
      : html(resultPage(
        "deno",
        // The second page repeats the last hit of the first; it is shown once.
        hits("page", 4, 3),
        navForm("Previous", { ...NEXT_FIELDS, s: "0" }) +
          navForm("Next", { ...NEXT_FIELDS, s: "25", dc: "26" }),
      ))
  );
  const results = await backend(server.origin).search("deno", { maxResults: 5 });
  assert.deepEqual(
    results.map((r) => r.url),
    [1, 2, 3, 4, 5].map((n) => `https://page.example/${n}`),
  );
  assert.equal(server.received.length, 2);
  assert.equal(server.received[1].method, "POST");
  assert.equal(server.received[1].path, "/html/");
  assert.deepEqual(form(server.received[1].body), NEXT_FIELDS);
});

Deno.test("reads one page when it holds enough results", { timeout: 60_000 }, async () => {
  await using server = localServer(() =>
    html(resultPage("deno", hits("one", 10), navForm("Next", NEXT_FIELDS)))
  );
  const results = await backend(server.origin).search("deno", { maxResults: 3 });
  assert.equal(results.length, 3);
  assert.equal(server.received.length, 1);
});

Deno.test("stops at the last page and keeps what an unreadable later page would lose", {
  timeout: 60_000,
}, async () => {
  await using server = localServer((_request, index) =>
    index === 0
      ? html(resultPage("deno", hits("p", 2), navForm("Next", NEXT_FIELDS)))
      : html("", 202)
  );
  const notices: string[] = [];
  const results = await backend(server.origin).search("deno", {
    maxResults: 20,
    onNotice: (notice) => notices.push(notice),
  });
  assert.equal(results.length, 2);
  assert.equal(server.received.length, 2);
  assert.deepEqual(notices, [
    "Fewer results than asked for: page 2 of DuckDuckGo's results failed. DuckDuckGo is rate limiting this address: it sent a challenge, not results.",
  ]);
});

Deno.test("the model is told when a later page failed, after the results it does get", {
  timeout: 60_000,
}, async () => {
  await using server = localServer((_request, index) =>
    index === 0
      ? html(resultPage("deno", hits("p", 2), navForm("Next", NEXT_FIELDS)))
      : html(challengePage)
  );
  const search = webSearch(
    new DuckDuckGoSearch({ endpoint: `${server.origin}/html/`, pageDelayMs: 0 }),
  );
  const out = await search.execute({ query: "deno", max_results: 10 });
  assert.equal(
    out,
    [
      FENCE_BEGIN,
      "1. p 1",
      "https://p.example/1",
      "About p 1.",
      "",
      "2. p 2",
      "https://p.example/2",
      "About p 2.",
      FENCE_END,
      "Fewer results than asked for: page 2 of DuckDuckGo's results failed. DuckDuckGo is rate limiting this address: it sent a challenge, not results.",
    ].join("\n"),
  );
});

Deno.test("a shortened display address does not stand in for an unusable link", {
  timeout: 60_000,
}, async () => {
  // Links back into DuckDuckGo that are no redirect leave only the shown address to go by.
  const unusable = "//duckduckgo.com/html/?q=more";
  await using server = localServer(() =>
    html(resultPage("deno", [
      resultItem({
        title: "Shortened",
        href: unusable,
        shown: "www.example.com/docs/a/very/long/pa…",
        snippet: "Cut with an ellipsis.",
      }),
      resultItem({
        title: "Shortened with dots",
        href: unusable,
        shown: "www.example.com/docs/a/very/long/pa...",
        snippet: "Cut with three dots.",
      }),
      resultItem({
        title: "Whole",
        href: unusable,
        shown: "docs.example.org/guide",
        snippet: "Shown in full.",
      }),
    ]))
  );
  assert.deepEqual(await backend(server.origin).search("deno", { maxResults: 5 }), [
    { title: "Whole", url: "https://docs.example.org/guide", snippet: "Shown in full." },
  ]);
});

Deno.test("does not follow a next-page form that posts to another origin", {
  timeout: 60_000,
}, async () => {
  const requested: string[] = [];
  await using server = localServer(() =>
    html(resultPage(
      "deno",
      hits("p", 2),
      navForm("Next", NEXT_FIELDS).replace(
        'action="/html/"',
        'action="https://elsewhere.test/html/"',
      ),
    ))
  );
  const search = new DuckDuckGoSearch({
    endpoint: `${server.origin}/html/`,
    pageDelayMs: 0,
    fetch(input, init) {
      const url = input instanceof Request ? input.url : String(input);
      requested.push(url);
      if (!url.startsWith(server.origin)) throw new TypeError("test fetch: refused");
      return fetch(input, init);
    },
  });
  const results = await search.search("deno", { maxResults: 10 });
  assert.equal(results.length, 2);
  assert.deepEqual(requested, [`${server.origin}/html/`]);
});

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof ToolError, `expected a ToolError, got ${error}`);
  return error;
}

Deno.test("HTTP 202 is rate limiting, reported with the Tavily hint and not retried", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() => html("<html><body></body></html>", 202));
  const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
  assert.match(error.message, /DuckDuckGo is rate limiting this address/);
  assert.match(error.hint ?? "", /Tavily/);
  assert.equal(server.received.length, 1);
});

Deno.test("an anomaly challenge page is rate limiting, not zero results", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() => html(challengePage));
  const search = webSearch(
    new DuckDuckGoSearch({ endpoint: `${server.origin}/html/`, retryDelayMs: 0 }),
  );
  const error = await rejection(search.execute({ query: "deno" }));
  assert.match(error.message, /rate limiting/);
  assert.match(error.hint ?? "", /keyed search backend such as Tavily/);
});

Deno.test("a genuine no-results page is an empty list", { timeout: 60_000 }, async () => {
  await using server = localServer(() => html(noResultsPage));
  assert.deepEqual(await backend(server.origin).search("zzqxj", { maxResults: 5 }), []);
  const search = webSearch(new DuckDuckGoSearch({ endpoint: `${server.origin}/html/` }));
  assert.equal(await search.execute({ query: "zzqxj" }), "No results.");
});

Deno.test("a page whose layout cannot be parsed is an error, not zero results", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() => html(unreadablePage));
  const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
  assert.match(error.message, /cannot read/);
});

Deno.test("5xx is retried twice, then succeeds", { timeout: 60_000 }, async () => {
  await using server = localServer((_request, index) =>
    index < 2 ? html("busy", 503) : html(resultPage("deno", hits("ok", 2)))
  );
  const results = await backend(server.origin).search("deno", { maxResults: 5 });
  assert.equal(results.length, 2);
  assert.equal(server.received.length, 3);
  for (const request of server.received) assert.deepEqual(form(request.body).q, "deno");
});

Deno.test("5xx on every attempt is an error after three requests", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() => html("down", 500));
  const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
  assert.match(error.message, /HTTP 500/);
  assert.equal(server.received.length, 3);
});

Deno.test("4xx is never retried", { timeout: 60_000 }, async () => {
  await using server = localServer(() => html("gone", 404));
  const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
  assert.match(error.message, /HTTP 404/);
  assert.equal(server.received.length, 1);
});

Deno.test("a transport failure names the host", { timeout: 60_000 }, async () => {
  const origin = await closedOrigin();
  const error = await rejection(backend(origin).search("deno", { maxResults: 5 }));
  assert.match(error.message, new RegExp(`Could not reach DuckDuckGo at ${new URL(origin).host}`));
});

Deno.test("a connection that breaks mid-page is a network problem that names the host", {
  timeout: 60_000,
}, async () => {
  await using server = cutOffServer(resultPage("deno", hits("cut", 3)).slice(0, 600));
  const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
  assert.match(
    error.message,
    new RegExp(`^The connection to DuckDuckGo at ${new URL(server.origin).host} broke off`),
  );
  assert.match(error.hint ?? "", /network problem/);
});

Deno.test("a page the reader cannot take in is unreadable, not a network problem", {
  timeout: 60_000,
}, async () => {
  // No real server can make the parser fail, so this body hands over text where bytes belong.
  const search = new DuckDuckGoSearch({
    endpoint: "http://127.0.0.1:9/html/",
    fetch() {
      const text = new ReadableStream<string>({
        start(controller) {
          controller.enqueue("<html>");
          controller.close();
        },
      });
      return Promise.resolve(new Response(text as unknown as ReadableStream<Uint8Array>));
    },
  });
  const error = await rejection(search.search("deno", { maxResults: 5 }));
  assert.match(error.message, /cannot read/);
  assert.doesNotMatch(`${error.message} ${error.hint}`, /reach|network/);
});

Deno.test("ctx.signal aborts a search in flight", { timeout: 60_000 }, async () => {
  const release = Promise.withResolvers<void>();
  await using server = localServer(() =>
    endless(resultPage("deno", hits("slow", 1)).slice(0, 400), release.promise)
  );
  const signals: (AbortSignal | null | undefined)[] = [];
  const search = webSearch(
    new DuckDuckGoSearch({
      endpoint: `${server.origin}/html/`,
      fetch(input, init) {
        signals.push(init?.signal);
        return fetch(input, init);
      },
    }),
  );
  const controller = new AbortController();
  const pending = search.execute({ query: "deno" }, { signal: controller.signal });
  await server.arrived(1);
  const reason = new Error("stop");
  controller.abort(reason);
  release.resolve();
  await assert.rejects(pending, (e) => e === reason);
  assert.deepEqual(signals, [controller.signal]);
});

Deno.test("the backend rejects with the abort reason while the page is still arriving", {
  timeout: 60_000,
}, async () => {
  const release = Promise.withResolvers<void>();
  await using server = localServer(() => endless("<html><body><div class=", release.promise));
  const controller = new AbortController();
  const pending = backend(server.origin).search("deno", {
    maxResults: 5,
    signal: controller.signal,
  });
  await server.arrived(1);
  controller.abort(new Error("enough"));
  // Were the abort ignored, the page would now end and the search settle on its own.
  release.resolve();
  await assert.rejects(pending, { message: "enough" });
});

Deno.test("construction rejects a bad endpoint or region with SetupError", () => {
  for (const endpoint of ["html.duckduckgo.com/html/", "ftp://example.com/", "/html/", ""]) {
    assert.throws(() => new DuckDuckGoSearch({ endpoint }), SetupError, endpoint);
  }
  assert.throws(() => new DuckDuckGoSearch({ region: "germany" }), SetupError);
  assert.throws(() => new DuckDuckGoSearch({ pageDelayMs: -1 }), SetupError);
  // Longer timers overflow into ~1 ms ones, so they are refused rather than quietly shortened.
  assert.throws(() => new DuckDuckGoSearch({ pageDelayMs: 2 ** 31 }), SetupError);
  assert.throws(() => new DuckDuckGoSearch({ retryDelayMs: 2 ** 31 }), SetupError);
  assert.throws(() => new DuckDuckGoSearch({ retryDelayMs: Infinity }), SetupError);
  new DuckDuckGoSearch({ pageDelayMs: 2 ** 31 - 1, retryDelayMs: 2 ** 31 - 1 });
  assert.throws(() => webSearch(new DuckDuckGoSearch(), { name: "Web Search" }), SetupError);
});

Deno.test("stops after five pages when every page offers a next one", {
  timeout: 60_000,
}, async () => {
  // The same hits on every page: no page brings a new result, yet the first ten offer another.
  await using server = localServer((_request, index) =>
    html(resultPage("deno", hits("same", 3), index < 9 ? navForm("Next", NEXT_FIELDS) : ""))
  );
  const results = await backend(server.origin).search("deno", { maxResults: 20 });
  assert.equal(results.length, 3);
  assert.equal(server.received.length, 5);
});

Deno.test("a 429 or 503 with Retry-After says when to search again, without waiting it out", {
  timeout: 60_000,
}, async () => {
  for (
    const [status, message] of [[
      429,
      /rate limiting this address; it asks to wait 90 s, until \d{4}-/,
    ], [503, /DuckDuckGo is overloaded \(HTTP 503\); it asks to wait 90 s/]] as const
  ) {
    await using server = localServer(() =>
      new Response("slow down", { status, headers: { "retry-after": "90" } })
    );
    const error = await rejection(backend(server.origin).search("deno", { maxResults: 5 }));
    assert.match(error.message, message);
    assert.match(error.hint ?? "", /^Do not (search again|retry) sooner/);
    assert.equal(server.received.length, 1);
  }
});

Deno.test({
  name: "a page that never ends is read up to 2 million characters, then cancelled",
  timeout: 60_000,
  async fn() {
    // Handed over directly, so no socket buffer reads ahead of the reader: what is sent is read.
    let sent = 0;
    let cancelled = false;
    const padding = new TextEncoder().encode("<p>padding</p>".repeat(4_096));
    const search = new DuckDuckGoSearch({
      endpoint: "http://127.0.0.1:9/html/",
      fetch() {
        let first = true;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const chunk = first
              ? new TextEncoder().encode(resultPage("deno", hits("long", 2)))
              : padding;
            first = false;
            sent += chunk.length;
            controller.enqueue(chunk);
          },
          cancel() {
            cancelled = true;
          },
        });
        return Promise.resolve(
          new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } }),
        );
      },
    });
    const results = await search.search("deno", { maxResults: 2 });
    assert.deepEqual(results.map((r) => r.url), [
      "https://long.example/1",
      "https://long.example/2",
    ]);
    assert.ok(sent >= 2_000_000 && sent <= 2_000_000 + 3 * padding.length, `${sent} bytes sent`);
    assert.ok(cancelled, "the response body is cancelled");
  },
});
