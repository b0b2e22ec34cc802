import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { vercelHandler } from "../edge/vercel/mod.ts";
import { config } from "../edge/vercel/app/edge_function.ts";
import { bundle } from "./support/bundle.ts";
import { edgeRuntimeServer } from "./support/edge_runtime.ts";
import { localServer } from "./support/local_server.ts";
import { MISSING_SETTINGS, SEARCH_CHOICES, searchApis } from "./support/search_apis.ts";
import { searchBackendFetch, searchBackendPrelude } from "./support/search_backend.ts";

const TOOL_TOKEN = "vercel-tool-token-0123456789";
const auth = { authorization: `Bearer ${TOOL_TOKEN}` };

function post(url: string, body: unknown): Request {
  return new Request(url, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test("vercel: the entry runs on the Edge runtime", () => {
  assert.deepEqual(config, { runtime: "edge" });
});

Deno.test("vercel: without a tool token every request is a 503 saying what to set", {
  timeout: 60_000,
}, async () => {
  const handler = vercelHandler({ env: { OUTPOST_TOOLS: "now" } });
  for (const path of ["/tools", "/mcp", "/"]) {
    const response = await handler(new Request(`https://outpost.example${path}`));
    assert.equal(response.status, 503);
    const { error, hint } = await response.json();
    assert.match(error, /OUTPOST_TOOL_TOKEN is not set/);
    assert.match(hint, /vercel env add/);
  }
  // A channel also needs the operator token.
  const withChannel = vercelHandler({
    env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN },
    parts: { channel: new MemoryQuestionChannel() },
  });
  const { error } = await (await withChannel(new Request("https://outpost.example/"))).json();
  assert.match(error, /OUTPOST_OPERATOR_TOKEN is not set/);
});

Deno.test("vercel: a malformed setting is a 503 naming it", { timeout: 60_000 }, async () => {
  const handler = vercelHandler({
    env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_TOOLS: "now,ask_human" },
  });
  const response = await handler(new Request("https://outpost.example/tools", { headers: auth }));
  assert.equal(response.status, 503);
  assert.match((await response.json()).error, /ask_human needs a question channel/);
  const switched = vercelHandler({
    env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_ALLOW_PRIVATE_NETWORK: "maybe" },
  });
  const { error } = await (await switched(new Request("https://outpost.example/tools"))).json();
  assert.match(error, /OUTPOST_ALLOW_PRIVATE_NETWORK must be true or false/);
  assert.throws(() => vercelHandler({ env: {}, firstByteMs: 30_000 }), SetupError);
});

Deno.test("vercel: ask_human is left out, and served only with a spanning channel", {
  timeout: 60_000,
}, async () => {
  const names = async (handler: (request: Request) => Promise<Response>) => {
    const response = await handler(new Request("https://outpost.example/tools", { headers: auth }));
    return (await response.json()).tools.map((tool: { name: string }) => tool.name);
  };
  assert.deepEqual(await names(vercelHandler({ env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN } })), [
    "web_fetch",
    "web_search",
    "now",
  ]);
  const channel = new MemoryQuestionChannel();
  const given = vercelHandler({
    env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: "vercel-operator-0123456789" },
    parts: { channel },
  });
  assert.deepEqual(await names(given), ["web_fetch", "web_search", "now", "ask_human"]);
  channel.close();
});

Deno.test("vercel: a call whose response has not started in time is a 504, and is stopped", {
  timeout: 60_000,
}, async () => {
  const hungUp = Promise.withResolvers<void>();
  let arrived = false;
  // The raw request's signal, which reports the client's hang-up (localServer's copy would not).
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) =>
      new Promise<Response>((resolve) => {
        arrived = true;
        request.signal.addEventListener("abort", () => {
          hungUp.resolve();
          resolve(new Response("late"));
        });
      }),
  );
  // The signals of the page reads, to see them stopped even when a busy machine has not yet
  // delivered the request to the server by the deadline.
  const reads: (AbortSignal | null | undefined)[] = [];
  const handler = vercelHandler({
    env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_ALLOW_PRIVATE_NETWORK: "true" },
    firstByteMs: 200,
    parts: {
      fetch: (input, init) => {
        reads.push(init?.signal);
        return fetch(input, init);
      },
    },
  });
  const response = await handler(post("https://outpost.example/tools/web_fetch", {
    url: `http://127.0.0.1:${server.addr.port}/slow`,
  }));
  assert.equal(response.status, 504);
  const { error, hint } = await response.json();
  assert.match(error, /No response within 0\.2 s/);
  assert.match(hint, /stopped/);
  // The page read was aborted, not left running; a request that had reached the server is hung up.
  assert.ok(reads.length <= 1 && reads.every((signal) => signal?.aborted), `${reads.length} reads`);
  if (arrived) await hungUp.promise;
});

Deno.test("vercel: the entry bundled as a service worker runs in edge-runtime", {
  timeout: 120_000,
}, async () => {
  const built = await bundle("tests/fixtures/vercel_service_worker.ts", { format: "iife" });
  // The lever that keeps the bundle small: nothing unused rides in.
  assert.ok(!built.packages.has("tldts"), [...built.packages.keys()].join(", "));
  assert.ok(!built.packages.has("linkedom") && !built.packages.has("turndown"));
  await using page = localServer(() =>
    new Response("<title>Edge page</title><main><p>Served to the edge.</p></main>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  await using server = await edgeRuntimeServer(built.code, {
    OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
    OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
  });

  const now = await fetch(post(`${server.url}/tools/now`, { tz: "UTC" }));
  assert.equal(now.status, 200);
  assert.match((await now.json()).text, new RegExp(String(new Date().getUTCFullYear())));

  const read = await fetch(post(`${server.url}/tools/web_fetch`, { url: `${page.origin}/` }));
  assert.equal(read.status, 200);
  assert.match((await read.json()).text, /Served to the edge\./);

  const list = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      ...auth,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(list.status, 200);
  const text = await list.text();
  for (const name of ["web_fetch", "web_search", "now"]) assert.match(text, new RegExp(name));
  assert.doesNotMatch(text, /ask_human/);

  // Unconfigured, the same bundle says what to set.
  await using bare = await edgeRuntimeServer(built.code, {});
  const unset = await fetch(`${bare.url}/tools`);
  assert.equal(unset.status, 503);
  assert.match((await unset.json()).error, /OUTPOST_TOOL_TOKEN/);
});

Deno.test("vercel: OUTPOST_SEARCH chooses the backend; one without its key is a 503 naming it", {
  timeout: 60_000,
}, async () => {
  await using apis = searchApis();
  for (const choice of SEARCH_CHOICES) {
    const handler = vercelHandler({
      env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, ...choice.settings(apis.origin) },
      parts: { fetch: searchBackendFetch(apis.origin) },
    });
    const before = apis.received.length;
    const response = await handler(
      post("https://outpost.example/tools/web_search", { query: "lanterns" }),
    );
    assert.equal(response.status, 200, choice.backend);
    assert.match((await response.json()).text, choice.found, choice.backend);
    assert.ok(choice.keyed(apis.received[before]), choice.backend);
  }
  for (const [env, variable] of MISSING_SETTINGS) {
    const handler = vercelHandler({ env: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, ...env } });
    const response = await handler(new Request("https://outpost.example/tools", { headers: auth }));
    assert.equal(response.status, 503);
    const { error, hint } = await response.json();
    assert.equal(
      error,
      `OUTPOST_SEARCH=${env.OUTPOST_SEARCH} needs ${variable}, which is not set.`,
    );
    assert.match(hint, new RegExp(`^Set ${variable}`));
  }
});

Deno.test("vercel: in edge-runtime, OUTPOST_SEARCH chooses each backend", {
  timeout: 300_000,
}, async () => {
  const built = await bundle("tests/fixtures/vercel_service_worker.ts", { format: "iife" });
  await using apis = searchApis();
  for (const choice of SEARCH_CHOICES) {
    // Only the runtime's fetch is wrapped, sending the services' hosts to the fixture.
    await using server = await edgeRuntimeServer(searchBackendPrelude(apis.origin) + built.code, {
      OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
      ...choice.settings(apis.origin),
    });
    const before = apis.received.length;
    const response = await fetch(post(`${server.url}/tools/web_search`, { query: "lanterns" }));
    assert.equal(response.status, 200, choice.backend);
    assert.match((await response.json()).text, choice.found, choice.backend);
    assert.ok(choice.keyed(apis.received[before]), choice.backend);
  }
});
