import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { askHuman, now, tool, ToolError, type ToolErrorCode, webFetch } from "../mod.ts";
import { type BodyDecoder, HttpReader } from "../src/fetch/mod.ts";
import { MemoryQuestionChannel, requireApproval } from "../src/human/mod.ts";
import { DuckDuckGoSearch, TavilySearch } from "../src/search/mod.ts";
import { pdfDecoder } from "../pdf/mod.ts";
import * as z from "zod";
import { FakeClock } from "./support/fake_clock.ts";
import { closedOrigin, dripFeed, localServer } from "./support/local_server.ts";
import { waitFor } from "./support/wait.ts";

// Each failure a host may act on, provoked end to end through the public API on loopback
// servers (other addresses only through an injected resolver and a fetch that never connects),
// and the data it carries for the host: its code, and the status and wait where known.

/** What the host reads off the error. */
interface Data {
  code: ToolErrorCode;
  status?: number;
  retryAfterMs?: number;
}

async function dataOf(attempt: Promise<unknown>): Promise<Data> {
  const error = await attempt.then(() => undefined, (e: unknown) => e);
  assert.ok(ToolError.isInstance(error), `expected a ToolError, got ${error}`);
  const { code, status, retryAfterMs } = error;
  return {
    code,
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

// Loopback pages: the guard is lifted, and retries pause 1 ms.
const local = { allowPrivateNetwork: true, retryDelayMs: 1 } as const;

/** A fetch for guard cases: the guard must refuse before anything is sent. */
const neverFetch: typeof fetch = () => Promise.reject(new Error("the guard let a request out"));

/** A page server that answers each path with the response `routes` gives for it. */
function site(routes: Record<string, () => Response>) {
  return localServer((request) => {
    const route = routes[new URL(request.url).pathname];
    return route ? route() : new Response("not here", { status: 404 });
  });
}

const deploy = tool({
  name: "deploy",
  description: "Deploys a service.",
  input: z.object({ service: z.string() }),
  execute: ({ service }) => `deployed ${service}`,
});

/** Resolves once `channel` has a question pending, and returns it. */
async function pendingOf(channel: MemoryQuestionChannel) {
  await waitFor(() => channel.pending.length > 0, "a pending question");
  return channel.pending[0];
}

Deno.test("every kind of failure carries its code end to end", { timeout: 60_000 }, async () => {
  await using pages = site({
    "/busy": () => new Response("slow down", { status: 429, headers: { "retry-after": "120" } }),
    "/down": () => new Response("later", { status: 503, headers: { "retry-after": "30" } }),
    "/robots.txt": () => new Response("User-agent: *\nDisallow: /private\n"),
    "/private/page": () => new Response("secret"),
    "/odd": () => new Response("a,b", { headers: { "content-type": "text/csv" } }),
    "/report.pdf": () =>
      new Response("not a PDF at all", { headers: { "content-type": "application/pdf" } }),
  });
  const read = (path: string, options = {}) =>
    webFetch(new HttpReader({ ...local, ...options })).execute({ url: pages.origin + path });
  const failing: BodyDecoder = {
    mediaTypes: ["text/csv"],
    decode: () => Promise.reject(new TypeError("no columns")),
  };
  const closed = await closedOrigin();
  await using broken = localServer(() => new Response("down", { status: 500 }));

  await using tavily = localServer((request) => {
    const status = Number(new URL(request.url).searchParams.get("status"));
    return new Response(JSON.stringify({ detail: { error: "no" } }), {
      status,
      headers: { "content-type": "application/json", "retry-after": "45" },
    });
  });
  const tavilyAt = (status: number) =>
    new TavilySearch({
      apiKey: "tvly-test",
      endpoint: `${tavily.origin}/search?status=${status}`,
      retryDelayMs: 0,
    }).search("deno", { maxResults: 3 });

  await using ddg = localServer((request) => {
    const status = Number(new URL(request.url).searchParams.get("status"));
    return new Response("<html></html>", {
      status,
      headers: { "content-type": "text/html", "retry-after": "90" },
    });
  });
  const ddgAt = (status: number) =>
    new DuckDuckGoSearch({
      endpoint: `${ddg.origin}/html/?status=${status}`,
      pageDelayMs: 0,
      retryDelayMs: 0,
    }).search("deno", { maxResults: 3 });

  const cases: [string, () => Promise<unknown>, Data][] = [
    ["web_fetch: 429 with Retry-After", () => read("/busy"), {
      code: "rate_limited",
      status: 429,
      retryAfterMs: 120_000,
    }],
    ["web_fetch: 503 with Retry-After", () => read("/down"), {
      code: "rate_limited",
      status: 503,
      retryAfterMs: 30_000,
    }],
    ["web_fetch: a loopback address", () => webFetch().execute({ url: pages.origin }), {
      code: "private_address",
    }],
    [
      "web_fetch: a name that resolves to a private address",
      () =>
        webFetch(
          new HttpReader({ fetch: neverFetch, resolveHost: () => Promise.resolve(["10.1.2.3"]) }),
        )
          .execute({ url: "http://intranet.example/" }),
      { code: "private_address" },
    ],
    [
      "web_fetch: the domain policy",
      () =>
        webFetch(new HttpReader(local), { policy: { permits: () => false } })
          .execute({ url: pages.origin }),
      { code: "policy_refused" },
    ],
    ["web_fetch: robots.txt", () => read("/private/page", { respectRobots: true }), {
      code: "policy_refused",
    }],
    [
      "web_fetch: a robots.txt that cannot be read",
      () =>
        webFetch(new HttpReader({ ...local, respectRobots: true })).execute({ url: broken.origin }),
      { code: "policy_refused" },
    ],
    [
      "web_fetch: a name that does not resolve",
      () =>
        webFetch(
          new HttpReader({
            fetch: neverFetch,
            resolveHost: () => Promise.reject(new Error("NXDOMAIN")),
          }),
        ).execute({ url: "http://nowhere.example/" }),
      { code: "unreachable" },
    ],
    [
      "web_fetch: a refused connection",
      () => webFetch(new HttpReader(local)).execute({ url: closed }),
      {
        code: "unreachable",
      },
    ],
    [
      "web_fetch: a decoder that cannot read the body",
      () => read("/odd", { decoders: [failing] }),
      {
        code: "unsupported_content",
      },
    ],
    ["web_fetch: a PDF that is not one", () => read("/report.pdf", { decoders: [pdfDecoder()] }), {
      code: "unsupported_content",
    }],
    ["web_fetch: a malformed URL", () => webFetch().execute({ url: "example.com" }), {
      code: "invalid_input",
    }],
    ["web_fetch: input against the schema", () => webFetch().execute({ url: 7 }), {
      code: "invalid_input",
    }],
    ["now: an unknown time zone", () => now.execute({ tz: "Mars/Olympus_Mons" }), {
      code: "invalid_input",
    }],
    ["Tavily: 429 with Retry-After", () => tavilyAt(429), {
      code: "rate_limited",
      status: 429,
      retryAfterMs: 45_000,
    }],
    ["Tavily: 503 with Retry-After", () => tavilyAt(503), {
      code: "rate_limited",
      status: 503,
      retryAfterMs: 45_000,
    }],
    ["Tavily: 401", () => tavilyAt(401), { code: "http_error", status: 401 }],
    ["Tavily: 404", () => tavilyAt(404), { code: "http_error", status: 404 }],
    ["Tavily: usage limit", () => tavilyAt(432), { code: "unavailable", status: 432 }],
    [
      "Tavily: nobody listening",
      () =>
        new TavilySearch({ apiKey: "tvly-test", endpoint: `${closed}/search`, retryDelayMs: 0 })
          .search("deno", { maxResults: 3 }),
      { code: "unreachable" },
    ],
    ["DuckDuckGo: 429 with Retry-After", () => ddgAt(429), {
      code: "rate_limited",
      status: 429,
      retryAfterMs: 90_000,
    }],
    ["DuckDuckGo: 202 challenge", () => ddgAt(202), {
      code: "rate_limited",
      status: 202,
      retryAfterMs: 90_000,
    }],
    ["DuckDuckGo: 404", () => ddgAt(404), { code: "http_error", status: 404 }],
  ];
  // Every row is run, and every wrong one named.
  const wrong: string[] = [];
  for (const [name, provoke, expected] of cases) {
    const data = await dataOf(provoke());
    if (!isDeepStrictEqual(data, expected)) wrong.push(`${name}: ${JSON.stringify(data)}`);
  }
  assert.deepEqual(wrong, []);
});

Deno.test(
  "a web_fetch that runs out of time has the code timeout",
  { timeout: 20_000 },
  async () => {
    using feed = dripFeed(20, { "content-type": "text/plain" });
    await using server = localServer(() => feed.response());
    const clock = new FakeClock();
    const reading = webFetch(new HttpReader({ ...local, timeoutMs: 30_000, clock }))
      .execute({ url: server.origin });
    const outcome = dataOf(reading);
    await server.arrived(1);
    await clock.advance(30_000);
    assert.deepEqual(await outcome, { code: "timeout" });
  },
);

Deno.test(
  "people's refusals and closed channels carry their codes",
  { timeout: 20_000 },
  async () => {
    const channel = new MemoryQuestionChannel({ limits: { maxPending: 1 } });
    const guarded = requireApproval(deploy, channel);

    assert.deepEqual(
      await dataOf(guarded.execute({ service: "x".repeat(10_000) })),
      { code: "policy_refused" },
      "an input too long to show is never asked about",
    );
    assert.equal(channel.pending.length, 0);

    let attempt = dataOf(guarded.execute({ service: "api" }));
    channel.answer((await pendingOf(channel)).id, { decision: "deny", reason: "freeze" });
    assert.deepEqual(await attempt, { code: "denied" }, "a denied approval");

    attempt = dataOf(guarded.execute({ service: "api" }));
    channel.cancel((await pendingOf(channel)).id, "nobody on call");
    assert.deepEqual(await attempt, { code: "denied" }, "a cancelled approval");

    const ask = askHuman(channel);
    attempt = dataOf(ask.execute({ question: "Go?" }));
    channel.cancel((await pendingOf(channel)).id, "not now");
    assert.deepEqual(await attempt, { code: "denied" }, "a cancelled question");

    // The channel holds one question: a second is refused, with the wait to come back after.
    const first = dataOf(ask.execute({ question: "First?" }));
    await pendingOf(channel);
    assert.deepEqual(
      await dataOf(ask.execute({ question: "Second?" })),
      { code: "rate_limited", retryAfterMs: 60_000 },
      "too many questions",
    );

    channel.close("shutting down");
    assert.deepEqual(await first, { code: "unavailable" }, "a question on a closing channel");
    assert.deepEqual(await dataOf(ask.execute({ question: "Anyone?" })), { code: "unavailable" });
    assert.deepEqual(await dataOf(guarded.execute({ service: "api" })), { code: "unavailable" });
  },
);

Deno.test("an unanswered question has the code timeout", { timeout: 20_000 }, async () => {
  const channel = new MemoryQuestionChannel();
  const clock = new FakeClock();
  const outcome = dataOf(
    askHuman(channel, { timeoutMs: 60_000, clock }).execute({ question: "Go?" }),
  );
  await pendingOf(channel);
  await clock.advance(60_000);
  assert.deepEqual(await outcome, { code: "timeout" });
  channel.close();
});
