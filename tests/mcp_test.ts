import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import * as z from "zod";
import { askHuman, now, type Tool, tool, ToolError, webFetch } from "../mod.ts";
import { webSearch } from "../src/search/mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { localServer } from "./support/local_server.ts";
import { waitFor } from "./support/wait.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";

const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  annotations: { title: "Echo", readOnlyHint: true },
  execute({ text }) {
    if (text === "refuse") throw new ToolError("Told to refuse.", { hint: "Say something else." });
    if (text === "crash") throw new TypeError("secret internals");
    return text;
  },
});

async function withClient(
  run: (client: Client, errors: unknown[]) => Promise<void>,
  token = TOOL_TOKEN,
): Promise<void> {
  const errors: unknown[] = [];
  const app = createApp({
    // Loopback pages only in these tests, so the reader's private-network guard is lifted.
    tools: [echo, now, webFetch(new HttpReader({ allowPrivateNetwork: true }))],
    auth: { toolToken: TOOL_TOKEN },
    onError: (error) => errors.push(error),
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const client = new Client({ name: "outpost-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    { requestInit: { headers: { authorization: `Bearer ${token}` } } },
  );
  try {
    await client.connect(transport);
    await run(client, errors);
  } finally {
    await client.close();
    await server.shutdown();
  }
}

Deno.test("MCP lists the tools with their schemas and annotations", async () => {
  await withClient(async (client) => {
    assert.equal(client.getServerVersion()?.name, "outpost");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["echo", "now", "web_fetch"]);
    assert.deepEqual(tools[2].annotations, { readOnlyHint: true, openWorldHint: true });
    assert.deepEqual(tools[0].inputSchema, echo.parameters);
    assert.equal(tools[0].description, "Echoes its text.");
    assert.deepEqual(tools[0].annotations, { title: "Echo", readOnlyHint: true });
    assert.deepEqual(tools[1].annotations, { readOnlyHint: true, openWorldHint: false });
  });
});

Deno.test("MCP hints belong to the tool, not to its name", async () => {
  const channel = new MemoryQuestionChannel();
  // A tool of the user's that happens to be called `now` claims nothing.
  const userNow = tool({
    name: "now",
    description: "Starts the deployment now.",
    input: z.object({}),
    execute: () => "started",
  });
  const app = createApp({
    tools: [askHuman(channel, { name: "ask_operator" }), userNow],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: "operator-token-0123456789abcdef" },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const client = new Client({ name: "outpost-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}` } },
      }),
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => [t.name, t.annotations]), [
      ["ask_operator", { readOnlyHint: false, destructiveHint: false, openWorldHint: false }],
      ["now", undefined],
    ]);
  } finally {
    await client.close();
    channel.close();
    app.close();
    await server.shutdown();
  }
});

Deno.test("MCP calls a tool and returns its text", async () => {
  await withClient(async (client) => {
    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    assert.deepEqual(result, { content: [{ type: "text", text: "hello" }] });
  });
});

Deno.test("MCP calls web_fetch on a local page", async () => {
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path !== "/article") return new Response("gone", { status: 404 });
    return new Response(
      "<!doctype html><html><head><title>Field notes</title></head><body><main>" +
        "<h1>Field notes</h1><p>The <a href='/next'>next page</a> has <b>more</b>.</p>" +
        "<script>alert('x')</script></main></body></html>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const page = `http://127.0.0.1:${site.addr.port}`;
  try {
    await withClient(async (client) => {
      const result = await client.callTool({
        name: "web_fetch",
        arguments: { url: `${page}/article` },
      });
      assert.equal(result.isError, undefined);
      const text = (result.content as { type: string; text: string }[])[0].text;
      assert.match(text, /# Field notes/);
      assert.ok(text.includes(`[next page](${page}/next)`), text);
      assert.match(text, /\*\*more\*\*/);
      assert.doesNotMatch(text, /alert/);
      assert.match(text, /BEGIN EXTERNAL CONTENT/);

      const missing = await client.callTool({
        name: "web_fetch",
        arguments: { url: `${page}/missing` },
      });
      assert.match((missing.content as { text: string }[])[0].text, /404/);

      const refused = await client.callTool({
        name: "web_fetch",
        arguments: { url: "ftp://127.0.0.1/file" },
      });
      assert.equal(refused.isError, true);
      assert.match(
        (refused.content as { text: string }[])[0].text,
        /^Error: Unsupported URL scheme/,
      );
    });
  } finally {
    await site.shutdown();
  }
});

Deno.test("a ToolError comes back as an MCP error result, not a protocol error", async () => {
  await withClient(async (client, errors) => {
    let result = await client.callTool({ name: "echo", arguments: { text: "refuse" } });
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [
      { type: "text", text: "Error: Told to refuse.\nHint: Say something else." },
    ]);
    // The host's data rides in the result's `_meta`, under a key of our own.
    assert.deepEqual(result._meta, { "outpost/error": { code: "failed" } });
    result = await client.callTool({ name: "echo", arguments: { text: 5 } });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0].text, /^Error: Invalid input for echo/);
    assert.deepEqual(result._meta, { "outpost/error": { code: "invalid_input" } });
    result = await client.callTool({ name: "echo", arguments: { text: "crash" } });
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [
      { type: "text", text: "Error: the tool failed unexpectedly." },
    ]);
    assert.equal(result._meta, undefined, "a bug has no code to act on");
    assert.equal(errors.length, 1);
  });
});

Deno.test("a rate-limited call carries its code, status and wait in _meta", async () => {
  await using site = localServer(() =>
    new Response("slow down", { status: 429, headers: { "retry-after": "120" } })
  );
  await withClient(async (client) => {
    const result = await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0].text, /rate limiting/);
    assert.deepEqual(result._meta, {
      "outpost/error": { code: "rate_limited", status: 429, retryAfterMs: 120_000 },
    });
  });
});

Deno.test("an unknown tool is a protocol error", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.callTool({ name: "missing", arguments: {} }),
      {
        code: -32602,
        // The SDK prefixes the code on both ends of the wire; the text after it is ours.
        message:
          /^(?:MCP error -32602: )+Unknown tool "missing"\. Available tools: echo, now, web_fetch\.$/,
      },
    );
  });
});

Deno.test("MCP needs the tool token", async () => {
  await assert.rejects(
    withClient(() => Promise.resolve(), "wrong-token-0123456789abcdef"),
    /Missing or wrong bearer token/,
  );
});

/** Posts one raw JSON-RPC body to an app's MCP endpoint, as a client without the SDK would. */
function postMcp(
  port: number,
  body: unknown,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOOL_TOKEN}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      ...options.headers,
    },
    body: JSON.stringify(body),
    signal: options.signal,
  });
}

/** A `tools/call` of `ask_human`, as a JSON-RPC message. */
function askCall(id: number, question: string, meta?: Record<string, string>) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "ask_human", arguments: { question }, ...(meta ? { _meta: meta } : {}) },
  };
}

/** An app serving `ask_human` on a memory channel, and an MCP client connected to it. */
async function askHumanClient(
  headers: Record<string, string> = {},
): Promise<{ client: Client; channel: MemoryQuestionChannel; port: number } & AsyncDisposable> {
  const channel = new MemoryQuestionChannel();
  const app = createApp({
    tools: [askHuman(channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: "operator-token-0123456789abcdef" },
    mcpProgressIntervalMs: 10,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const client = new Client({ name: "outpost-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}`, ...headers } },
    }),
  );
  return {
    client,
    channel,
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      await client.close();
      channel.close();
      app.close();
      await server.shutdown();
    },
  };
}

Deno.test("ask_human over MCP: each call carries its own ids in _meta, reports what it waits for, and returns the answer", async () => {
  await using mcp = await askHumanClient();
  const { client, channel } = mcp;
  const progressed: string[] = [];
  const seen = Promise.withResolvers<void>();
  const ask = (id: string) =>
    client.callTool(
      {
        name: "ask_human",
        arguments: { question: "Via MCP?" },
        _meta: { "outpost/toolCallId": id, "outpost/sessionId": "sess_mcp" },
      },
      undefined,
      {
        onprogress: (p) => {
          progressed.push(p.message ?? "");
          seen.resolve();
        },
        resetTimeoutOnProgress: true,
      },
    );
  const first = ask("call_1");
  await seen.promise;
  assert.match(progressed[0], /^Waiting for an operator, \d+ s$/);
  const [question] = await channel.pending;
  assert.equal(question.question, "Via MCP?");
  assert.equal(question.toolCallId, "call_1");
  assert.equal(question.sessionId, "sess_mcp");
  assert.equal(await channel.answer(question.id, "Yes, via MCP"), true);
  assert.deepEqual(await first, { content: [{ type: "text", text: "Yes, via MCP" }] });
  // The same question, later on the same connection, from another tool call: asked afresh.
  const second = ask("call_2");
  await waitFor(async () => (await channel.pending).length === 1, "the second question");
  const [again] = await channel.pending;
  assert.notEqual(again.id, question.id);
  assert.equal(again.toolCallId, "call_2");
  await channel.answer(again.id, "No, not this time");
  assert.deepEqual(await second, { content: [{ type: "text", text: "No, not this time" }] });
  // A retry of the first call re-attaches to its answered question.
  assert.deepEqual(await ask("call_1"), { content: [{ type: "text", text: "Yes, via MCP" }] });
});

Deno.test("MCP _meta ids are checked like the headers", async () => {
  await using mcp = await askHumanClient();
  await assert.rejects(
    mcp.client.callTool({
      name: "ask_human",
      arguments: { question: "?" },
      _meta: { "outpost/toolCallId": 42 },
    }),
    /_meta\["outpost\/toolCallId"\] must be a string of 1 to 256 characters/,
  );
});

Deno.test("Outpost-*-Id headers name the call of a single-message MCP request, and refuse a batch", async () => {
  await using mcp = await askHumanClient();
  const post = (body: unknown) =>
    postMcp(mcp.port, body, { headers: { "outpost-tool-call-id": "call_header" } });
  const batch = await post([askCall(1, "One?"), askCall(2, "Two?")]);
  assert.equal(batch.status, 400);
  assert.match((await batch.json()).error.message, /name a single call/);
  assert.deepEqual(await mcp.channel.pending, []);

  const single = post(askCall(3, "Just one?"));
  await waitFor(async () => (await mcp.channel.pending).length === 1, "the question");
  const [question] = await mcp.channel.pending;
  assert.equal(question.toolCallId, "call_header");
  await mcp.channel.answer(question.id, "Yes");
  const response = await single;
  assert.match(await response.text(), /"text":"Yes"/);
});

Deno.test("an MCP call with a tool-call id outlives its dropped connection, and its retry re-attaches", async () => {
  await using mcp = await askHumanClient();
  const hangUp = new AbortController();
  const request = (signal?: AbortSignal) =>
    postMcp(
      mcp.port,
      askCall(1, "Still there?", { "outpost/toolCallId": "call_durable" }),
      signal && { signal },
    );
  const dropped = request(hangUp.signal).catch((error) => error);
  await waitFor(async () => (await mcp.channel.pending).length === 1, "the question");
  hangUp.abort();
  const gone = await dropped;
  if (gone instanceof Response) await gone.body?.cancel().catch(() => {});
  // Still pending after the drop: nothing withdrew it.
  const [question] = await mcp.channel.pending;
  assert.equal(question.toolCallId, "call_durable");
  const retry = request();
  await mcp.channel.answer(question.id, "Here");
  assert.match(await (await retry).text(), /"text":"Here"/);
  assert.equal((await mcp.channel.get(question.id))?.status, "answered");
});

Deno.test("web_fetch over MCP reports how much it has downloaded", {
  timeout: 20_000,
}, async () => {
  const release = Promise.withResolvers<void>();
  await using site = localServer(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("x".repeat(340_000)));
          await release.promise;
          controller.close();
        },
      }),
      { headers: { "content-type": "text/plain" } },
    )
  );
  const app = createApp({
    tools: [webFetch(new HttpReader({ allowPrivateNetwork: true }))],
    auth: { toolToken: TOOL_TOKEN },
    mcpProgressIntervalMs: 10,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const client = new Client({ name: "outpost-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}` } },
      }),
    );
    const updates: { message?: string; progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: "web_fetch", arguments: { url: `${site.origin}/big.txt` } },
      undefined,
      {
        onprogress: (p) => {
          updates.push(p);
          // The whole body counted (not a count that rounds to 340 KB): the page may end.
          if (p.progress === 340_000) release.resolve();
        },
      },
    );
    assert.equal(result.isError, undefined);
    // Over a socket the body arrives in chunks of any size, so the updates before the last one
    // may count any part of it: what must hold is their form, that they only grow, and that the
    // last count is the whole body. (A tick that repeats a count carries no total.)
    const downloads = updates.filter((u) => u.message?.startsWith("Downloaded"));
    for (const update of downloads) {
      assert.match(update.message!, /^Downloaded \d+ KB of at most 1 MB, \d+ s$/);
    }
    const counts = downloads.filter((u) => u.total !== undefined);
    assert.ok(counts.length > 0, "at least one count");
    for (const update of counts) assert.equal(update.total, 1_000_000);
    const last = counts.at(-1)!;
    assert.match(last.message!, /^Downloaded 340 KB of at most 1 MB, \d+ s$/);
    assert.equal(last.progress, 340_000);
    const values = updates.map((u) => u.progress);
    assert.deepEqual(values, [...values].sort((a, b) => a - b));
  } finally {
    release.resolve();
    await client.close();
    app.close();
    await server.shutdown();
  }
});

Deno.test("an MCP client hanging up on ask_human without a tool-call id withdraws the question", async () => {
  const channel = new MemoryQuestionChannel();
  const app = createApp({
    tools: [askHuman(channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: "operator-token-0123456789abcdef" },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  try {
    const hangUp = new AbortController();
    // The server is stateless, so a lone tools/call needs no initialize handshake first.
    const calling = postMcp(server.addr.port, askCall(1, "Still there?"), {
      signal: hangUp.signal,
    }).catch((error) => error);
    await waitFor(async () => (await channel.pending).length === 1, "the question");
    const [question] = await channel.pending;
    hangUp.abort();
    const response = await calling;
    // The headers may have come before the hang-up; the body then ends with the abort.
    if (response instanceof Response) await response.body?.cancel().catch(() => {});
    await waitFor(async () => (await channel.pending).length === 0, "the withdrawal");
    assert.equal((await channel.get(question.id))?.status, "cancelled");
  } finally {
    channel.close();
    app.close();
    await server.shutdown();
  }
});

/** A search backend with one hit and one notice, never touching the network. */
const fixedSearch = webSearch({
  search(_query, options) {
    options.onNotice?.("The second page of results failed.");
    return Promise.resolve([
      { title: "Deno 2", url: "https://deno.com/blog/v2", snippet: "Deno 2 is out." },
    ]);
  },
});

/** An SDK client on a service serving `tools`, with the `notifications/message` it received. */
async function withTools(
  tools: Tool[],
  run: (client: Client, logged: LoggingMessageNotification["params"][]) => Promise<void>,
): Promise<void> {
  const app = createApp({ tools, auth: { toolToken: TOOL_TOKEN } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const client = new Client({ name: "outpost-test", version: "1.0.0" });
  const logged: LoggingMessageNotification["params"][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push(n.params);
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOOL_TOKEN}` } },
      }),
    );
    await run(client, logged);
  } finally {
    await client.close();
    app.close();
    await server.shutdown();
  }
}

Deno.test("MCP lists titles and output schemas; structured results validate against them", async () => {
  await withTools([echo, now, fixedSearch], async (client) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => [t.name, t.title]), [
      ["echo", undefined],
      ["now", "Current time"],
      ["web_search", "Web search"],
    ]);
    assert.equal(tools[0].outputSchema, undefined);
    const ajv = new Ajv({ strict: true, validateFormats: false });
    const [, nowSchema, searchSchema] = tools.map((t) => ajv.compile(t.outputSchema ?? {}));

    // The SDK client itself checks structuredContent against the listed outputSchema.
    const time = await client.callTool({ name: "now", arguments: { tz: "Asia/Shanghai" } });
    const text = (time.content as { text: string }[])[0].text;
    assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);
    assert.deepEqual(time.structuredContent, {
      time: text,
      timeZone: "Asia/Shanghai",
      utcOffset: "+08:00",
    });
    assert.ok(nowSchema(time.structuredContent), JSON.stringify(nowSchema.errors));

    const found = await client.callTool({ name: "web_search", arguments: { query: "deno" } });
    // The model's text is what it was: the fenced hits, then the notice.
    assert.equal(
      (found.content as { text: string }[])[0].text,
      await fixedSearch.execute({ query: "deno" }),
    );
    assert.deepEqual(found.structuredContent, {
      results: [{ title: "Deno 2", url: "https://deno.com/blog/v2", snippet: "Deno 2 is out." }],
      notices: ["The second page of results failed."],
    });
    assert.ok(searchSchema(found.structuredContent), JSON.stringify(searchSchema.errors));

    // A failed call carries no structured result, and the SDK accepts that.
    const bad = await client.callTool({ name: "now", arguments: { tz: "Mars/Olympus" } });
    assert.equal(bad.isError, true);
    assert.equal(bad.structuredContent, undefined);
  });
});

Deno.test("MCP logging: a search's notice reaches the client as a warning; setLevel checks its level", async () => {
  await withTools([fixedSearch], async (client, logged) => {
    assert.deepEqual(client.getServerCapabilities()?.logging, {});
    await client.callTool({ name: "web_search", arguments: { query: "deno" } });
    assert.deepEqual(logged, [{
      level: "warning",
      logger: "web_search",
      data: "The second page of results failed.",
    }]);
    assert.deepEqual(await client.setLoggingLevel("error"), {});
    await assert.rejects(
      client.setLoggingLevel("loud" as "error"),
      /params\.level must be one of debug, info/,
    );
  });
});

Deno.test("MCP offers the reference fetch server's fetch prompt where web_fetch is served", async () => {
  await using site = localServer(() =>
    new Response("<!doctype html><title>Notes</title><main><h1>Notes</h1><p>Hi.</p></main>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  const fetcher = webFetch(new HttpReader({ allowPrivateNetwork: true }));
  await withTools([now, fetcher], async (client) => {
    assert.deepEqual(client.getServerCapabilities()?.prompts, {});
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => [p.name, p.arguments]), [
      ["fetch", [{ name: "url", description: "URL to fetch", required: true }]],
    ]);
    const page = await client.getPrompt({ name: "fetch", arguments: { url: site.origin } });
    assert.equal(page.description, `Contents of ${site.origin}`);
    assert.equal(page.messages.length, 1);
    assert.equal(page.messages[0].role, "user");
    assert.match((page.messages[0].content as { text: string }).text, /# Notes\n[^]*Hi\./);

    const refused = await client.getPrompt({ name: "fetch", arguments: { url: "ftp://x/" } });
    assert.equal(refused.description, "Failed to fetch ftp://x/");
    assert.match((refused.messages[0].content as { text: string }).text, /^Error: /);
    await assert.rejects(client.getPrompt({ name: "fetch", arguments: {} }), /needs a `url`/);
    await assert.rejects(client.getPrompt({ name: "summarise" }), /Unknown prompt/);
  });
  await withTools([now], (client) => {
    assert.equal(client.getServerCapabilities()?.prompts, undefined);
    return Promise.resolve();
  });
});
