import assert from "node:assert/strict";
import * as z from "zod";
import { askHuman, now, SetupError, tool, ToolError, webFetch } from "../mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { type HumanQuestion, MAX_ANSWER_LENGTH, MemoryQuestionChannel } from "../src/human/mod.ts";
import { createApp, type OutpostApp } from "../src/http/mod.ts";
import { DenoKvQuestionChannel } from "../edge/deno/mod.ts";
import { localServer } from "./support/local_server.ts";
import { type SseEvent, sseEvents } from "./support/sse.ts";
import { waitFor } from "./support/wait.ts";

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

Deno.test("GET /tools lists names, descriptions, JSON Schemas and annotations", {
  timeout: 60_000,
}, async () => {
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

Deno.test("POST /tools/:name maps outcomes to 200, 400, 404, 422 and 500", {
  timeout: 60_000,
}, async () => {
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
    assert.equal(invalid.code, "invalid_input");

    response = await call(`${s.url}/tools/echo`, "");
    assert.equal(response.status, 400, "an empty body is an empty input, which lacks `text`");
    await response.body?.cancel();

    for (const body of ["null", "[1]", "5", '"text"']) {
      response = await call(`${s.url}/tools/now`, body);
      assert.equal(response.status, 400, body);
      assert.deepEqual(await response.json(), {
        error: "The request body must be a JSON object.",
        hint: "Send a JSON object.",
      });
    }

    response = await call(`${s.url}/tools/missing`, "{}");
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      error: 'Unknown tool "missing".',
      hint: "Available tools: echo, now.",
    });

    response = await call(`${s.url}/tools/echo`, JSON.stringify({ text: "refuse" }));
    assert.equal(response.status, 422);
    assert.deepEqual(await response.json(), {
      error: "Told to refuse.",
      hint: "Say something else.",
      code: "failed",
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

Deno.test("context headers reach the tool; bad ones are refused", { timeout: 60_000 }, async () => {
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

async function sha256Bytes(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

Deno.test("without the right bearer token: 401 and the tool never runs", {
  timeout: 60_000,
}, async () => {
  let runs = 0;
  const counted = tool({
    name: "counted",
    description: "Counts its runs.",
    input: z.object({}),
    execute: () => String(++runs),
  });
  // Guesses whose SHA-256 starts like the token's: the check must compare every byte.
  const sharesFirstByte = `${TOOL_TOKEN}-131`;
  const sharesTwoBytes = `${TOOL_TOKEN}-29450`;
  const wanted = await sha256Bytes(TOOL_TOKEN);
  assert.deepEqual((await sha256Bytes(sharesFirstByte))[0], wanted[0]);
  assert.notEqual((await sha256Bytes(sharesFirstByte))[1], wanted[1]);
  assert.deepEqual((await sha256Bytes(sharesTwoBytes)).slice(0, 2), wanted.slice(0, 2));
  const s = serve({ tools: [counted] });
  try {
    for (
      const authorization of [
        undefined,
        "",
        `Bearer ${TOOL_TOKEN.slice(0, -1)}`,
        `Bearer ${TOOL_TOKEN}x`,
        `Basic ${TOOL_TOKEN}`,
        `XBearer ${TOOL_TOKEN}`,
        `Bearer ${TOOL_TOKEN} junk`,
        `Bearer ${OPERATOR_TOKEN}`,
        `Bearer ${sharesFirstByte}`,
        `Bearer ${sharesTwoBytes}`,
        // Of the token's length, one character off at either end.
        `Bearer X${TOOL_TOKEN.slice(1)}`,
        `Bearer ${TOOL_TOKEN.slice(0, -1)}X`,
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

Deno.test("bodies over the limit get 413, declared or streamed, before the tool runs", {
  timeout: 60_000,
}, async () => {
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

    // A streamed body within the limit is counted, then reaches the tool whole.
    response = await fetch(`${s.url}/tools/big`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOOL_TOKEN}` },
      body: ReadableStream.from(
        [fits.slice(0, 500), fits.slice(500)].map((part) => new TextEncoder().encode(part)),
      ),
    });
    assert.deepEqual(await response.json(), { text: "980" });
  } finally {
    await s.close();
  }
});

Deno.test("a tool call is answered alike whether the app dispatches it itself or its router does", {
  timeout: 60_000,
}, async () => {
  // With CORS on, every request goes through the router; without, tool calls skip it.
  const direct = serve({ limits: { maxBodyBytes: 200 } });
  const routed = serve({ limits: { maxBodyBytes: 200 }, cors: { origin: "*" } });
  const answer = async (base: string, path: string, token: string, body: string) => {
    const response = await call(`${base}${path}`, body, {
      authorization: `Bearer ${token}`,
      accept: "application/json, text/event-stream",
    });
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      authenticate: response.headers.get("www-authenticate"),
      body: await response.text(),
    };
  };
  const mcpCall = (text: unknown) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { text } },
    });
  try {
    const cases: [string[], string[]][] = [
      [
        ["/tools/echo", "/tools/echo?x=1", "/tools/echo/", "/tools/%65cho", "/tools/nope"],
        ['{"text":"hi"}', '{"text":1}', "{", JSON.stringify({ text: "a".repeat(200) })],
      ],
      [
        ["/mcp", "/mcp?x=1", "/mcp/", "/%6dcp"],
        [mcpCall("hi"), mcpCall(1), "{", mcpCall("a".repeat(200))],
      ],
    ];
    for (const [paths, bodies] of cases) {
      for (const path of paths) {
        for (const token of [TOOL_TOKEN, OPERATOR_TOKEN]) {
          for (const body of bodies) {
            assert.deepEqual(
              await answer(direct.url, path, token, body),
              await answer(routed.url, path, token, body),
              `${path} ${token} ${body.slice(0, 20)}`,
            );
          }
        }
      }
    }
    assert.deepEqual(
      JSON.parse((await answer(direct.url, "/tools/echo", TOOL_TOKEN, '{"text":"hi"}')).body),
      { text: "hi" },
    );
    assert.match((await answer(direct.url, "/mcp", TOOL_TOKEN, mcpCall("hi"))).body, /"text":"hi"/);
  } finally {
    await direct.close();
    await routed.close();
  }
});

Deno.test("the default body limit is 1 MB", { timeout: 60_000 }, async () => {
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

Deno.test("CORS is off by default and, when configured, exposes mcp-session-id", {
  timeout: 60_000,
}, async () => {
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
    assert.match(response.headers.get("vary") ?? "", /Origin/);
    assert.match(preflight.headers.get("vary") ?? "", /Origin/);
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

Deno.test("createApp rejects a bad set-up with a SetupError", () => {
  const auth = { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN };
  assert.throws(() => createApp({ tools: [now], auth: { toolToken: "short" } }), SetupError);
  assert.throws(() => createApp({ tools: [now, now], auth }), /Two tools are named "now"/);
  assert.throws(
    () =>
      createApp({
        tools: [now],
        auth: { toolToken: TOOL_TOKEN },
        channel: new MemoryQuestionChannel(),
      }),
    /auth.operatorToken must be a string/,
  );
  assert.throws(
    () =>
      createApp({
        tools: [now],
        auth: { toolToken: TOOL_TOKEN, operatorToken: TOOL_TOKEN },
        channel: new MemoryQuestionChannel(),
      }),
    /must differ from the tool token/,
  );
  assert.throws(
    () => createApp({ tools: [now], auth, limits: { maxBodyBytes: 0 } }),
    /maxBodyBytes must be a positive integer/,
  );
});

function operator(url: string, init: RequestInit = {}, token = OPERATOR_TOKEN) {
  return fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
}

function events(url: string, lastEventId?: string) {
  return operator(`${url}/questions/events`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
  });
}

async function waitForPending(url: string, count: number): Promise<HumanQuestion[]> {
  let questions: HumanQuestion[] = [];
  await waitFor(async () => {
    ({ questions } = await (await operator(`${url}/questions`)).json());
    return questions.length >= count;
  }, `${count} pending question(s)`);
  return questions;
}

function serveWithChannel(
  options: Partial<Parameters<typeof createApp>[0]> = {},
  channel = new MemoryQuestionChannel(),
) {
  const s = serve({ tools: [askHuman(channel), echo], channel, pollIntervalMs: 20, ...options });
  return {
    ...s,
    channel,
    async close() {
      channel.close();
      await s.close();
    },
  };
}

Deno.test("an ask_human call waits for the operator's answer over HTTP", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  try {
    const asking = call(
      `${s.url}/tools/ask_human`,
      JSON.stringify({
        question: "Deploy now?",
        options: [{ label: "Yes" }, { label: "No", description: "Wait" }],
      }),
      { "outpost-tool-call-id": "call_1", "outpost-session-id": "sess" },
    );
    const [question] = await waitForPending(s.url, 1);
    assert.equal(question.question, "Deploy now?");
    assert.equal(question.toolCallId, "call_1");
    assert.equal(question.sessionId, "sess");
    assert.deepEqual(question.options.map((o) => o.label), ["Yes", "No"]);

    let response = await operator(`${s.url}/questions/${question.id}`);
    assert.equal((await response.json()).status, "pending");

    response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "" }),
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();

    response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "No, wait for Ana" }),
    });
    assert.deepEqual(await response.json(), { id: question.id, status: "answered" });
    const result = await asking;
    assert.equal(result.status, 200);
    assert.deepEqual(await result.json(), { text: "No, wait for Ana" });

    response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "Yes" }),
    });
    assert.equal(response.status, 409);
    assert.equal((await response.json()).status, "answered");
    response = await operator(`${s.url}/questions/${question.id}/cancel`, { method: "POST" });
    assert.equal(response.status, 409);
    await response.body?.cancel();
    response = await operator(`${s.url}/questions/${question.id}`);
    assert.equal((await response.json()).answer, "No, wait for Ana");
  } finally {
    await s.close();
  }
});

Deno.test("a dropped call with a tool-call id keeps its question; the retry re-attaches", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const app = createApp({
    tools: [askHuman(channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
  });
  // Resolves once the server has seen the first connection go away.
  const dropped = Promise.withResolvers<void>();
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (new URL(request.url).pathname === "/tools/ask_human" && requests++ === 0) {
      request.signal.addEventListener("abort", () => dropped.resolve(), { once: true });
    }
    return app.fetch(request);
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const body = JSON.stringify({ question: "Ship it?" });
  const headers = { "outpost-tool-call-id": "call_drop", "outpost-session-id": "sess" };
  try {
    const hangUp = new AbortController();
    const first = fetch(`${url}/tools/ask_human`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOOL_TOKEN}`, ...headers },
      body,
      signal: hangUp.signal,
    }).catch((error) => error);
    const [question] = await waitForPending(url, 1);
    hangUp.abort();
    assert.equal((await first).name, "AbortError");
    await dropped.promise;
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual((await channel.pending).map((q) => q.id), [question.id]);

    // The retry re-attaches to the same question, whether it arrives before or after the answer.
    const retry = call(`${url}/tools/ask_human`, body, headers);
    assert.equal(await channel.answer(question.id, "Ship it"), true);
    const response = await retry;
    assert.deepEqual(await response.json(), { text: "Ship it" });
    assert.equal((await channel.pending).length, 0);
  } finally {
    channel.close();
    app.close();
    await server.shutdown();
  }
});

Deno.test("a dropped call without a tool-call id withdraws its question", {
  timeout: 60_000,
}, async () => {
  // A hang-up is not a server failure: nothing reaches onError.
  const errors: unknown[] = [];
  const s = serveWithChannel({ onError: (error) => errors.push(error) });
  try {
    const hangUp = new AbortController();
    const first = fetch(`${s.url}/tools/ask_human`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOOL_TOKEN}` },
      body: JSON.stringify({ question: "Ship it?" }),
      signal: hangUp.signal,
    }).catch((error) => error);
    const [question] = await waitForPending(s.url, 1);
    hangUp.abort();
    assert.equal((await first).name, "AbortError");
    await waitFor(
      async () => (await s.channel.get(question.id))?.status === "cancelled",
      "the question to be withdrawn",
    );
    // An operator who answers late is told that nobody got it.
    const late = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "Yes" }),
    });
    assert.equal(late.status, 409);
    assert.deepEqual(await late.json(), {
      error: `Question "${question.id}" was withdrawn (the asking call was aborted); nobody is ` +
        "waiting for an answer.",
      status: "cancelled",
      withdrawn: true,
    });
  } finally {
    await s.close();
  }
  assert.deepEqual(errors, []);
});

Deno.test(
  "a call that ends at once leaves the connection unwatched; a slower one is aborted by a hang-up",
  {
    timeout: 60_000,
  },
  async () => {
    // Reading a served request's signal makes the runtime watch its connection, which costs it
    // more than a call such as `now`: only a call still running a moment later watches it.
    const signalOf = Object.getOwnPropertyDescriptor(Request.prototype, "signal")!.get!;
    let reads = 0;
    const aborted = Promise.withResolvers<string>();
    const waits = tool({
      name: "waits",
      description: "Waits until it is aborted.",
      input: z.object({}),
      execute: (_, ctx) =>
        new Promise<string>((_, reject) =>
          ctx.signal!.addEventListener("abort", () => {
            aborted.resolve(ctx.signal!.reason.name);
            reject(ctx.signal!.reason);
          })
        ),
    });
    const app = createApp({ tools: [now, waits], auth: { toolToken: TOOL_TOKEN } });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      Object.defineProperty(request, "signal", {
        get: () => (reads++, signalOf.call(request)),
      });
      return app.fetch(request);
    });
    const url = `http://127.0.0.1:${server.addr.port}`;
    try {
      const json = await call(`${url}/tools/now`, '{"tz":"UTC"}');
      assert.match((await json.json()).text, /\+00:00$/);
      const mcp = await call(
        `${url}/mcp`,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "now", arguments: { tz: "UTC" } },
        }),
        { accept: "application/json, text/event-stream" },
      );
      assert.match(await mcp.text(), /\+00:00/);
      assert.equal(reads, 0);

      const hangUp = new AbortController();
      const waiting = fetch(`${url}/tools/waits`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
        body: "{}",
        signal: hangUp.signal,
      }).catch((error) => error);
      await waitFor(() => reads === 1, "the slow call to watch its connection");
      hangUp.abort();
      assert.equal((await waiting).name, "AbortError");
      assert.equal(await aborted.promise, "AbortError");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test("an answer body over the limit gets 413 and leaves the question pending", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel({ limits: { maxBodyBytes: 1024 } });
  try {
    const asking = s.channel.ask({ question: "Ship it?", options: [], multiSelect: false });
    const [question] = await waitForPending(s.url, 1);
    const response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "x", pad: "y".repeat(4096) }),
    });
    assert.equal(response.status, 413);
    await response.body?.cancel();
    assert.equal((await s.channel.get(question.id))?.status, "pending");
    assert.equal(await s.channel.cancel(question.id), true);
    assert.equal((await asking).status, "cancelled");
  } finally {
    await s.close();
  }
});

Deno.test("a cancelled question ends the call with a 422 the model can read", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  try {
    const asking = call(`${s.url}/tools/ask_human`, JSON.stringify({ question: "Which region?" }));
    const [question] = await waitForPending(s.url, 1);
    const response = await operator(`${s.url}/questions/${question.id}/cancel`, {
      method: "POST",
      body: JSON.stringify({ reason: "Not mine to decide." }),
    });
    assert.deepEqual(await response.json(), { id: question.id, status: "cancelled" });
    const result = await asking;
    assert.equal(result.status, 422);
    assert.match(JSON.stringify(await result.json()), /Not mine to decide/);
  } finally {
    await s.close();
  }
});

Deno.test("the operator API: 404 for unknown ids, 400 for bad bodies, 401 without its token", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  try {
    for (const path of ["/questions/nope/answer", "/questions/nope/cancel"]) {
      const response = await operator(`${s.url}${path}`, {
        method: "POST",
        body: JSON.stringify({ answer: "x" }),
      });
      assert.equal(response.status, 404, path);
      assert.deepEqual(await response.json(), { error: 'Unknown question "nope".' });
    }
    let response = await operator(`${s.url}/questions/nope`);
    assert.equal(response.status, 404);
    await response.body?.cancel();

    const asked = new AbortController();
    const pending = s.channel.ask(
      { question: "Q?", options: [], multiSelect: false },
      { signal: asked.signal },
    ).catch(() => undefined);
    const [question] = await waitForPending(s.url, 1);
    response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: "{oops",
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
    response = await operator(`${s.url}/questions/${question.id}/cancel`, {
      method: "POST",
      body: JSON.stringify({ reason: 5 }),
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
    for (const [action, body] of [["answer", "answer"], ["cancel", "reason"]]) {
      response = await operator(`${s.url}/questions/${question.id}/${action}`, {
        method: "POST",
        body: JSON.stringify({ [body]: "x".repeat(MAX_ANSWER_LENGTH + 1) }),
      });
      assert.equal(response.status, 400, action);
      assert.match((await response.json()).error, new RegExp(`at most ${MAX_ANSWER_LENGTH}`));
    }

    for (const token of [TOOL_TOKEN, "nobody-0123456789abcdef"]) {
      for (
        const [method, path] of [
          ["GET", "/questions"],
          ["GET", "/questions/events"],
          ["GET", `/questions/${question.id}`],
          ["POST", `/questions/${question.id}/answer`],
          ["POST", `/questions/${question.id}/cancel`],
        ]
      ) {
        response = await operator(`${s.url}${path}`, {
          method,
          body: method === "POST" ? JSON.stringify({ answer: "hijack" }) : undefined,
        }, token);
        assert.equal(response.status, 401, `${method} ${path}`);
        await response.body?.cancel();
      }
    }
    assert.equal((await s.channel.get(question.id))?.status, "pending");
    asked.abort();
    await pending;
  } finally {
    await s.close();
  }
});

Deno.test("the console page is served without a token; with no channel there is no operator API", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  try {
    const response = await fetch(`${s.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, /^text\/html/);
    assert.match(response.headers.get("content-security-policy")!, /script-src 'nonce-/);
    assert.match(await response.text(), /Operator token/);
  } finally {
    await s.close();
  }
  const bare = serve();
  try {
    for (const path of ["/", "/questions"]) {
      const response = await operator(`${bare.url}${path}`);
      assert.equal(response.status, 404);
      await response.body?.cancel();
    }
  } finally {
    await bare.close();
  }
});

Deno.test("question events arrive in order: asked, answered, cancelled", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  const stream = sseEvents(await events(s.url));
  try {
    const first = s.channel.ask({ question: "First?", options: [], multiSelect: false });
    let event = await stream.next();
    assert.equal(event.event, "asked");
    assert.equal(event.data.question, "First?");
    const firstId = event.data.id as string;

    const second = s.channel.ask({
      question: "Second?",
      options: [{ label: "A", description: "" }, { label: "B", description: "" }],
      multiSelect: true,
    });
    event = await stream.next();
    assert.equal(event.event, "asked");
    assert.equal(event.data.question, "Second?");
    assert.equal(event.data.multiSelect, true);
    const secondId = event.data.id as string;

    let response = await operator(`${s.url}/questions/${firstId}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "one" }),
    });
    await response.body?.cancel();
    event = await stream.next();
    assert.equal(event.event, "answered");
    assert.equal(event.data.id, firstId);
    assert.equal(event.data.answer, "one");
    assert.deepEqual(await first, { status: "answered", answer: "one" });

    response = await operator(`${s.url}/questions/${secondId}/cancel`, {
      method: "POST",
      body: JSON.stringify({ reason: "stale" }),
    });
    await response.body?.cancel();
    event = await stream.next();
    assert.equal(event.event, "cancelled");
    assert.deepEqual(
      { id: event.data.id, reason: event.data.reason },
      { id: secondId, reason: "stale" },
    );
    assert.equal((await second).status, "cancelled");
  } finally {
    await stream.close();
    await s.close();
  }
});

Deno.test("changes seen in one read are sent in the order they happened", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel({ pollIntervalMs: 60_000 });
  const first = s.channel.ask({ question: "First?", options: [], multiSelect: false });
  const streamA = sseEvents(await events(s.url));
  try {
    const asked = await streamA.next();
    assert.deepEqual([asked.event, asked.data.question], ["asked", "First?"]);
    // Asked straight on the channel, so that nothing nudges the stream until the answer does:
    // both changes are seen in one read.
    const second = s.channel.ask({ question: "Second?", options: [], multiSelect: false });
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct timestamps, not a measurement
    const answered = await operator(`${s.url}/questions/${asked.data.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "one" }),
    });
    assert.equal(answered.status, 200);
    await answered.body?.cancel();
    assert.deepEqual(await first, { status: "answered", answer: "one" });
    const [next, after] = [await streamA.next(), await streamA.next()];
    assert.deepEqual(
      [[next.event, next.data.question], [after.event, after.data.answer]],
      [["asked", "Second?"], ["answered", "one"]],
    );
    s.channel.cancel(next.data.id as string, "done");
    await second;
  } finally {
    await streamA.close();
    await s.close();
  }
});

Deno.test("a new event stream starts with every pending question, oldest first", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  const asks = new AbortController();
  const waiting = ["One?", "Two?", "Three?"].map((question) =>
    s.channel.ask({ question, options: [], multiSelect: false }, { signal: asks.signal })
      .catch(() => undefined)
  );
  const stream = sseEvents(await events(s.url));
  try {
    const seen = [await stream.next(), await stream.next(), await stream.next()];
    assert.deepEqual(seen.map((e) => [e.event, e.data.question]), [
      ["asked", "One?"],
      ["asked", "Two?"],
      ["asked", "Three?"],
    ]);
  } finally {
    await stream.close();
    asks.abort();
    await Promise.all(waiting);
    await s.close();
  }
});

Deno.test("a stream resumed with Last-Event-ID gets exactly what changed while it was away", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  const asks = new AbortController();
  const ask = (question: string) =>
    s.channel.ask({ question, options: [], multiSelect: false }, { signal: asks.signal })
      .catch(() => undefined);
  const waiting = [ask("Kept?"), ask("Answered while away?")];
  try {
    let stream = sseEvents(await events(s.url));
    const kept = await stream.next();
    const answered = await stream.next();
    assert.equal(answered.data.question, "Answered while away?");
    await stream.close();

    assert.equal(await s.channel.answer(answered.data.id as string, "done"), true);
    waiting.push(ask("Asked while away?"));
    await waitForPending(s.url, 2);

    stream = sseEvents(await events(s.url, answered.id));
    const first = await stream.next();
    const second = await stream.next();
    assert.deepEqual([first.event, first.data.id, first.data.answer], [
      "answered",
      answered.data.id,
      "done",
    ]);
    assert.deepEqual([second.event, second.data.question], ["asked", "Asked while away?"]);
    await stream.close();

    // From an older cursor, the question answered in between was never known: only the ask.
    stream = sseEvents(await events(s.url, kept.id));
    const replay = await stream.next();
    assert.deepEqual([replay.event, replay.data.question], ["asked", "Asked while away?"]);
    await stream.close();

    // A garbled id is a fresh start, after a reset that tells the client to drop what it shows.
    stream = sseEvents(await events(s.url, "garbage"));
    const fresh = [await stream.next(), await stream.next(), await stream.next()];
    assert.deepEqual(fresh.map((e) => [e.event, e.data.question]), [
      ["reset", undefined],
      ["asked", "Kept?"],
      ["asked", "Asked while away?"],
    ]);
    await stream.close();

    // Ids the channel never had are dropped without inventing events for them.
    stream = sseEvents(await events(s.url, `q:forged-1,${kept.data.id},forged-2`));
    const forged = await stream.next();
    assert.deepEqual([forged.event, forged.data.question], ["asked", "Asked while away?"]);
    assert.equal(forged.id, `q:${kept.data.id},${encodeURIComponent(forged.data.id as string)}`);
    await stream.close();
  } finally {
    asks.abort();
    await Promise.all(waiting);
    await s.close();
  }
});

Deno.test("with 2,000 pending questions the cursor stays small and a stream resumes from it", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel(
    {},
    new MemoryQuestionChannel({ limits: { maxPendingPerSession: 2000 } }),
  );
  const asks = new AbortController();
  const waiting = Array.from(
    { length: 2000 },
    (_, i) =>
      s.channel.ask({ question: `Q${i}?`, options: [], multiSelect: false }, {
        signal: asks.signal,
      })
        .catch(() => undefined),
  );
  try {
    let stream = sseEvents(await events(s.url));
    let last: SseEvent | undefined;
    let longest = 0;
    for (let i = 0; i < 2000; i++) {
      last = await stream.next();
      assert.equal(last.event, "asked");
      longest = Math.max(longest, last.id!.length);
    }
    await stream.close();
    assert.ok(longest <= 2048, `a cursor of ${longest} characters`);
    assert.match(last!.id!, /^d:2000\.[0-9a-f]{32}$/);

    // Nothing changed: the stream resumes silently, then reports the next change.
    stream = sseEvents(await events(s.url, last!.id));
    const first = (await s.channel.pending)[0];
    assert.equal(await s.channel.answer(first.id, "done"), true);
    const answered = await stream.next();
    assert.deepEqual([answered.event, answered.data.id], ["answered", first.id]);
    assert.match(answered.id!, /^d:1999\./);
    await stream.close();

    // A digest that no longer matches cannot say what changed: reset, then the full set.
    stream = sseEvents(await events(s.url, last!.id));
    const reset = await stream.next();
    assert.equal(reset.event, "reset");
    const again = await stream.next();
    assert.deepEqual([again.event, again.data.question], ["asked", "Q1?"]);
    await stream.close();
  } finally {
    asks.abort();
    await Promise.all(waiting);
    await s.close();
  }
});

Deno.test("each event stream reads the channel for itself, and the number of streams is capped", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  let reads = 0;
  const counted = new Proxy(channel, {
    get(target, key) {
      if (key === "pending") reads++;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const s = serve({
    tools: [askHuman(channel)],
    channel: counted,
    pollIntervalMs: 60_000,
    limits: { maxEventStreams: 5 },
  });
  const asks = new AbortController();
  const asking = channel.ask({ question: "Shared?", options: [], multiSelect: false }, {
    signal: asks.signal,
  }).catch(() => undefined);
  const streams: ReturnType<typeof sseEvents>[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const stream = sseEvents(await events(s.url));
      streams.push(stream);
      assert.equal((await stream.next()).data.question, "Shared?");
    }
    const refused = await events(s.url);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    await refused.body?.cancel();

    reads = 0;
    const [question] = await channel.pending;
    const response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: JSON.stringify({ answer: "yes" }),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    for (const stream of streams) assert.equal((await stream.next()).event, "answered");
    // The answer wakes every stream, and each reads the channel once; the route reads it no more.
    assert.equal(reads, streams.length);
  } finally {
    for (const stream of streams) await stream.close();
    asks.abort();
    await asking;
    channel.close();
    await s.close();
  }
});

Deno.test("a channel failure is a 500 that does not echo the channel's message", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const failing = new Proxy(channel, {
    get(target, key) {
      if (key === "answer" || key === "cancel") {
        return () => {
          throw new RangeError("internal detail from the store");
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const s = serve({ tools: [askHuman(channel)], channel: failing });
  const asks = new AbortController();
  const asking = channel.ask({ question: "Fail?", options: [], multiSelect: false }, {
    signal: asks.signal,
  }).catch(() => undefined);
  try {
    const [question] = await channel.pending;
    for (const [action, body] of [["answer", { answer: "yes" }], ["cancel", { reason: "no" }]]) {
      const response = await operator(`${s.url}/questions/${question.id}/${action}`, {
        method: "POST",
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 500, String(action));
      const text = await response.text();
      assert.doesNotMatch(text, /internal detail/);
    }
    assert.equal(s.errors.length, 2);
    assert.ok(s.errors.every((error) => error instanceof RangeError));
    const response = await operator(`${s.url}/questions/${question.id}/answer`, {
      method: "POST",
      body: "null",
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
  } finally {
    asks.abort();
    await asking;
    channel.close();
    await s.close();
  }
});

Deno.test("an id longer than any real id is a 404 on get, answer and cancel, with Deno KV", {
  timeout: 60_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  const channel = new DenoKvQuestionChannel(kv);
  const s = serve({ tools: [askHuman(channel)], channel });
  try {
    const id = "x".repeat(3000);
    for (const [method, path] of [["GET", ""], ["POST", "/answer"], ["POST", "/cancel"]]) {
      const response = await operator(`${s.url}/questions/${id}${path}`, {
        method,
        body: method === "POST" ? JSON.stringify({ answer: "yes" }) : undefined,
      });
      assert.equal(response.status, 404, `${method} ${path}`);
      const { error } = await response.json();
      assert.ok(error.length < 200, "the id is not echoed back whole");
    }
    assert.deepEqual(s.errors, []);
  } finally {
    await s.close();
    await channel.close();
    kv.close();
  }
});

Deno.test("a client that hangs up mid-body is an aborted request, not an internal error", {
  timeout: 60_000,
}, async () => {
  const framings = [
    'content-length: 1000\r\n\r\n{"text": "cut',
    'transfer-encoding: chunked\r\n\r\n5\r\n{"tex\r\n',
  ];
  for (const path of ["/tools/echo", "/mcp", "/questions/some-id/answer"]) {
    for (const framing of framings) {
      const errors: unknown[] = [];
      const channel = new MemoryQuestionChannel();
      const app = createApp({
        tools: [echo],
        channel,
        auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
        onError: (error) => errors.push(error),
      });
      const handled = Promise.withResolvers<number>();
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        async (request) => {
          const response = await app.fetch(request);
          handled.resolve(response.status);
          return response;
        },
      );
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
        const token = path.startsWith("/questions") ? OPERATOR_TOKEN : TOOL_TOKEN;
        await conn.write(new TextEncoder().encode(
          `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
            "content-type: application/json\r\naccept: application/json, text/event-stream\r\n" +
            framing,
        ));
        conn.close();
        const status = await handled.promise;
        const what = `${path} ${framing.split(":")[0]}`;
        assert.deepEqual(errors, [], what);
        assert.ok(status === 499 || (path === "/mcp" && status === 400), `${what}: ${status}`);
      } finally {
        app.close();
        channel.close();
        await server.shutdown();
      }
    }
  }
});

Deno.test(
  "drain: calls without a tool-call id are aborted after the grace period; keyed ones, by header or MCP _meta, stay pending",
  {
    timeout: 60_000,
  },
  async () => {
    const channel = new MemoryQuestionChannel();
    const app = createApp({
      tools: [askHuman(channel)],
      channel,
      auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
    });
    const auth = { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" };
    const ask = (question: string, headers: Record<string, string> = {}) =>
      app.fetch(
        new Request("http://localhost/tools/ask_human", {
          method: "POST",
          headers: { ...auth, ...headers },
          body: JSON.stringify({ question }),
        }),
      );
    const mcp = (question: string, meta?: Record<string, string>) =>
      app.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...auth, accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "ask_human",
              arguments: { question },
              ...(meta ? { _meta: meta } : {}),
            },
          }),
        }),
      );
    const unkeyedJson = ask("Unkeyed JSON?");
    const keyedJson = ask("Keyed JSON?", { "outpost-tool-call-id": "call_json" });
    const unkeyedMcp = mcp("Unkeyed MCP?");
    const keyedMcp = mcp("Keyed MCP?", { "outpost/toolCallId": "call_mcp" });
    await waitFor(async () => (await channel.pending).length === 4, "four questions");
    const byText = new Map((await channel.pending).map((q) => [q.question, q.id]));

    await app.drain(50);
    const status = async (question: string) => (await channel.get(byText.get(question)!))?.status;
    assert.equal(await status("Unkeyed JSON?"), "cancelled");
    assert.equal(await status("Unkeyed MCP?"), "cancelled");
    assert.equal(await status("Keyed JSON?"), "pending");
    assert.equal(await status("Keyed MCP?"), "pending");
    const stopped = await unkeyedJson;
    assert.equal(stopped.status, 503);
    assert.match((await stopped.json()).error, /stopping/);
    await (await unkeyedMcp).body?.cancel();

    // The keyed calls were not touched: answering them still reaches their callers.
    await channel.answer(byText.get("Keyed JSON?")!, "json answer");
    await channel.answer(byText.get("Keyed MCP?")!, "mcp answer");
    assert.deepEqual(await (await keyedJson).json(), { text: "json answer" });
    assert.match(await (await keyedMcp).text(), /mcp answer/);
    app.close();
    channel.close();
  },
);

Deno.test(
  "drain: of calls ending in any order, it aborts exactly those still running, and then waits for none",
  {
    timeout: 30_000,
  },
  async () => {
    const gates = new Map<string, () => void>();
    const gated = tool({
      name: "gated",
      description: "Answers its id once its gate opens.",
      input: z.object({ id: z.string() }),
      execute: ({ id }, ctx) =>
        new Promise<string>((resolve, reject) => {
          ctx.signal?.addEventListener("abort", () => reject(ctx.signal!.reason));
          gates.set(id, () => resolve(id));
        }),
    });
    const app = createApp({ tools: [gated], auth: { toolToken: TOOL_TOKEN } });
    const ids = ["0", "1", "2", "3", "4", "5", "6", "7"];
    const answers = new Map(ids.map((id) => [
      id,
      app.fetch(
        new Request("http://localhost/tools/gated", {
          method: "POST",
          headers: { authorization: `Bearer ${TOOL_TOKEN}` },
          body: JSON.stringify({ id }),
        }),
      ),
    ]));
    await waitFor(() => gates.size === ids.length, "every call running");
    const ended = ["3", "0", "7", "5"];
    for (const id of ended) {
      gates.get(id)!();
      assert.deepEqual(await (await answers.get(id)!).json(), { text: id });
    }
    await app.drain(50);
    for (const id of ids.filter((id) => !ended.includes(id))) {
      const response = await answers.get(id)!;
      assert.equal(response.status, 503, id);
      await response.body?.cancel();
    }
    // Nothing runs any more: a drain with a grace longer than the test resolves at once.
    await app.drain(600_000);
    app.close();
  },
);

Deno.test("GET /questions/history lists resolved questions newest first; 400 for a bad limit", {
  timeout: 60_000,
}, async () => {
  const s = serveWithChannel();
  const kv = await Deno.openKv(":memory:");
  const durable = new DenoKvQuestionChannel(kv, { prefix: ["h"] });
  const onKv = serve({ tools: [askHuman(durable)], channel: durable });
  try {
    const asks = ["one?", "two?", "three?"].map((question) =>
      s.channel.ask({ question, options: [], multiSelect: false })
    );
    const [one, two] = s.channel.pending;
    s.channel.answer(one.id, "first");
    s.channel.cancel(two.id, "not needed");
    const history = async (url: string, query = "") => {
      const response = await operator(`${url}/questions/history${query}`);
      return { status: response.status, body: await response.json() };
    };
    const all = await history(s.url);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.questions.map((r: { status: string }) => r.status), [
      "cancelled",
      "answered",
    ]);
    assert.equal(all.body.questions[0].reason, "not needed");
    assert.equal(all.body.questions[1].answer, "first");
    assert.equal(all.body.questions[1].question.question, "one?");
    assert.ok(!Number.isNaN(Date.parse(all.body.questions[0].resolvedAt)));
    assert.deepEqual(
      (await history(s.url, "?limit=1")).body.questions.map((r: { question: HumanQuestion }) =>
        r.question.id
      ),
      [two.id],
    );
    assert.equal((await history(s.url, "?limit=100")).status, 200);
    for (const bad of ["0", "-1", "1.5", "abc", "", "101", "1e2", "0x10"]) {
      const refused = await history(s.url, `?limit=${bad}`);
      assert.equal(refused.status, 400, bad);
      assert.match(refused.body.error, /limit must be a whole number from 1 to 100/);
    }
    const anonymous = await fetch(`${s.url}/questions/history`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const withToolToken = await operator(`${s.url}/questions/history`, {}, TOOL_TOKEN);
    assert.equal(withToolToken.status, 401);
    await withToolToken.body?.cancel();

    // The durable channel serves the same route from its store.
    const kvAsk = durable.ask({ question: "Durable?", options: [], multiSelect: false });
    const [pending] = await waitForPending(onKv.url, 1);
    await durable.answer(pending.id, "kept");
    assert.deepEqual(await kvAsk, { status: "answered", answer: "kept" });
    const stored = await history(onKv.url);
    assert.deepEqual(stored.body.questions.map((r: { answer: string }) => r.answer), ["kept"]);
    s.channel.close();
    await Promise.all(asks);
  } finally {
    await s.close();
    await onKv.close();
    await durable.close();
    kv.close();
  }
});

Deno.test("GET /questions/history is a 404 that says why for a channel without resolved()", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  // A channel of someone else's making that keeps no history.
  const bare = new Proxy(channel, {
    get(target, key) {
      if (key === "resolved") return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const s = serve({ tools: [askHuman(channel)], channel: bare });
  try {
    const response = await operator(`${s.url}/questions/history`);
    assert.equal(response.status, 404);
    assert.match((await response.json()).error, /keeps no history/);
  } finally {
    channel.close();
    await s.close();
  }
});

Deno.test({
  name: "the operator API: decisions and withdrawals as fields, a retried answer succeeds",
  timeout: 20_000,
}, async () => {
  const s = serveWithChannel();
  const post = (id: string, action: string, body: unknown) =>
    operator(`${s.url}/questions/${id}/${action}`, {
      method: "POST",
      body: JSON.stringify(body),
    });
  const stream = sseEvents(await events(s.url));
  try {
    // A free-text answer posted twice (the first response lost): both succeed; another conflicts.
    const asking = call(`${s.url}/tools/ask_human`, JSON.stringify({ question: "Ship it?" }));
    const [question] = await waitForPending(s.url, 1);
    assert.equal((await stream.next()).event, "asked");
    for (let i = 0; i < 2; i++) {
      const response = await post(question.id, "answer", { answer: "Yes" });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { id: question.id, status: "answered" });
    }
    const other = await post(question.id, "answer", { answer: "No" });
    assert.equal(other.status, 409);
    assert.deepEqual(await other.json(), {
      error: `Question "${question.id}" is no longer pending.`,
      status: "answered",
    });
    assert.deepEqual(await (await asking).json(), { text: "Yes" });
    const answered = (await s.channel.get(question.id)) as { resolvedAt: string };
    assert.deepEqual((await stream.next()).data, {
      id: question.id,
      answer: "Yes",
      resolvedAt: answered.resolvedAt,
    });

    // An approval is decided with a decision, which the record and the event carry as fields.
    const approving = s.channel.ask({
      question: "Allow a call to deploy?",
      options: [],
      multiSelect: false,
      kind: "approval",
    });
    const [approval] = await waitForPending(s.url, 1);
    assert.equal((await stream.next()).event, "asked");
    assert.equal((await post(question.id, "answer", { decision: "approve" })).status, 400);
    assert.equal(
      (await post(approval.id, "answer", { decision: "approve", answer: "Approve" })).status,
      400,
    );
    assert.equal((await post(approval.id, "answer", { decision: "maybe" })).status, 400);
    for (let i = 0; i < 2; i++) {
      const response = await post(approval.id, "answer", { decision: "deny", reason: "Frozen" });
      assert.equal(response.status, 200);
    }
    assert.equal((await post(approval.id, "answer", { decision: "approve" })).status, 409);
    assert.deepEqual(await approving, {
      status: "answered",
      answer: "Deny",
      decision: "deny",
      reason: "Frozen",
    });
    const decided = await stream.next();
    assert.equal(decided.event, "answered");
    assert.equal(decided.data.decision, "deny");
    assert.equal(decided.data.reason, "Frozen");
    const record = await (await operator(`${s.url}/questions/${approval.id}`)).json();
    assert.equal(record.decision, "deny");
    assert.equal(record.reason, "Frozen");

    // A cancel whose reason reads like a withdrawal is a cancel; a withdrawal says so as a field.
    const cancelling = call(`${s.url}/tools/ask_human`, JSON.stringify({ question: "Rotate?" }));
    const [rotate] = await waitForPending(s.url, 1);
    assert.equal((await stream.next()).event, "asked");
    for (let i = 0; i < 2; i++) {
      assert.equal((await post(rotate.id, "cancel", { reason: "withdrawn: by me" })).status, 200);
    }
    assert.equal((await cancelling).status, 422);
    const late = await post(rotate.id, "answer", { answer: "Yes" });
    assert.deepEqual(await late.json(), {
      error: `Question "${rotate.id}" is no longer pending.`,
      status: "cancelled",
    });
    const cancelled = await stream.next();
    assert.equal(cancelled.event, "cancelled");
    assert.equal(cancelled.data.withdrawn, undefined);
    const giveUp = new AbortController();
    const abandoned = s.channel.ask({ question: "Gone?", options: [], multiSelect: false }, {
      signal: giveUp.signal,
    });
    assert.equal((await stream.next()).event, "asked");
    giveUp.abort();
    await assert.rejects(abandoned);
    const withdrawn = await stream.next();
    assert.equal(withdrawn.event, "cancelled");
    assert.equal(withdrawn.data.withdrawn, true);
    const history = await (await operator(`${s.url}/questions/history`)).json();
    assert.deepEqual(
      history.questions.map((
        r: { status: string; withdrawn?: boolean; decision?: string },
      ) => [r.status, r.withdrawn ?? r.decision ?? null]),
      [["cancelled", true], ["cancelled", null], ["answered", "deny"], ["answered", null]],
    );
  } finally {
    await stream.close();
    await s.close();
  }
});

Deno.test("a rate-limited tool answers 429 with Retry-After in whole seconds and its code", {
  timeout: 20_000,
}, async () => {
  await using site = localServer(() =>
    new Response("slow down", { status: 429, headers: { "retry-after": "120" } })
  );
  const throttled = tool({
    name: "throttled",
    description: "Is rate limited for a second and a half.",
    input: z.object({}),
    execute() {
      throw new ToolError("Slow down.", { code: "rate_limited", retryAfterMs: 1_500 });
    },
  });
  const unsure = tool({
    name: "unsure",
    description: "Is rate limited for a while nobody said.",
    input: z.object({}),
    execute() {
      throw new ToolError("Slow down.", { code: "rate_limited", status: 429 });
    },
  });
  const reader = new HttpReader({ allowPrivateNetwork: true, retryDelayMs: 1 });
  const s = serve({ tools: [webFetch(reader), throttled, unsure] });
  try {
    let response = await call(`${s.url}/tools/web_fetch`, JSON.stringify({ url: site.origin }));
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "120");
    const body = await response.json();
    assert.equal(body.code, "rate_limited");
    assert.match(body.error, /is rate limiting these requests \(HTTP 429\)/);

    response = await call(`${s.url}/tools/throttled`, "{}");
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "2", "rounded up");
    assert.deepEqual(await response.json(), { error: "Slow down.", code: "rate_limited" });

    response = await call(`${s.url}/tools/unsure`, "{}");
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), null, "no wait was given");
    await response.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("a full channel: 429 with Retry-After on the JSON route, a tool error over MCP", {
  timeout: 20_000,
}, async () => {
  const channel = new MemoryQuestionChannel({ limits: { maxPending: 1 } });
  const s = serveWithChannel({}, channel);
  try {
    const first = call(
      `${s.url}/tools/ask_human`,
      JSON.stringify({ question: "First?" }),
      { "outpost-tool-call-id": "call_1" },
    );
    await waitForPending(s.url, 1);
    const refused = await call(
      `${s.url}/tools/ask_human`,
      JSON.stringify({ question: "Second?" }),
      { "outpost-tool-call-id": "call_2" },
    );
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    const body = await refused.json();
    assert.match(body.error, /Too many questions are waiting/);
    assert.match(body.hint, /ask again in \d+ seconds/);
    assert.equal(body.code, "rate_limited");
    // MCP callers get the same words as a tool error.
    const mcp = await call(
      `${s.url}/mcp`,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ask_human", arguments: { question: "Third?" } },
      }),
      { accept: "application/json, text/event-stream" },
    );
    const text = await mcp.text();
    assert.match(text, /"isError":true/);
    assert.match(text, /Too many questions are waiting/);
    assert.equal(channel.pending.length, 1, "nothing stored for the refused calls");
    channel.answer(channel.pending[0].id, "yes");
    assert.deepEqual(await (await first).json(), { text: "yes" });
  } finally {
    await s.close();
  }
});
