import assert from "node:assert/strict";
import * as z from "zod";
import { type Tool, tool, ToolError } from "../mod.ts";
import { type McpPost, withMcp } from "./support/mcp_http.ts";
import { mcpMessages } from "./support/sse.ts";

// A POST that carries a single request is answered without the transport and session a batch goes
// through (answerLoneRequest): these tests hold the two paths to the same answers.

/** A notification beside a request makes a batch: the transport's path. */
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

const echo = tool({
  name: "echo",
  description: "Echoes its text, warns, and reports it as structure.",
  input: z.object({ text: z.string() }),
  execute: ({ text }, ctx) => {
    ctx.warn?.(`echoing ${text}`);
    ctx.reportStructured?.({ text });
    return text;
  },
});
const fail = tool({
  name: "fail",
  description: "Fails as a tool does, or unexpectedly.",
  input: z.object({ expected: z.boolean() }),
  execute: ({ expected }) => {
    if (expected) throw new ToolError("Slow down.", { code: "rate_limited", retryAfterMs: 2000 });
    throw new Error("a bug");
  },
});
let release = () => {};
const slow = tool({
  name: "slow",
  description: "Works until released, reporting progress.",
  input: z.object({}),
  execute: async (_input, ctx) => {
    ctx.reportProgress?.({ message: "Waiting for the release" });
    await new Promise<void>((resolve) => release = resolve);
    return "released";
  },
});

/** `/mcp` of an app of the tools above on 127.0.0.1, and a raw POST to it. */
function withTools(run: (post: McpPost) => Promise<void>): Promise<void> {
  return withMcp({ tools: [echo, fail, slow], mcpProgressIntervalMs: 10, onError: () => {} }, run);
}

/** What a client sees of an answer: status, the headers that matter, and the body. */
async function seen(response: Response) {
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    cacheControl: response.headers.get("cache-control"),
    body: await response.text(),
  };
}

function request(id: number | string, method: string, params?: unknown) {
  return { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
}

Deno.test("a single MCP request is answered as the same request in a batch is", {
  timeout: 60_000,
}, async () => {
  const cases = [
    request(1, "tools/call", { name: "echo", arguments: { text: "hi" } }),
    request("s-1", "tools/call", { name: "echo", arguments: { text: "string id" } }),
    request(2, "tools/call", { name: "nope", arguments: {} }),
    request(3, "tools/call", { name: 7 }),
    request(4, "tools/call", { name: "echo", arguments: ["hi"] }),
    request(5, "tools/call", { name: "echo", arguments: { text: 1 } }),
    request(6, "tools/call", { name: "fail", arguments: { expected: true } }),
    request(7, "tools/call", { name: "fail", arguments: { expected: false } }),
    request(8, "tools/call", {
      name: "echo",
      arguments: { text: "x" },
      _meta: { "outpost/runId": "" },
    }),
    request(9, "tools/list"),
    request(10, "tools/list", { cursor: 1 }),
    request(11, "ping"),
    request(12, "no/such/method"),
    request(13, "logging/setLevel", { level: "loud" }),
    request(14, "prompts/list"),
    request(15, "prompts/get", { name: "fetch", arguments: { url: "http://127.0.0.1/" } }),
  ];
  await withTools(async (post) => {
    for (const message of cases) {
      const alone = await seen(await post(message));
      const inBatch = await seen(await post([message, INITIALIZED]));
      assert.deepEqual(alone, inBatch, JSON.stringify(message));
      assert.equal(alone.status, 200);
      assert.match(alone.body, new RegExp(`"id":${JSON.stringify(message.id)}`));
    }
    // A call's notifications come before its response on both paths.
    const { body } = await seen(await post(cases[0]));
    assert.ok(body.indexOf('"notifications/message"') < body.indexOf('"result"'));
  });
});

Deno.test("a single MCP request is refused as the same request in a batch is", {
  timeout: 60_000,
}, async () => {
  const call = request(1, "tools/call", { name: "echo", arguments: { text: "hi" } });
  await withTools(async (post) => {
    const refused: [unknown, Record<string, string>?][] = [
      [{ ...call, jsonrpc: "1.0" }],
      [{ ...call, extra: true }],
      [{ ...call, params: { ...call.params, _meta: { progressToken: 1.5 } } }],
      [call, { accept: "application/json" }],
      [call, { "content-type": "text/plain" }],
      [call, { "mcp-protocol-version": "1999-01-01" }],
    ];
    for (const [message, headers] of refused) {
      const alone = await seen(await post(message, headers));
      const inBatch = await seen(await post([message, INITIALIZED], headers));
      assert.deepEqual(alone, inBatch, JSON.stringify([message, headers]));
      assert.ok(alone.status >= 400, JSON.stringify([message, headers]));
    }
    // Notifications alone never reach either path's answers: 202, nothing to read.
    const accepted = await seen(await post(INITIALIZED));
    assert.deepEqual(accepted, await seen(await post([INITIALIZED, INITIALIZED])));
    assert.equal(accepted.status, 202);
  });
});

/** The events of a streamed answer, progress notifications' varying parts left out. */
async function streamed(response: Response) {
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  assert.equal(response.headers.get("connection"), "keep-alive");
  assert.equal(response.headers.get("cache-control"), "no-cache, no-transform");
  const events = (await response.text()).split("\n\n").filter(Boolean).map((event) => {
    const [kind, data] = event.split("\n");
    assert.equal(kind, "event: message");
    const message = JSON.parse(data.slice("data: ".length));
    if (message.method === "notifications/progress") {
      assert.equal(message.params.progressToken, "p");
      assert.match(message.params.message, /^Waiting for the release, \d+ s$/);
      return "progress";
    }
    return message;
  });
  // At least one progress notification, however many the interval made, then the response.
  const progress = events.filter((event) => event === "progress").length;
  assert.ok(progress >= 1);
  return events.slice(progress - 1);
}

Deno.test("a single MCP call that asks for progress streams it as the same call in a batch does", {
  timeout: 60_000,
}, async () => {
  const call = request(1, "tools/call", {
    name: "slow",
    arguments: {},
    _meta: { progressToken: "p" },
  });
  await withTools(async (post) => {
    const answers = [];
    for (const body of [call, [call, INITIALIZED]]) {
      // The call runs until released: its answer streams once it has taken longer than an
      // answer sent whole may, and its first progress, due sooner, comes first.
      const response = await post(body);
      assert.equal(response.status, 200);
      const answered = streamed(response);
      release();
      answers.push(await answered);
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0].at(-1), {
      result: { content: [{ type: "text", text: "released" }] },
      jsonrpc: "2.0",
      id: 1,
    });
  });
});

/**
 * What `message` gets alone (the lone-request path) and in a batch (the transport's), from an app
 * of `tools`, and the failures its `onError` received.
 */
async function onBothPaths(tools: Tool[], message: unknown) {
  const errors: unknown[] = [];
  const answers: unknown[] = [];
  await withMcp({ tools, onError: (error) => errors.push(error) }, async (post) => {
    for (const body of [message, [message, INITIALIZED]]) {
      const response = await post(body);
      assert.equal(response.status, 200);
      answers.push((await mcpMessages(response)).at(-1));
    }
  });
  return { answers, errors };
}

Deno.test("a structured result JSON cannot carry fails the call on both paths, never the server", {
  timeout: 60_000,
}, async () => {
  const unsendable = tool({
    name: "unsendable",
    description: "Reports a structure JSON cannot carry.",
    input: z.object({}),
    outputSchema: { type: "object", properties: { count: { type: "integer" } } },
    execute: () => ({ text: "done", structured: { count: 1n } }),
  });
  const call = request(1, "tools/call", { name: "unsendable", arguments: {} });
  const { answers, errors } = await onBothPaths([unsendable], call);
  const failed = {
    jsonrpc: "2.0",
    id: 1,
    result: {
      content: [{ type: "text", text: "Error: the tool failed unexpectedly." }],
      isError: true,
    },
  };
  assert.deepEqual(answers, [failed, failed]);
  // Each failure reaches the app's onError: one for the lone request, one for the batch.
  assert.equal(errors.length, 2);
  for (const error of errors) assert.match(String(error), /BigInt/);
});

Deno.test("a response that cannot be sent is an internal error on both paths, seen by onError", {
  timeout: 60_000,
}, async () => {
  // tools/list carries each tool's output schema as given: one JSON cannot carry fails the send.
  const unlisted = tool({
    name: "unlisted",
    description: "Declares an output schema JSON cannot carry.",
    input: z.object({}),
    outputSchema: { type: "object", properties: { count: { type: "integer", maximum: 10n } } },
    execute: () => "done",
  });
  const { answers, errors } = await onBothPaths([unlisted], request(1, "tools/list"));
  const internal = { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } };
  assert.deepEqual(answers, [internal, internal]);
  // One failure for the lone request, one for the batch.
  assert.equal(errors.length, 2);
  for (const error of errors) assert.match(String(error), /Failed to send response: .*BigInt/);
});

Deno.test("a call that a stopping service ends is answered as the same call in a batch is", {
  timeout: 60_000,
}, async () => {
  const answers: unknown[] = [];
  for (const inBatch of [false, true]) {
    let running = () => {};
    const started = new Promise<void>((resolve) => running = resolve);
    const held = tool({
      name: "held",
      description: "Runs until its call is aborted.",
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal?.addEventListener("abort", () => reject(ctx.signal?.reason));
          running();
        }),
    });
    // An app for each path: a drain leaves its app stopping.
    await withMcp({ tools: [held], onError: () => {} }, async (post, _url, app) => {
      const call = request(1, "tools/call", { name: "held", arguments: {} });
      const answered = post(inBatch ? [call, INITIALIZED] : call);
      await started;
      // The call has no tool-call id: the end of the grace period aborts it.
      await app.drain(0);
      const response = await answered;
      assert.equal(response.status, 200);
      answers.push((await mcpMessages(response)).at(-1));
    });
  }
  assert.deepEqual(answers[0], answers[1]);
  // The client is still there: it gets the call's end as an error, not silence.
  assert.deepEqual(answers[0], {
    jsonrpc: "2.0",
    id: 1,
    error: { code: 20, message: "The service is stopping." },
  });
});
