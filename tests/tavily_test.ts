import assert from "node:assert/strict";
import { FENCE_BEGIN, FENCE_END, SetupError, ToolError, VERSION, webSearch } from "../mod.ts";
import { TavilySearch } from "../src/search/mod.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { closedOrigin, cutOffServer, endless, localServer } from "./support/local_server.ts";

// Bodies written for these tests in the shape Tavily documents for POST /search: a JSON object
// with `query`, `results` ({ title, url, content, score, raw_content }) and `response_time`;
// errors carry `{"detail":{"error":"…"}}`.

const KEY = "tvly-test-0123456789";

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function success(query: string, count = 2): Response {
  return json({
    query,
    answer: null,
    images: [],
    results: Array.from({ length: count }, (_, i) => ({
      title: `Result ${i + 1} for ${query}`,
      url: `https://site${i + 1}.example/${encodeURIComponent(query)}`,
      content: `Content ${i + 1}.`,
      score: 0.9 - i / 10,
      raw_content: null,
    })),
    response_time: 0.42,
  });
}

function failure(status: number, message: string): Response {
  return json({ detail: { error: message } }, status);
}

function backend(origin: string): TavilySearch {
  return new TavilySearch({ apiKey: KEY, endpoint: `${origin}/search`, retryDelayMs: 0 });
}

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof ToolError, `expected a ToolError, got ${error}`);
  return error;
}

Deno.test("posts the query with the key as a bearer token and renders the results", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(async (request) => success((await request.json()).query));
  const search = webSearch(new TavilySearch({ apiKey: KEY, endpoint: `${server.origin}/search` }));
  const out = await search.execute({ query: "edge runtimes", max_results: 7, time_range: "m" });
  assert.equal(
    out,
    [
      FENCE_BEGIN,
      "1. Result 1 for edge runtimes",
      "https://site1.example/edge%20runtimes",
      "Content 1.",
      "",
      "2. Result 2 for edge runtimes",
      "https://site2.example/edge%20runtimes",
      "Content 2.",
      FENCE_END,
    ].join("\n"),
  );
  assert.equal(server.received.length, 1);
  const [request] = server.received;
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/search");
  assert.equal(request.headers.get("authorization"), `Bearer ${KEY}`);
  assert.match(request.headers.get("content-type") ?? "", /application\/json/);
  assert.equal(
    request.headers.get("user-agent"),
    `Mozilla/5.0 (compatible; outpost-agent-tools/${VERSION}; +https://jsr.io/@outpost/agent-tools)`,
  );
  assert.deepEqual(JSON.parse(request.body), {
    query: "edge runtimes",
    max_results: 7,
    time_range: "month",
  });
});

Deno.test("maps every time range and leaves it out when absent", { timeout: 60_000 }, async () => {
  await using server = localServer(async (request) => success((await request.json()).query, 0));
  const search = backend(server.origin);
  for (const range of ["d", "w", "m", "y"] as const) {
    await search.search("q", { maxResults: 3, timeRange: range });
  }
  await search.search("q", { maxResults: 3 });
  assert.deepEqual(
    server.received.map((r) => JSON.parse(r.body).time_range),
    ["day", "week", "month", "year", undefined],
  );
});

Deno.test("keeps only results with an http(s) URL and at most maxResults", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() =>
    json({
      query: "q",
      results: [
        { title: "Good", url: "https://good.example/", content: "ok", score: 1 },
        { title: "No URL", content: "x", score: 0.9 },
        { title: "Script", url: "javascript:alert(1)", content: "x", score: 0.8 },
        "not an object",
        { url: "https://untitled.example/", score: 0.7 },
        { title: "Too many", url: "https://extra.example/", content: "", score: 0.6 },
      ],
    })
  );
  assert.deepEqual(await backend(server.origin).search("q", { maxResults: 2 }), [
    { title: "Good", url: "https://good.example/", snippet: "ok" },
    { title: "", url: "https://untitled.example/", snippet: "" },
  ]);
});

Deno.test("400 reports Tavily's own message", { timeout: 60_000 }, async () => {
  await using server = localServer(() =>
    failure(400, "Query is too long. Max query length is 400 characters.")
  );
  const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
  assert.equal(
    error.message,
    "Tavily rejected the search (HTTP 400): Query is too long. Max query length is 400 characters.",
  );
  assert.equal(server.received.length, 1);
});

Deno.test("each 4xx status says what to do and is never retried", { timeout: 60_000 }, async () => {
  const cases: [number, RegExp, RegExp][] = [
    [401, /did not accept the API key \(HTTP 401\)/, /API key .* operator/],
    [403, /refused the search \(HTTP 403\): This endpoint is not allowed/, /operator must check/],
    [429, /rate limiting this API key \(HTTP 429\)/, /Wait a minute/],
    [432, /plan usage limit is reached \(HTTP 432\)/, /until the limit resets/],
    [433, /pay-as-you-go usage limit is reached \(HTTP 433\)/, /until the limit resets/],
  ];
  for (const [status, message, hint] of cases) {
    await using server = localServer(() => failure(status, "This endpoint is not allowed."));
    const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
    assert.match(error.message, message);
    assert.match(error.hint ?? "", hint);
    assert.equal(server.received.length, 1, `HTTP ${status} must not be retried`);
  }
});

Deno.test("5xx is retried twice, then succeeds", { timeout: 60_000 }, async () => {
  await using server = localServer(async (request, index) =>
    index < 2 ? failure(500, "Internal error") : success((await request.json()).query)
  );
  const results = await backend(server.origin).search("retry me", { maxResults: 5 });
  assert.equal(results.length, 2);
  assert.equal(server.received.length, 3);
  assert.ok(server.received.every((r) => JSON.parse(r.body).query === "retry me"));
});

Deno.test("5xx on every attempt fails after three requests", { timeout: 60_000 }, async () => {
  await using server = localServer(() => new Response("<h1>Bad gateway</h1>", { status: 502 }));
  const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
  assert.equal(error.message, "Tavily failed (HTTP 502).");
  assert.match(error.hint ?? "", /try again later/);
  assert.equal(server.received.length, 3);
});

Deno.test("a body that is not JSON is an error", { timeout: 60_000 }, async () => {
  await using server = localServer(() =>
    new Response("<html>maintenance</html>", { headers: { "content-type": "text/html" } })
  );
  const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
  assert.match(error.message, /not JSON/);
});

Deno.test("JSON without a results list is an error, not zero results", {
  timeout: 60_000,
}, async () => {
  await using server = localServer(() => json({ query: "q", answer: "…" }));
  const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
  assert.match(error.message, /without a list of results/);
});

Deno.test("a transport failure names the host after retrying", { timeout: 60_000 }, async () => {
  const origin = await closedOrigin();
  const error = await rejection(backend(origin).search("q", { maxResults: 5 }));
  assert.ok(
    error.message.startsWith(`Could not reach Tavily at ${new URL(origin).host}: `),
    error.message,
  );
});

Deno.test("a connection that breaks mid-answer is a network problem, not a bad body", {
  timeout: 60_000,
}, async () => {
  await using server = cutOffServer('{"query":"q","results":[{"title":"A"');
  const error = await rejection(backend(server.origin).search("q", { maxResults: 5 }));
  assert.ok(
    error.message.startsWith(
      `The connection to Tavily at ${
        new URL(server.origin).host
      } broke off while the answer arrived: `,
    ),
    error.message,
  );
  assert.match(error.hint ?? "", /network problem/);
});

Deno.test("ctx.signal aborts a search in flight", { timeout: 60_000 }, async () => {
  const release = Promise.withResolvers<void>();
  await using server = localServer(() => endless('{"query":"q","results":[', release.promise));
  const controller = new AbortController();
  const search = webSearch(new TavilySearch({ apiKey: KEY, endpoint: `${server.origin}/search` }));
  const pending = search.execute({ query: "q" }, { signal: controller.signal });
  const direct = backend(server.origin).search("q", { maxResults: 5, signal: controller.signal });
  await server.arrived(2);
  const reason = new Error("stop");
  controller.abort(reason);
  // Were the abort ignored, the body would now end, unfinished, and be reported as not JSON.
  release.resolve();
  await assert.rejects(pending, (e) => e === reason);
  await assert.rejects(direct, (e) => e === reason);
});

Deno.test("the key comes from apiKey or TAVILY_API_KEY; without one construction fails", {
  timeout: 60_000,
}, async () => {
  const saved = Deno.env.get("TAVILY_API_KEY");
  try {
    Deno.env.delete("TAVILY_API_KEY");
    assert.throws(() => new TavilySearch(), SetupError);
    assert.throws(() => new TavilySearch({ apiKey: "  " }), SetupError);
    assert.throws(() => new TavilySearch(), /needs an API key/);

    Deno.env.set("TAVILY_API_KEY", "tvly-from-env");
    await using server = localServer(() => success("q", 1));
    await new TavilySearch({ endpoint: `${server.origin}/search` }).search("q", { maxResults: 1 });
    await new TavilySearch({ apiKey: KEY, endpoint: `${server.origin}/search` })
      .search("q", { maxResults: 1 });
    assert.deepEqual(
      server.received.map((r) => r.headers.get("authorization")),
      ["Bearer tvly-from-env", `Bearer ${KEY}`],
    );
  } finally {
    if (saved === undefined) Deno.env.delete("TAVILY_API_KEY");
    else Deno.env.set("TAVILY_API_KEY", saved);
  }
});

Deno.test("construction rejects an endpoint that is not an absolute http(s) URL", () => {
  for (const endpoint of ["api.tavily.com/search", "/search", "file:///etc/passwd", ""]) {
    assert.throws(() => new TavilySearch({ apiKey: KEY, endpoint }), SetupError, endpoint);
  }
  assert.throws(() => new TavilySearch({ apiKey: KEY, retryDelayMs: Number.NaN }), SetupError);
  assert.throws(() => new TavilySearch({ apiKey: KEY, retryDelayMs: 2 ** 31 }), SetupError);
  new TavilySearch({ apiKey: KEY, retryDelayMs: 2 ** 31 - 1 });
});

Deno.test("a 429 or 503 with Retry-After says when to search again, without waiting it out", {
  timeout: 60_000,
}, async () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  const at = new Date(clock.now() + 600_000).toUTCString();
  await using limited = localServer(() =>
    new Response(JSON.stringify({ detail: { error: "Too many requests" } }), {
      status: 429,
      headers: { "retry-after": "45" },
    })
  );
  let error = await rejection(backend(limited.origin).search("q", { maxResults: 5 }));
  assert.match(
    error.message,
    /rate limiting this API key \(HTTP 429\): Too many requests It asks to wait 45 s, until \d{4}-/,
  );
  assert.match(error.hint ?? "", /Do not search again sooner/);
  assert.equal(limited.received.length, 1);
  await using down = localServer(() =>
    new Response("maintenance", { status: 503, headers: { "retry-after": at } })
  );
  error = await rejection(
    new TavilySearch({ apiKey: KEY, endpoint: `${down.origin}/search`, clock }).search("q", {
      maxResults: 5,
    }),
  );
  assert.match(
    error.message,
    /^Tavily is overloaded \(HTTP 503\); it asks to wait 600 s, until 2026-06-01T12:10:00\.000Z\./,
  );
  assert.equal(down.received.length, 1);
});
