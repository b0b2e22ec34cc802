import assert from "node:assert/strict";
import { z } from "zod";
import { now, tool, ToolError, UserError } from "../mod.ts";
import { createApp, type OutpostApp } from "../src/http/mod.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";

const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  execute({ text }, ctx) {
    if (text === "refuse") throw new ToolError("Told to refuse.", { hint: "Say something else." });
    if (text === "crash") throw new TypeError("secret internals at /srv/app.ts:12");
    if (text === "context") return JSON.stringify({ ...ctx, signal: undefined });
    return text;
  },
});

interface Running {
  url: string;
  app: OutpostApp;
  errors: unknown[];
  close(): Promise<void>;
}

function serve(options: Partial<Parameters<typeof createApp>[0]> = {}): Running {
  const errors: unknown[] = [];
  const app = createApp({
    tools: [echo, now],
    auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
    onError: (error) => errors.push(error),
    ...options,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    app,
    errors,
    async close() {
      app.close();
      await server.shutdown();
    },
  };
}

function call(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOOL_TOKEN}`,
      "content-type": "application/json",
      ...headers,
    },
    body,
  });
}

Deno.test("GET /tools lists names, descriptions, JSON Schemas and annotations", async () => {
  const s = serve();
  try {
    const response = await fetch(`${s.url}/tools`, {
      headers: { authorization: `Bearer ${TOOL_TOKEN}` },
    });
    assert.equal(response.status, 200);
    const { tools } = await response.json();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["echo", "now"]);
    assert.deepEqual(tools[0].parameters, echo.parameters);
    assert.equal(tools[0].description, "Echoes its text.");
    assert.equal(tools[0].annotations, undefined);
    assert.deepEqual(tools[1].annotations, { readOnlyHint: true, openWorldHint: false });
  } finally {
    await s.close();
  }
});

Deno.test("POST /tools/:name maps outcomes to 200, 400, 404, 422 and 500", async () => {
  const s = serve();
  try {
    let response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "hello" }));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { text: "hello" });

    response = await call(`${s.url}/tools/echo`, "{not json");
    assert.equal(response.status, 400);
    assert.match((await response.json()).error, /not valid JSON/);

    response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: 5 }));
    assert.equal(response.status, 400);
    const invalid = await response.json();
    assert.match(invalid.error, /^Invalid input for echo: .*text/);
    assert.match(invalid.hint, /Fix the arguments/);

    response = await call(`${s.url}/tools/echo`, "");
    assert.equal(response.status, 400, "an empty body is an empty input, which lacks `text`");
    await response.body?.cancel();

    response = await call(`${s.url}/tools/missing`, "{}");
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      error: 'Unknown tool "missing".',
      hint: "GET /tools lists the tools.",
    });

    response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "refuse" }));
    assert.equal(response.status, 422);
    assert.deepEqual(await response.json(), {
      error: "Told to refuse.",
      hint: "Say something else.",
    });

    response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "crash" }));
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.deepEqual(JSON.parse(text), { error: "Internal error." });
    assert.doesNotMatch(text, /secret|srv|TypeError/);
    assert.equal(s.errors.length, 1);
    assert.ok(s.errors[0] instanceof TypeError);

    response = await call(`${s.url}/tools/now`, "");
    assert.equal(response.status, 200, "a tool without required input takes an empty body");
    assert.match((await response.json()).text, /\d{4}-\d{2}-\d{2}/);
  } finally {
    await s.close();
  }
});

Deno.test("context headers reach the tool; bad ones are refused", async () => {
  const s = serve();
  try {
    let response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "context" }), {
      "outpost-session-id": "s1",
      "outpost-run-id": "r1",
      "outpost-tool-call-id": "call_7",
    });
    assert.deepEqual(JSON.parse((await response.json()).text), {
      sessionId: "s1",
      runId: "r1",
      toolCallId: "call_7",
    });
    response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "context" }), {
      "outpost-tool-call-id": "x".repeat(300),
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("without the right bearer token: 401 and the tool never runs", async () => {
  let runs = 0;
  const counted = tool({
    name: "counted",
    description: "Counts its runs.",
    input: z.object({}),
    execute: () => String(++runs),
  });
  const s = serve({ tools: [counted] });
  try {
    for (
      const authorization of [
        undefined,
        "",
        `Bearer ${TOOL_TOKEN.slice(0, -1)}`,
        `Bearer ${TOOL_TOKEN}x`,
        `Basic ${TOOL_TOKEN}`,
        `Bearer ${OPERATOR_TOKEN}`,
      ]
    ) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      for (
        const [method, path] of [["POST", "/tools/counted"], ["GET", "/tools"], ["POST", "/mcp"]]
      ) {
        const response = await fetch(`${s.url}${path}`, {
          method,
          headers,
          body: method === "POST" ? "{}" : undefined,
        });
        assert.equal(response.status, 401, `${method} ${path} with ${authorization}`);
        assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="outpost"');
        await response.body?.cancel();
      }
    }
    assert.equal(runs, 0);
    const response = await call(`${s.url}/tools/counted`, "{}", {
      authorization: `bearer   ${TOOL_TOKEN}`,
    });
    assert.deepEqual(await response.json(), { text: "1" });
  } finally {
    await s.close();
  }
});

Deno.test("bodies over the limit get 413, declared or streamed, before the tool runs", async () => {
  let runs = 0;
  const big = tool({
    name: "big",
    description: "Takes a long text.",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => String((runs++, text.length)),
  });
  const s = serve({ tools: [big], limits: { maxBodyBytes: 1000 } });
  try {
    const fits = JSON.stringify({ text: "a".repeat(980) });
    let response = await call(`${s.url}/tools/big`, fits);
    assert.deepEqual(await response.json(), { text: "980" });

    const tooBig = JSON.stringify({ text: "a".repeat(1000) });
    response = await call(`${s.url}/tools/big`, tooBig);
    assert.equal(response.status, 413);
    assert.match((await response.json()).error, /larger than 1000 bytes/);

    const chunks = [
      new TextEncoder().encode(tooBig.slice(0, 600)),
      new TextEncoder().encode(tooBig.slice(600)),
    ];
    response = await fetch(`${s.url}/tools/big`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOOL_TOKEN}` },
      body: ReadableStream.from(chunks),
    });
    assert.equal(response.status, 413);
    await response.body?.cancel();
    assert.equal(runs, 1);
  } finally {
    await s.close();
  }
});

Deno.test("the default body limit is 1 MB", async () => {
  const s = serve();
  try {
    const response = await call(
      `${s.url}/tools/echo`,
      JSON.stringify({ text: "a".repeat(1024 * 1024) }),
    );
    assert.equal(response.status, 413);
    await response.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("CORS is off by default and, when configured, exposes mcp-session-id", async () => {
  let s = serve();
  try {
    const response = await fetch(`${s.url}/tools`, {
      headers: { authorization: `Bearer ${TOOL_TOKEN}`, origin: "https://agent.example" },
    });
    assert.equal(response.headers.get("access-control-allow-origin"), null);
    await response.body?.cancel();
    const preflight = await fetch(`${s.url}/tools/echo`, {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST" },
    });
    assert.equal(preflight.headers.get("access-control-allow-origin"), null);
    await preflight.body?.cancel();
  } finally {
    await s.close();
  }
  s = serve({ cors: { origin: ["https://agent.example"] } });
  try {
    const preflight = await fetch(`${s.url}/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, mcp-session-id",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://agent.example");
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/);
    await preflight.body?.cancel();
    const response = await fetch(`${s.url}/tools`, {
      headers: { authorization: `Bearer ${TOOL_TOKEN}`, origin: "https://agent.example" },
    });
    assert.equal(response.headers.get("access-control-allow-origin"), "https://agent.example");
    assert.equal(response.headers.get("access-control-expose-headers"), "mcp-session-id");
    await response.body?.cancel();
    const other = await fetch(`${s.url}/tools`, {
      headers: { authorization: `Bearer ${TOOL_TOKEN}`, origin: "https://evil.example" },
    });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    await other.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("createApp rejects a bad set-up with a UserError", () => {
  const auth = { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN };
  assert.throws(() => createApp({ tools: [now], auth: { toolToken: "short" } }), UserError);
  assert.throws(() => createApp({ tools: [now, now], auth }), /Two tools are named "now"/);
  assert.throws(
    () => createApp({ tools: [now], auth, limits: { maxBodyBytes: 0 } }),
    /maxBodyBytes must be a positive integer/,
  );
});
