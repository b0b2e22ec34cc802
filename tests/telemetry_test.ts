import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import * as z from "zod";
import {
  type AccessLogEntry,
  now,
  runToolCalls,
  type Tool,
  tool,
  ToolError,
  type Tracer,
  webFetch,
} from "../mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { createServiceApp } from "../edge/service/service_app.ts";
import { localServer } from "./support/local_server.ts";
import { recordingTracer } from "./support/recording_tracer.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const SECRET = "s3cret-query-value";
const BODY = "hello, access log";

/** A tool that fails as its input says: a `ToolError` with a code, or an unexpected error. */
const failing = tool({
  name: "failing",
  description: "Fails.",
  input: z.object({ how: z.enum(["tool", "crash"]) }),
  execute({ how }) {
    if (how === "tool") throw new ToolError("Slow down.", { code: "rate_limited" });
    throw new TypeError("internals");
  },
});

function page() {
  return localServer(() => new Response(BODY, { headers: { "content-type": "text/plain" } }));
}

function reader() {
  return webFetch(new HttpReader({ allowPrivateNetwork: true }));
}

/** Serves `tools` with an access log, and returns the log's lines as written. */
function logged(tools: Tool[]) {
  const lines: string[] = [];
  const app = createApp({
    tools,
    auth: { toolToken: TOOL_TOKEN },
    onError: () => {},
    telemetry: { accessLog: (entry) => lines.push(JSON.stringify(entry)) },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  return {
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as AccessLogEntry),
    url: `http://127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      app.close();
      await server.shutdown();
    },
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOOL_TOKEN}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

function mcpCall(name: string, args: unknown) {
  return { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } };
}

Deno.test(
  "access log: one line per call on /tools and MCP, with the host but never the path or query",
  {
    timeout: 30_000,
  },
  async () => {
    await using site = page();
    await using service = logged([reader(), failing]);
    const target = `${site.origin}/private/path?token=${SECRET}`;
    const first = await post(`${service.url}/tools/web_fetch`, { url: target }, {
      "outpost-tool-call-id": "call_1",
    });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const again = await post(`${service.url}/mcp`, mcpCall("web_fetch", { url: target }));
    assert.match(await again.text(), /hello, access log/);

    const [fresh, cached] = service.entries();
    const host = new URL(site.origin).host;
    assert.equal(service.lines.length, 2);
    assert.match(fresh.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(fresh.durationMs >= 0);
    assert.deepEqual({ ...fresh, time: 0, durationMs: 0 }, {
      time: 0,
      durationMs: 0,
      tenant: "default",
      tool: "web_fetch",
      outcome: "ok",
      bytesRead: BODY.length,
      cacheHit: false,
      host,
      toolCallId: "call_1",
    });
    assert.deepEqual({ ...cached, time: 0, durationMs: 0 }, {
      time: 0,
      durationMs: 0,
      tenant: "default",
      tool: "web_fetch",
      outcome: "ok",
      bytesRead: 0,
      cacheHit: true,
      host,
    });
    for (const line of service.lines) {
      assert.ok(!line.includes(SECRET) && !line.includes("/private"), line);
    }
  },
);

Deno.test("access log: a failed call carries its ToolError code, or `unexpected`", {
  timeout: 30_000,
}, async () => {
  // The address guard refuses a private address before any connection.
  await using service = logged([webFetch(new HttpReader()), failing]);
  assert.equal((await post(`${service.url}/tools/failing`, { how: "tool" })).status, 429);
  const crash = await post(`${service.url}/mcp`, mcpCall("failing", { how: "crash" }));
  assert.match(await crash.text(), /failed unexpectedly/);
  const invalid = await post(`${service.url}/tools/failing`, { how: "neither" });
  assert.equal(invalid.status, 400);
  await invalid.body?.cancel();
  // A read that fails still names the host it tried.
  const refused = await post(`${service.url}/tools/web_fetch`, { url: "http://10.0.0.1/x?y=1" });
  await refused.body?.cancel();
  const entries = service.entries().map(({ tool, outcome, errorCode, host }) => ({
    tool,
    outcome,
    errorCode,
    host,
  }));
  assert.deepEqual(entries, [
    { tool: "failing", outcome: "error", errorCode: "rate_limited", host: undefined },
    { tool: "failing", outcome: "error", errorCode: "unexpected", host: undefined },
    { tool: "failing", outcome: "error", errorCode: "invalid_input", host: undefined },
    { tool: "web_fetch", outcome: "error", errorCode: "private_address", host: "10.0.0.1" },
  ]);
});

Deno.test("access log: the deployments write JSON lines unless OUTPOST_ACCESS_LOG=false", {
  timeout: 30_000,
}, async () => {
  for (const [setting, expected] of [[undefined, 1], ["false", 0]] as const) {
    const lines: string[] = [];
    const settings = readServiceSettings({
      OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
      OUTPOST_TOOLS: "now",
      ...(setting ? { OUTPOST_ACCESS_LOG: setting } : {}),
    });
    const app = createServiceApp(settings, { log: (line) => lines.push(line) }, "here");
    const response = await app.fetch(
      new Request("http://localhost/tools/now", {
        method: "POST",
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
        body: "{}",
      }),
    );
    assert.equal(response.status, 200);
    await response.body?.cancel();
    app.close();
    assert.equal(lines.length, expected, String(setting));
    if (expected) assert.equal(JSON.parse(lines[0]).tool, "now");
  }
});

Deno.test("traces: an execute_tool span per call, a client span per request under it", {
  timeout: 30_000,
}, async () => {
  await using site = page();
  const tracer = recordingTracer();
  const target = `${site.origin}/doc?token=${SECRET}#part`;
  const results = await runToolCalls(
    [reader(), failing],
    [
      { id: "call_ok", name: "web_fetch", input: { url: target } },
      { id: "call_bad", name: "failing", input: { how: "tool" } },
    ],
    {},
    { tracer },
  );
  assert.deepEqual(results.map((r) => r.isError), [false, true]);
  const named = (name: string) => tracer.spans.filter((span) => span.name === name);
  const [fetchSpan] = named("execute_tool web_fetch");
  const [requestSpan] = named("GET");
  const [failSpan] = named("execute_tool failing");
  assert.equal(tracer.spans.length, 3);
  assert.equal(fetchSpan.name, "execute_tool web_fetch");
  assert.equal(fetchSpan.kind, 0);
  assert.deepEqual(fetchSpan.attributes, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "web_fetch",
    "gen_ai.tool.type": "function",
    "gen_ai.tool.call.id": "call_ok",
  });
  assert.equal(fetchSpan.status, undefined);
  assert.equal(requestSpan.name, "GET");
  assert.equal(requestSpan.kind, 2);
  assert.equal(requestSpan.parent, fetchSpan);
  const { hostname, port } = new URL(site.origin);
  assert.deepEqual(requestSpan.attributes, {
    "http.request.method": "GET",
    "server.address": hostname,
    "server.port": Number(port),
    "url.full": `${site.origin}/doc`,
    "http.response.status_code": 200,
  });
  assert.equal(failSpan.name, "execute_tool failing");
  assert.equal(failSpan.parent, undefined);
  assert.equal(failSpan.attributes["error.type"], "rate_limited");
  assert.deepEqual(failSpan.status, { code: 2, message: "Slow down." });
  assert.equal(failSpan.exceptions.length, 1);
  assert.ok(tracer.spans.every((span) => span.ended));
});

Deno.test("traces: a failed request's span says why, under the call's failed span", {
  timeout: 30_000,
}, async () => {
  // A port nothing listens on: the connection is refused.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = closed.addr as Deno.NetAddr;
  closed.close();
  const tracer = recordingTracer();
  const [result] = await runToolCalls(
    [webFetch(new HttpReader({ allowPrivateNetwork: true, retryDelayMs: 1 }))],
    [{ id: "c", name: "web_fetch", input: { url: `http://127.0.0.1:${port}/` } }],
    {},
    { tracer },
  );
  assert.equal(result.isError, true);
  const [call, request] = tracer.spans;
  assert.equal(request.parent, call);
  assert.equal(request.attributes["error.type"], "unreachable");
  assert.equal(request.status?.code, 2);
  assert.equal(call.attributes["error.type"], "unreachable");
});

Deno.test("without telemetry no tracer is called and the tool sees the context it always did", {
  timeout: 30_000,
}, async () => {
  await using site = page();
  const seen: string[][] = [];
  const spy = tool({
    name: "spy",
    description: "Shows its context.",
    input: z.object({}),
    execute: (_input, ctx) => (seen.push(Object.keys(ctx).sort()), "ok"),
  });
  const calls = [
    { id: "1", name: "web_fetch", input: { url: `${site.origin}/` } },
    { id: "2", name: "spy", input: {} },
    { id: "3", name: "now", input: { tz: "UTC" } },
  ];
  const tracer = recordingTracer();
  const bare = await runToolCalls([reader(), spy, now], calls);
  const traced = await runToolCalls([reader(), spy, now], calls, {}, { tracer });
  assert.deepEqual(seen[0], ["toolCallId"]);
  assert.deepEqual(seen[1], ["noteRead", "toolCallId", "tracer"]);
  assert.equal(tracer.spans.length, 4);
  // The same answers either way, up to the clock's reading.
  const strip = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[^\n]*/g, "<time>");
  assert.deepEqual(
    bare.map((r) => ({ ...r, text: strip(r.text) })),
    traced.map((r) => ({ ...r, text: strip(r.text) })),
  );
});

Deno.test("a tracer of @opentelemetry/api fits the option as it is", {
  timeout: 30_000,
}, async () => {
  // Type-checked against the API's own types; with no SDK registered its spans are no-ops.
  const tracer: Tracer = trace.getTracer("outpost");
  const [result] = await runToolCalls([now], [{ id: "1", name: "now", input: {} }], {}, {
    tracer,
  });
  assert.equal(result.isError, false);
});
