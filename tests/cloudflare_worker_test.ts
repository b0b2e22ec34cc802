import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { HumanQuestion } from "../src/human/mod.ts";
import { CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN } from "../src/http/console_min.ts";
import { inlineConsole } from "../src/http/console_route.ts";
import { localServer } from "./support/local_server.ts";
import { MISSING_SETTINGS, SEARCH_CHOICES, searchApis } from "./support/search_apis.ts";
import { searchBackendFetch } from "./support/search_backend.ts";
import { sseEvents } from "./support/sse.ts";
import { waitFor } from "./support/wait.ts";
import { type RunningWorker, startWorker, wranglerConfig } from "./support/workerd.ts";

const TOOL_TOKEN = "tool-token-for-workerd-tests";
const OPERATOR_TOKEN = "operator-token-for-workerd-tests";
const vars = {
  OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
  OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
  OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
};
const tool = { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" };
const operator = { authorization: `Bearer ${OPERATOR_TOKEN}`, "content-type": "application/json" };

function callTool(worker: RunningWorker, name: string, input: unknown, headers = {}) {
  return worker.fetch(`/tools/${name}`, {
    method: "POST",
    headers: { ...tool, ...headers },
    body: JSON.stringify(input),
  });
}

async function pending(worker: RunningWorker): Promise<HumanQuestion[]> {
  const response = await worker.fetch("/questions", { headers: operator });
  assert.equal(response.status, 200);
  return (await response.json()).questions;
}

/** Waits until `count` questions are pending, and returns them. */
async function pendingCount(worker: RunningWorker, count: number): Promise<HumanQuestion[]> {
  let list: HumanQuestion[] = [];
  await waitFor(async () => (list = await pending(worker)).length === count, `${count} pending`);
  return list;
}

function answer(worker: RunningWorker, id: string, text: string): Promise<Response> {
  return worker.fetch(`/questions/${id}/answer`, {
    method: "POST",
    headers: operator,
    body: JSON.stringify({ answer: text }),
  });
}

Deno.test("the compatibility date is pinned once, and workerd accepts it", {
  timeout: 120_000,
}, async () => {
  const { compatibility_date } = await wranglerConfig();
  assert.match(compatibility_date, /^\d{4}-\d{2}-\d{2}$/);
  assert.ok(compatibility_date <= "2026-08-06", "within what npm:miniflare@^4's workerd takes");
});

Deno.test("a Worker without its tokens answers 503 and says what to set", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker();
  const response = await worker.fetch("/tools");
  assert.equal(response.status, 503);
  const body = await response.json();
  assert.match(body.error, /OUTPOST_TOOL_TOKEN and OUTPOST_OPERATOR_TOKEN/);
  assert.match(body.hint, /wrangler secret put/);
});

Deno.test("a misconfigured Worker answers 503 and names the setting to fix", {
  timeout: 120_000,
}, async () => {
  for (
    const [settings, message] of [
      [{ ...vars, OUTPOST_TOOL_TOKEN: "short" }, /OUTPOST_TOOL_TOKEN is too short/],
      [{ ...vars, OUTPOST_ALLOW_PRIVATE_NETWORK: "maybe" }, /OUTPOST_ALLOW_PRIVATE_NETWORK/],
      [{ ...vars, OUTPOST_TOOLS: "web_fetch,teleport" }, /OUTPOST_TOOLS names an unknown tool/],
      [{ ...vars, OUTPOST_OPERATOR_TOKEN: TOOL_TOKEN }, /must differ from the tool token/],
    ] as const
  ) {
    await using worker = await startWorker({ vars: settings });
    const response = await worker.fetch("/tools", { headers: tool });
    assert.equal(response.status, 503);
    assert.match((await response.json()).error, message);
  }
});

Deno.test("a Worker without the Durable Object binding needs no operator token", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({
    vars: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN },
    without: ["OUTPOST_QUESTIONS"],
  });
  const response = await worker.fetch("/tools", { headers: tool });
  assert.equal(response.status, 200);
  const names = (await response.json()).tools.map((t: { name: string }) => t.name);
  assert.deepEqual(names, ["web_fetch", "web_search", "now"]);
  assert.equal((await worker.fetch("/questions", { headers: operator })).status, 404);
  // The console is a static asset, there whatever the bindings.
  const page = await worker.fetch("/");
  await page.body?.cancel();
  assert.equal(page.status, 200);
});

Deno.test("the Worker serves the console as static assets, under the policy of the inline one", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({ vars });
  const page = await worker.fetch("/");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type")!, /^text\/html/);
  const html = await page.text();
  // The script and style are files of the page's origin, and nothing runs inline.
  assert.match(html, /<script src="console\.js"><\/script>/);
  assert.match(html, /<link rel="stylesheet" href="console\.css">/);
  assert.doesNotMatch(html, /<script>|<script nonce|<style/);
  // The inline page's headers, its policy naming the origin's files in place of a nonce.
  const inline = inlineConsole();
  await inline.body?.cancel();
  const policy = inline.headers.get("content-security-policy")!;
  const expected = {
    "content-security-policy": policy.replaceAll(/'nonce-[^']+'/g, "'self'"),
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
  assert.match(expected["content-security-policy"], /script-src 'self'; style-src 'self'/);
  assert.match(expected["content-security-policy"], /frame-ancestors 'none'/);
  for (const [name, value] of Object.entries(expected)) {
    assert.equal(inline.headers.get(name), name === "content-security-policy" ? policy : value);
    assert.equal(page.headers.get(name), value, name);
  }
  for (
    const [path, type, text] of [
      ["/console.js", /^text\/javascript/, CONSOLE_SCRIPT_MIN],
      ["/console.css", /^text\/css/, CONSOLE_STYLE_MIN],
    ] as const
  ) {
    const file = await worker.fetch(path);
    assert.equal(file.status, 200, path);
    assert.match(file.headers.get("content-type")!, type);
    assert.equal(file.headers.get("x-content-type-options"), "nosniff");
    assert.equal(file.headers.get("cache-control"), "no-store");
    assert.ok(await file.text() === text, `${path} is not the console's`);
  }
  // The page has one address, where its headers apply; the build's _headers is no asset.
  const index = await worker.fetch("/index.html", { redirect: "manual" });
  await index.body?.cancel();
  assert.equal(index.status, 307);
  assert.equal(index.headers.get("location"), "/");
  const rules = await worker.fetch("/_headers");
  await rules.body?.cancel();
  assert.equal(rules.status, 404);
});

Deno.test("the Worker serves every tool over the JSON API and MCP", {
  timeout: 120_000,
}, async () => {
  await using origin = localServer(() =>
    new Response("<html><body><p>Hello from the origin.</p></body></html>", {
      headers: { "content-type": "text/html" },
    })
  );
  await using worker = await startWorker({ vars });
  const listed = await (await worker.fetch("/tools", { headers: tool })).json();
  assert.deepEqual(
    listed.tools.map((t: { name: string }) => t.name),
    ["web_fetch", "web_search", "now", "ask_human"],
  );
  const now = await callTool(worker, "now", { tz: "UTC" });
  assert.equal(now.status, 200);
  assert.match((await now.json()).text, /\+00:00/);
  const invalid = await callTool(worker, "now", { tz: 42 });
  assert.equal(invalid.status, 400);
  const unknown = await callTool(worker, "teleport", {});
  assert.equal(unknown.status, 404);
  const client = new Client({ name: "outpost-workerd-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", worker.origin), {
      requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["web_fetch", "web_search", "now", "ask_human"]);
    const result = await client.callTool({
      name: "web_fetch",
      arguments: { url: `${origin.origin}/hello` },
    });
    assert.equal(result.isError, undefined);
    assert.match(JSON.stringify(result.content), /Hello from the origin\./);
  } finally {
    await client.close();
  }
});

Deno.test("ask_human: asked in one request, answered from another, through the Durable Object", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({ vars });
  const asking = callTool(worker, "ask_human", {
    question: "Deploy to production?",
    options: [{ label: "Yes" }, { label: "No" }],
  });
  const [question] = await pendingCount(worker, 1);
  assert.equal(question.question, "Deploy to production?");
  const answered = await answer(worker, question.id, "Yes");
  assert.deepEqual(await answered.json(), { id: question.id, status: "answered" });
  const response = await asking;
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { text: "Yes" });
  assert.deepEqual(await pending(worker), []);
  const again = await answer(worker, question.id, "No");
  assert.equal(again.status, 409, "the first answer wins");
  const record = await (await worker.fetch(`/questions/${question.id}`, { headers: operator }))
    .json();
  assert.equal(record.status, "answered");
  assert.equal(record.answer, "Yes");
});

Deno.test("ask_human over MCP on the Worker, answered from the operator API", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({ vars });
  const client = new Client({ name: "outpost-workerd-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", worker.origin), {
      requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}` } },
    }),
  );
  try {
    const calling = client.callTool({
      name: "ask_human",
      arguments: { question: "Over MCP?" },
      _meta: { "outpost/toolCallId": "mcp-call-1" },
    });
    const [question] = await pendingCount(worker, 1);
    assert.equal(question.toolCallId, "mcp-call-1");
    assert.equal((await answer(worker, question.id, "yes, over MCP")).status, 200);
    const result = await calling;
    assert.equal(result.isError, undefined);
    assert.match(JSON.stringify(result.content), /yes, over MCP/);
  } finally {
    await client.close();
  }
});

Deno.test("100 concurrent questions on one channel are each answered exactly once", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({ vars });
  const count = 100;
  const asks = Array.from(
    { length: count },
    (_, i) =>
      callTool(worker, "ask_human", { question: `Question ${i}?` }, {
        "outpost-tool-call-id": `call-${i}`,
      }).then(async (response) => ({ status: response.status, body: await response.json() })),
  );
  const questions = await pendingCount(worker, count);
  // Every question answered twice at once: exactly one answer of each pair wins.
  const results = await Promise.all(
    questions.flatMap((q) =>
      [
        answer(worker, q.id, `answer to ${q.question}`),
        answer(worker, q.id, `second answer to ${q.question}`),
      ].map((response) => response.then((r) => r.status))
    ),
  );
  assert.equal(results.filter((status) => status === 200).length, count);
  assert.equal(results.filter((status) => status === 409).length, count);
  const answers = await Promise.all(asks);
  answers.forEach(({ status, body }, i) => {
    assert.equal(status, 200);
    assert.match(body.text, new RegExp(`^(second )?answer to Question ${i}\\?$`));
  });
  assert.deepEqual(await pending(worker), []);
});

Deno.test("a question survives a restart of workerd, and the retried call gets its answer", {
  timeout: 120_000,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "outpost-workerd-persist-" });
  try {
    await using worker = await startWorker({ vars, persistDir: dir });
    const headers = { "outpost-session-id": "s1", "outpost-tool-call-id": "call-restart" };
    const input = { question: "Which region?", options: [{ label: "eu" }, { label: "us" }] };
    // The asking request dies with the runtime.
    const first = callTool(worker, "ask_human", input, headers).then(
      (r) => r.body?.cancel(),
      () => {},
    );
    const [question] = await pendingCount(worker, 1);
    await worker.restart();
    await first;
    assert.deepEqual((await pending(worker)).map((q) => q.id), [question.id]);
    assert.equal((await answer(worker, question.id, "eu")).status, 200);
    const retried = await callTool(worker, "ask_human", input, headers);
    assert.equal(retried.status, 200);
    assert.deepEqual(await retried.json(), { text: "eu" });
    assert.deepEqual(await pending(worker), [], "nothing was asked twice");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (
  const [what, entry] of [
    ["the Worker", undefined],
    [
      "a Worker that keeps its app across requests",
      new URL("./fixtures/cached_app_worker.ts", import.meta.url),
    ],
  ] as const
) {
  Deno.test(`two console streams on ${what}: one closing leaves the other getting events`, {
    timeout: 120_000,
  }, async () => {
    await using worker = await startWorker({ vars, entry });
    const events = () => worker.fetch("/questions/events", { headers: operator });
    const a = sseEvents(await events());
    const b = sseEvents(await events());
    const first = callTool(worker, "ask_human", { question: "First?" });
    assert.equal((await a.next()).data.question, "First?");
    assert.equal((await b.next()).data.question, "First?");
    await a.close();
    const second = callTool(worker, "ask_human", { question: "Second?" });
    assert.equal((await b.next()).data.question, "Second?");
    // A stream opened after one closed is served too.
    const c = sseEvents(await events());
    const seen = [(await c.next()).data.question, (await c.next()).data.question];
    assert.deepEqual(seen.sort(), ["First?", "Second?"]);
    for (const question of await pending(worker)) await answer(worker, question.id, "ok");
    assert.deepEqual([(await b.next()).event, (await b.next()).event], ["answered", "answered"]);
    assert.deepEqual([(await c.next()).event, (await c.next()).event], ["answered", "answered"]);
    for (const response of await Promise.all([first, second])) {
      assert.deepEqual(await response.json(), { text: "ok" });
    }
    await b.close();
    await c.close();
  });
}

Deno.test("the Worker's OUTPOST_SEARCH chooses the backend; one without its key is a 503", {
  timeout: 300_000,
}, async () => {
  await using apis = searchApis();
  const base = { OUTPOST_TOOL_TOKEN: TOOL_TOKEN };
  for (const choice of SEARCH_CHOICES) {
    await using worker = await startWorker({
      vars: { ...base, ...choice.settings(apis.origin) },
      outbound: searchBackendFetch(apis.origin),
      without: ["OUTPOST_QUESTIONS"],
    });
    const before = apis.received.length;
    const response = await callTool(worker, "web_search", { query: "lanterns" });
    assert.equal(response.status, 200, choice.backend);
    assert.match((await response.json()).text, choice.found, choice.backend);
    assert.ok(choice.keyed(apis.received[before]), choice.backend);
  }
  // One missing setting: the 503 is the same path for each (all are checked on Deno and Vercel).
  for (const [env, variable] of MISSING_SETTINGS.slice(0, 1)) {
    await using worker = await startWorker({
      vars: { ...base, ...env },
      without: ["OUTPOST_QUESTIONS"],
    });
    const response = await worker.fetch("/tools", { headers: tool });
    assert.equal(response.status, 503);
    const { error } = await response.json();
    assert.equal(
      error,
      `OUTPOST_SEARCH=${env.OUTPOST_SEARCH} needs ${variable}, which is not set.`,
    );
  }
});

Deno.test("the Worker writes an access-log line per tool call to its console", {
  timeout: 120_000,
}, async () => {
  await using site = localServer(() =>
    new Response("hello", { headers: { "content-type": "text/plain" } })
  );
  let stdout = "";
  await using worker = await startWorker({ vars, onStdout: (text) => (stdout += text) });
  const response = await callTool(worker, "web_fetch", { url: `${site.origin}/a?key=secret` });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const failed = await callTool(worker, "web_fetch", { url: "ftp://example.com/" });
  assert.equal(failed.status, 400);
  await failed.body?.cancel();
  let lines: Record<string, unknown>[] = [];
  await waitFor(() => {
    lines = stdout.split("\n").filter((line) => line.startsWith('{"time"')).map((line) =>
      JSON.parse(line)
    );
    return lines.length === 2;
  }, "two access-log lines");
  assert.deepEqual(
    lines.map(({ tool, outcome, errorCode, host, bytesRead, cacheHit }) => ({
      tool,
      outcome,
      errorCode,
      host,
      bytesRead,
      cacheHit,
    })),
    [
      {
        tool: "web_fetch",
        outcome: "ok",
        errorCode: undefined,
        host: new URL(site.origin).host,
        bytesRead: 5,
        cacheHit: false,
      },
      {
        tool: "web_fetch",
        outcome: "error",
        errorCode: "invalid_input",
        host: undefined,
        bytesRead: 0,
        cacheHit: false,
      },
    ],
  );
  assert.ok(!stdout.includes("secret"));
});
