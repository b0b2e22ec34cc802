import assert from "node:assert/strict";
import { type AccessLogEntry, runToolCalls, type Tool, webFetch } from "../mod.ts";
import { BrowserReader, HttpReader } from "../src/fetch/mod.ts";
import {
  BraveSearch,
  DuckDuckGoSearch,
  ExaSearch,
  SearxngSearch,
  SerperSearch,
  TavilySearch,
  webSearch,
} from "../src/search/mod.ts";
import { launchChromium } from "../edge/deno/chromium.ts";
import { localServer } from "./support/local_server.ts";
import { type RecordedSpan, recordingTracer } from "./support/recording_tracer.ts";
import { searchApis } from "./support/search_apis.ts";
import { searchBackendFetch } from "./support/search_backend.ts";

// Every outbound request of a tool call gets a client span under the call's span, with the
// attributes web_fetch's page requests have, and its body bytes reach the access log.

/** Runs one call of `tool` under a recording tracer and an access log. */
async function observed(tool: Tool, input: Record<string, unknown>) {
  const tracer = recordingTracer();
  const entries: AccessLogEntry[] = [];
  const [result] = await runToolCalls([tool], [{ id: "call_1", name: tool.name, input }], {}, {
    tracer,
    accessLog: (entry) => entries.push(entry),
  });
  assert.equal(result.isError, false, result.text);
  const [call] = tracer.spans.filter((span) => span.name.startsWith("execute_tool"));
  const requests = tracer.spans.filter((span) => span.kind === 2);
  assert.ok(tracer.spans.every((span) => span.ended));
  return { call, requests, entry: entries[0], text: result.text };
}

/** The attributes of a client span to `url` (query and fragment left out) answered `status`. */
function clientAttributes(method: string, url: string, status = 200) {
  const { hostname, port, protocol, origin, pathname } = new URL(url);
  return {
    "http.request.method": method,
    "server.address": hostname,
    "server.port": Number(port) || (protocol === "https:" ? 443 : 80),
    "url.full": `${origin}${pathname}`,
    "http.response.status_code": status,
  };
}

function assertChildOf(spans: RecordedSpan[], parent: RecordedSpan) {
  for (const span of spans) assert.equal(span.parent, parent, span.name);
}

Deno.test("traces and access log: each search backend's requests", {
  timeout: 60_000,
}, async () => {
  await using apis = searchApis();
  const fetch = searchBackendFetch(apis.origin);
  const backends = [
    [
      "brave",
      new BraveSearch({ apiKey: "k", fetch }),
      "GET",
      "https://api.search.brave.com/res/v1/web/search",
    ],
    ["exa", new ExaSearch({ apiKey: "k", fetch }), "POST", "https://api.exa.ai/search"],
    [
      "serper",
      new SerperSearch({ apiKey: "k", fetch }),
      "POST",
      "https://google.serper.dev/search",
    ],
    ["tavily", new TavilySearch({ apiKey: "k", fetch }), "POST", "https://api.tavily.com/search"],
    [
      "searxng",
      new SearxngSearch({ url: apis.origin, allowPrivateNetwork: true }),
      "GET",
      `${apis.origin}/search`,
    ],
    ["duckduckgo", new DuckDuckGoSearch({ fetch }), "POST", "https://html.duckduckgo.com/html/"],
  ] as const;
  for (const [name, backend, method, url] of backends) {
    const { call, requests, entry, text } = await observed(webSearch(backend), {
      query: "lanterns",
      max_results: 1,
    });
    assert.match(text, /lanterns|Outpost guide/, name);
    assert.equal(requests.length, 1, name);
    assertChildOf(requests, call);
    assert.equal(requests[0].name, method, name);
    assert.deepEqual(requests[0].attributes, clientAttributes(method, url), name);
    // The answer's bytes, as the fixture sent them; the host, never the query.
    assert.ok(entry.bytesRead > 20, `${name}: ${entry.bytesRead} bytes`);
    assert.equal(entry.host, new URL(url).host, name);
  }
  // Each byte counted: the fixture's answer to Brave, whole.
  const brave = await fetch("https://api.search.brave.com/res/v1/web/search?q=lanterns&count=1");
  const size = (await brave.arrayBuffer()).byteLength;
  const { entry } = await observed(webSearch(backends[0][1]), {
    query: "lanterns",
    max_results: 1,
  });
  assert.equal(entry.bytesRead, size);
});

Deno.test("traces and access log: a failed search request's span says why", {
  timeout: 30_000,
}, async () => {
  await using api = localServer(() => Response.json({ error: "down" }, { status: 503 }));
  const tracer = recordingTracer();
  const search = webSearch(
    new TavilySearch({ apiKey: "k", endpoint: `${api.origin}/search`, retryDelayMs: 1 }),
  );
  const [result] = await runToolCalls(
    [search],
    [{ id: "c", name: "web_search", input: { query: "q" } }],
    {},
    {
      tracer,
    },
  );
  assert.equal(result.isError, true);
  const requests = tracer.spans.filter((span) => span.kind === 2);
  assert.ok(requests.length >= 1);
  for (const span of requests) {
    assert.equal(span.attributes["http.response.status_code"], 503);
    assert.ok(span.ended);
  }
});

Deno.test("traces and access log: robots.txt is fetched in a span of its own, its bytes counted", {
  timeout: 30_000,
}, async () => {
  const ROBOTS = "User-agent: *\nDisallow: /private\n";
  const PAGE = "a page that robots.txt allows";
  await using site = localServer((request) =>
    new URL(request.url).pathname === "/robots.txt"
      ? new Response(ROBOTS, { headers: { "content-type": "text/plain" } })
      : new Response(PAGE, { headers: { "content-type": "text/plain" } })
  );
  const reader = webFetch(new HttpReader({ allowPrivateNetwork: true, respectRobots: true }));
  const { call, requests, entry } = await observed(reader, { url: `${site.origin}/page?q=1` });
  assert.deepEqual(
    requests.map((span) => span.attributes),
    [
      clientAttributes("GET", `${site.origin}/robots.txt`),
      clientAttributes("GET", `${site.origin}/page`),
    ],
  );
  assertChildOf(requests, call);
  assert.equal(entry.bytesRead, ROBOTS.length + PAGE.length);
  // Known now: the next read fetches only its page.
  const again = await observed(reader, { url: `${site.origin}/other` });
  assert.equal(again.requests.length, 1);
  assert.equal(again.entry.bytesRead, PAGE.length);
});

const CHROMIUM = "/usr/bin/chromium";
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);

Deno.test({
  name: "traces and access log: BrowserReader's render is a request of its own",
  ignore: chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1",
  timeout: 60_000,
  sanitizeResources: false,
  async fn() {
    const SHELL = `<!doctype html><html><head><title>T</title></head><body><div id="app"></div>
      <script>document.getElementById("app").innerHTML = "<h1>Built</h1><p>Only a script ` +
      `wrote this sentence, and it is long enough to read.</p>";</script></body></html>`;
    await using site = localServer(() =>
      new Response(SHELL, { headers: { "content-type": "text/html" } })
    );
    await using chromium = await launchChromium({ path: CHROMIUM, proxy: false });
    const reader = new BrowserReader({
      browser: chromium.endpoint,
      allowPrivateNetwork: true,
      http: new HttpReader({ allowPrivateNetwork: true }),
      settleMs: 20_000,
      timeoutMs: 40_000,
    });
    const { call, requests, entry, text } = await observed(webFetch(reader), {
      url: `${site.origin}/shell?token=secret`,
      render: "always",
    });
    assert.match(text, /Only a script wrote this sentence/);
    // The plain read, then the browser's.
    assert.deepEqual(requests.map((span) => span.attributes), [
      clientAttributes("GET", `${site.origin}/shell`),
      clientAttributes("GET", `${site.origin}/shell`),
    ]);
    assertChildOf(requests, call);
    // Both reads' bytes: the plain one's and what the browser loaded.
    assert.ok(entry.bytesRead >= 2 * SHELL.length, `${entry.bytesRead} bytes`);
  },
});
