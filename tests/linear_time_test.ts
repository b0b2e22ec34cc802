// Every pattern that runs on third-party text (bodies, headers, host names, PDFs, search
// results) outside the HTML converter, fed the shape that would make it backtrack, at n and 4n
// in one run, through the public API. robots.txt has its own test in robots_test.ts.
// `OUTPOST_SCALING=1 deno test -A tests/linear_time_test.ts` prints the table.
import assert from "node:assert/strict";
import { ToolError, webFetch, webSearch } from "../mod.ts";
import { HttpReader, isPrivateHost } from "../src/fetch/mod.ts";
import { DomainPolicy } from "../src/hosted/mod.ts";
import {
  BraveSearch,
  DuckDuckGoSearch,
  type SearchResult,
  TavilySearch,
} from "../src/search/mod.ts";
import { pdfDecoder } from "../pdf/mod.ts";
import { assertLinear } from "./support/linear_time.ts";
import { makePdf } from "./support/pdf.ts";

/** A reader whose fetch answers every request with `respond()`: no socket to blur the timing. */
function readerOf(respond: () => Response, options = {}) {
  return new HttpReader({
    allowPrivateNetwork: true,
    cacheTtlMs: 0,
    retryDelayMs: 0,
    fetch: () => Promise.resolve(respond()),
    ...options,
  });
}

const URL_ = "http://127.0.0.1:9/page";

Deno.test("bodies and headers: sniffing, charsets, media types stay linear", {
  timeout: 120_000,
}, async () => {
  let response = () => new Response("");
  const reader = readerOf(() => response());
  const read = async (make: () => Response) => {
    response = make;
    return await reader.read(URL_);
  };
  const typed = (type: string, body: string) => () =>
    new Response(body, { headers: { "content-type": type } });
  const untyped = (body: string) => typed("", body);
  const shapes: [string, (n: number) => () => Response, number, number?][] = [
    // An untyped body's sniffing: a run of comments with no tag after (was exponential).
    ["sniff: comments, no tag", (n) => untyped("<!---->".repeat(n) + "x"), 30],
    ["sniff: blanks, open comment", (n) => untyped(" \n".repeat(n) + "<!--"), 100],
    // The <meta charset> prescan of the first 4 KB: many `<meta` and no `>` (was quadratic, but
    // only up to 4 KB, so 4n just fits and the bound is tighter: it measured 8 to 16 before).
    ["prescan: <meta without >", (n) => untyped("<meta".repeat(n)), 200, 6],
    ["prescan: <meta charset= runs", (n) => untyped("<meta " + "charset ".repeat(n)), 100],
    ["prescan: <?xml without >", (n) => untyped("<?xml" + " encoding".repeat(n)), 100],
    [
      "content-type: charset params",
      (n) => typed("text/plain" + ";charset ".repeat(n), "x"),
      20_000,
    ],
    [
      "content-type: long type",
      (n) => typed("text/" + "a".repeat(n), "x"),
      4_000,
    ],
    [
      "json body",
      (n) => typed("application/json", "[" + "1,".repeat(n) + "1]"),
      20_000,
    ],
    ["control characters", (n) => untyped("a".repeat(n) + "\x01"), 20_000],
  ];
  for (const [what, build, n, maxRatio] of shapes) {
    await assertLinear(what, build, read, { n, maxRatio });
  }
});

Deno.test("host names and redirects stay linear", { timeout: 120_000 }, async () => {
  // A run of inner dots in a host name (trailing-dot stripping was quadratic: 10 s at 40,000).
  await assertLinear("isPrivateHost: inner dots", (n) => "a" + ".".repeat(n) + "b", isPrivateHost, {
    n: 30_000,
  });
  const guarded = new HttpReader({
    cacheTtlMs: 0,
    fetch: () => Promise.resolve(new Response("page")),
  });
  await assertLinear(
    "address guard: inner dots",
    (n) => `http://a${".".repeat(n)}b.com/`,
    (url) => guarded.read(url),
    { n: 100_000 },
  );
  const policy = DomainPolicy.allow(["good.example/docs"]);
  await assertLinear(
    "domain rule: inner dots",
    (n) => `https://a${".".repeat(n)}good.example/docs/x`,
    (url) => assert.equal(policy.permits(url), false),
    { n: 100_000 },
  );
  let location = "";
  const redirecting = readerOf(() => new Response(null, { status: 302, headers: { location } }));
  await assertLinear("redirect: long location", (n) => "/" + "%2e./".repeat(n), async (to) => {
    location = to;
    await redirecting.read(URL_).catch((error) => assert.ok(error instanceof ToolError));
  }, { n: 5_000 });
  let retryAfter = "";
  const limited = readerOf(() =>
    new Response(null, { status: 429, headers: { "retry-after": retryAfter } })
  );
  await assertLinear(
    "retry-after: long date",
    (n) => "Mon, " + " 1".repeat(n) + " GMT",
    async (value) => {
      retryAfter = value;
      await assert.rejects(limited.read(URL_), ToolError);
    },
    { n: 5_000 },
  );
});

Deno.test("PDF text and web_fetch's own lines stay linear", { timeout: 120_000 }, async () => {
  let pdf: Uint8Array = new Uint8Array();
  const reader = readerOf(
    () => new Response(new Uint8Array(pdf), { headers: { "content-type": "application/pdf" } }),
    { decoders: [pdfDecoder()] },
  );
  // pdf.js collapses runs of blanks and drops text beyond the page, so the run that made the
  // trailing-blank strip quadratic cannot come from a file; the title is the long text it keeps.
  await assertLinear(
    "pdf: blank title",
    (n) => makePdf({ pages: [["a"]], title: "t" + " \t".repeat(n) + "u" }),
    async (bytes) => {
      pdf = bytes;
      assert.equal((await reader.read(URL_)).title, "t u");
    },
    { n: 5_000 },
  );

  let alt = "";
  const tool = webFetch({
    read: () =>
      Promise.resolve({
        url: URL_,
        status: 200,
        mediaType: "text/html",
        text: "page",
        images: [{ url: "http://127.0.0.1:9/i.png", alt }],
        sizeCapped: false,
      }),
  });
  await assertLinear(
    "web_fetch: image alt text of blanks",
    (n) => " \t\n".repeat(n) + "x",
    async (text) => {
      alt = text;
      await tool.execute({ url: URL_, images: true });
    },
    { n: 20_000 },
  );
});

Deno.test("search results stay linear", { timeout: 120_000 }, async () => {
  let page = "";
  const ddg = new DuckDuckGoSearch({
    endpoint: "http://127.0.0.1:9/html/",
    fetch: () => Promise.resolve(new Response(page, { headers: { "content-type": "text/html" } })),
    pageDelayMs: 0,
  });
  const result = (classes: string, shown: string, next: string) =>
    `<div class="${classes}"><a class="result__a" href="https://a.example/">t</a>` +
    `<a class="result__url">${shown}</a><a class="result__snippet">s</a></div>` +
    `<form action="/html/"><input type="submit" value="${next}"></form>`;
  const shapes: [string, (n: number) => string][] = [
    [
      "duckduckgo: class of blanks",
      (n) => result("result" + " \t".repeat(n) + "x", "a.example", "n"),
    ],
    ["duckduckgo: shown URL of blanks", (n) => result("result", " ".repeat(n) + "a", "n")],
    [
      "duckduckgo: next button of blanks",
      (n) => result("result", "a.example", " ".repeat(n) + "nex"),
    ],
  ];
  for (const [what, build] of shapes) {
    await assertLinear(what, build, async (html) => {
      page = html;
      await ddg.search("q", { maxResults: 5 });
    }, { n: 20_000 });
  }

  let body = "";
  const tavily = new TavilySearch({
    apiKey: "k",
    endpoint: "http://127.0.0.1:9/search",
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } })),
  });
  await assertLinear("tavily: title and snippet of blanks", (n) =>
    JSON.stringify({
      results: [{
        title: "t" + " \n".repeat(n) + "u",
        url: "https://a.example/",
        content: " \t".repeat(n),
      }],
    }), async (json) => {
    body = json;
    await tavily.search("q", { maxResults: 5 });
  }, { n: 20_000 });

  const brave = new BraveSearch({
    apiKey: "k",
    endpoint: "http://127.0.0.1:9/res/v1/web/search",
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } })),
  });
  await assertLinear("brave: bold marks and references cut short", (n) =>
    JSON.stringify({
      type: "search",
      web: {
        results: [{
          title: "<strong".repeat(n) + "&amp".repeat(n),
          url: "https://a.example/",
          description: "<</strong&#x".repeat(n),
        }],
      },
    }), async (json) => {
    body = json;
    await brave.search("q", { maxResults: 5 });
  }, { n: 20_000 });

  let hits: SearchResult[] = [];
  const shown = webSearch({ search: () => Promise.resolve(hits) });
  await assertLinear("web_search: titles and snippets of invisible characters and blanks", (n) => [{
    title: "\u200B \u202E".repeat(n),
    url: "https://a.example/",
    snippet: "\u00AD\n\u2060".repeat(n) + "x",
  }], async (given) => {
    hits = given;
    await shown.execute({ query: "q" });
  }, { n: 20_000 });
});
