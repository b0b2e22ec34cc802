/**
 * One set of scenarios run unchanged against every runtime's deployment of the app: the Deno
 * service, the Vercel Edge bundle in edge-runtime and the Worker in workerd. Each runtime's test
 * starts {@linkcode scenarioFixtures}, deploys the app configured by {@linkcode scenarioEnv} with
 * DuckDuckGo's host sent to the search fixture, and calls {@linkcode runScenarios}, whose steps
 * are named after the runtime.
 */
import assert from "node:assert/strict";
import { type LocalServer, localServer } from "./local_server.ts";
import { sseEvents } from "./sse.ts";

export const TOOL_TOKEN = "scenario-tool-token-0123456789";
export const OPERATOR_TOKEN = "scenario-operator-token-0123456789";

/** A local page to read and a DuckDuckGo-shaped backend to search, both on 127.0.0.1. */
export interface ScenarioFixtures extends AsyncDisposable {
  pages: LocalServer;
  search: LocalServer;
}

/** What a deployment under test offers. */
export interface ScenarioTarget {
  /** The runtime's name, which prefixes every step. */
  runtime: string;
  /** The deployment's origin, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Whether `ask_human` has a channel that spans requests (and instances). */
  durableChannel: boolean;
}

const ARTICLE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Field notes</title></head>
<body><main><article><h1>Field notes from the outpost</h1>
<p>The generator hums through the night, and the antenna points north.</p>
<p>Supplies arrive on Thursdays; the next drop brings lamp oil and batteries.</p>
</article></main></body></html>`;

export function searchPage(query: string): string {
  const hit = (n: number) => `
  <div class="result results_links results_links_deep web-result">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="https://example.com/outpost-${n}">Outpost guide ${n}</a>
      </h2>
      <div class="result__extras"><div class="result__extras__url">
        <a class="result__url" href="https://example.com/outpost-${n}">example.com/outpost-${n}</a>
      </div></div>
      <a class="result__snippet" href="https://example.com/outpost-${n}">How to run outpost number ${n}.</a>
    </div>
  </div>`;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${query} at DuckDuckGo</title>
</head><body><div id="links" class="results">${hit(1)}${hit(2)}</div></body></html>`;
}

export function scenarioFixtures(): ScenarioFixtures {
  const pages = localServer(() =>
    new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } })
  );
  const search = localServer(async (request) => {
    const query = new URLSearchParams(await request.text()).get("q") ?? "";
    return new Response(searchPage(query), {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  });
  return {
    pages,
    search,
    async [Symbol.asyncDispose]() {
      await Promise.all([pages.close(), search.close()]);
    },
  };
}

/**
 * The environment every deployment under test gets: the shared names, with private addresses
 * allowed (the fixtures are on 127.0.0.1). Search reaches its fixture through the runtime's
 * `fetch` (see `search_backend.ts`).
 */
export function scenarioEnv(): Record<string, string> {
  return {
    OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
    OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
    OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
  };
}

function callTool(target: ScenarioTarget, name: string, body: unknown, headers = {}) {
  return fetch(`${target.url}/tools/${name}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOOL_TOKEN}`,
      "content-type": "application/json",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function mcp(target: ScenarioTarget, id: number, method: string, params: unknown) {
  const response = await fetch(`${target.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOOL_TOKEN}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  assert.equal(response.status, 200);
  const text = await response.text();
  // Streamable HTTP answers as SSE or as JSON; the reply is the message with our id.
  const messages = response.headers.get("content-type")?.includes("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
      JSON.parse(line.slice(5))
    )
    : [JSON.parse(text)];
  const reply = messages.find((message) => message.id === id);
  assert.ok(reply, `a reply to ${method}: ${text.slice(0, 300)}`);
  return reply;
}

/** Runs every scenario as a step named `<runtime>: <scenario>`. */
export async function runScenarios(
  t: Deno.TestContext,
  target: ScenarioTarget,
  fixtures: ScenarioFixtures,
): Promise<void> {
  const step = (name: string, fn: () => Promise<void>) => t.step(`${target.runtime}: ${name}`, fn);

  await step("MCP tools/list names every tool", async () => {
    const reply = await mcp(target, 1, "tools/list", {});
    const names = reply.result.tools.map((tool: { name: string }) => tool.name);
    const expected = ["web_fetch", "web_search", "now"];
    if (target.durableChannel) expected.push("ask_human");
    assert.deepEqual(names, expected);
  });

  await step("MCP tools/call runs now", async () => {
    const reply = await mcp(target, 2, "tools/call", {
      name: "now",
      arguments: { tz: "UTC" },
    });
    assert.equal(reply.result.isError, undefined);
    assert.match(reply.result.content[0].text, new RegExp(String(new Date().getUTCFullYear())));
  });

  const page = `${fixtures.pages.origin}/field-notes`;
  await step("web_fetch reads a local page", async () => {
    const response = await callTool(target, "web_fetch", { url: page });
    assert.equal(response.status, 200);
    const { text } = await response.json();
    assert.match(text, /Field notes from the outpost/);
    assert.match(text, /lamp oil and batteries/);
  });

  await step("web_fetch answers a second read from the cache", async () => {
    const before = fixtures.pages.received.filter((r) => r.path === "/field-notes").length;
    const response = await callTool(target, "web_fetch", { url: page });
    assert.equal(response.status, 200);
    assert.match((await response.json()).text, /antenna points north/);
    const after = fixtures.pages.received.filter((r) => r.path === "/field-notes").length;
    assert.equal(before, 1, "the first read reached the origin once");
    assert.equal(after, 1, "the second read did not reach the origin");
  });

  await step("web_search asks the fixture backend", async () => {
    const response = await callTool(target, "web_search", { query: "outpost guide" });
    assert.equal(response.status, 200);
    const { text } = await response.json();
    assert.match(text, /Outpost guide 1/);
    assert.match(text, /https:\/\/example\.com\/outpost-2/);
    assert.equal(
      new URLSearchParams(fixtures.search.received.at(-1)?.body).get("q"),
      "outpost guide",
    );
  });

  await step("invalid input is a 400 that says what is wrong", async () => {
    const response = await callTool(target, "web_fetch", { url: 42 });
    assert.equal(response.status, 400);
    const { error } = await response.json();
    assert.match(error, /url/);
    const malformed = await callTool(target, "now", "{not json");
    assert.equal(malformed.status, 400);
    await malformed.body?.cancel();
  });

  await step("an unknown tool is a 404 naming the known ones", async () => {
    const response = await callTool(target, "telnet", {});
    assert.equal(response.status, 404);
    const { error, hint } = await response.json();
    assert.match(`${error} ${hint}`, /web_fetch/);
  });

  if (!target.durableChannel) {
    await step("ask_human is not served without a durable channel", async () => {
      const response = await callTool(target, "ask_human", { question: "Anyone?" });
      assert.equal(response.status, 404);
      await response.body?.cancel();
    });
    return;
  }

  await step("ask_human: asked in one request, answered from another", async () => {
    const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
    const events = await fetch(`${target.url}/questions/events`, { headers: operator });
    assert.equal(events.status, 200);
    const asking = callTool(target, "ask_human", {
      question: "Which frequency tonight?",
      options: [{ label: "7.1 MHz" }, { label: "14.2 MHz" }],
    }, { "outpost-tool-call-id": `scenario-${crypto.randomUUID()}` });
    const stream = sseEvents(events);
    let asked;
    while ((asked = await stream.next()).event !== "asked");
    await stream.close();
    const question = asked.data as { id: string; question: string };
    assert.equal(question.question, "Which frequency tonight?");
    const answer = await fetch(`${target.url}/questions/${question.id}/answer`, {
      method: "POST",
      headers: { ...operator, "content-type": "application/json" },
      body: JSON.stringify({ answer: "14.2 MHz" }),
    });
    assert.equal(answer.status, 200);
    await answer.body?.cancel();
    const response = await asking;
    assert.equal(response.status, 200);
    assert.match((await response.json()).text, /14\.2 MHz/);
  });
}
