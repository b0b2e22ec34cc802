import assert from "node:assert/strict";
import * as z from "zod";
import { now, type Tool, tool } from "../mod.ts";
import {
  type CallLimiter,
  type CallLimits,
  createApp,
  MemoryCallLimiter,
} from "../src/http/mod.ts";
import { FakeClock } from "../src/testing/mod.ts";
import { SetupError } from "../src/errors.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { vercelHandler } from "../edge/vercel/mod.ts";
import { CallCounter, workerCallLimiter } from "../edge/cloudflare/call_limits.ts";
import { mcpMessages } from "./support/sse.ts";
import { waitFor } from "./support/wait.ts";
import { type RunningWorker, startWorker } from "./support/workerd.ts";

const TOKEN_A = "tool-token-a-0123456789abcdef";
const TOKEN_B = "tool-token-b-0123456789abcdef";

/** A tool whose calls run until the test ends them; `started` counts the calls begun. */
function gate() {
  const waiting: (() => void)[] = [];
  let started = 0;
  let onStart = () => {};
  const held: Tool = tool({
    name: "held",
    description: "Runs until released.",
    input: z.object({}),
    async execute() {
      started++;
      onStart();
      await new Promise<void>((resolve) => waiting.push(resolve));
      return "done";
    },
  });
  return {
    tool: held,
    /** Resolves once `count` calls have begun. */
    started: (count: number) =>
      new Promise<void>((resolve) => {
        onStart = () => started >= count && resolve();
        onStart();
      }),
    release: () => waiting.shift()!(),
  };
}

/** The service for `token` on 127.0.0.1, with `tools` behind `limiter`. */
function serve(token: string, limiter: CallLimiter, tools: Tool[] = [now]) {
  const lines: string[] = [];
  const app = createApp({
    tools,
    auth: { toolToken: token },
    limiter,
    onError: () => {},
    telemetry: { accessLog: (entry) => lines.push(JSON.stringify(entry)) },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
  return {
    lines,
    call: (name = "now") => post(`/tools/${name}`, {}),
    /** A `tools/call` over MCP, and its JSON-RPC result. */
    async mcp(name = "now") {
      const response = await post("/mcp", {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: {} },
      });
      const [message] = await mcpMessages(response);
      return message.result as {
        isError?: boolean;
        _meta: Record<string, unknown>;
        content: { text: string }[];
      };
    },
    async [Symbol.asyncDispose]() {
      app.close();
      await server.shutdown();
    },
  };
}

/** Calls `now` and returns the status, `Retry-After` and body; the body is always read. */
async function status(response: Promise<Response>) {
  const answer = await response;
  return {
    status: answer.status,
    retryAfter: answer.headers.get("retry-after"),
    body: await answer.json(),
  };
}

const limited = (limits: CallLimits, clock: FakeClock) =>
  new MemoryCallLimiter(() => limits, { clock });

Deno.test("call limits: over the rate, 429 with the exact Retry-After; allowed once it passed", {
  timeout: 30_000,
}, async () => {
  const clock = new FakeClock(0);
  // 7 a minute: one call refills every 8,571.4 ms, which Retry-After rounds up to 9 s.
  await using service = serve(TOKEN_A, limited({ rate: { calls: 7, periodMs: 60_000 } }, clock));
  for (let i = 0; i < 7; i++) assert.equal((await status(service.call())).status, 200);
  const refused = await status(service.call());
  assert.equal(refused.status, 429);
  assert.equal(refused.retryAfter, "9");
  assert.equal(refused.body.code, "rate_limited");
  assert.match(refused.body.error, /7 per minute/);
  assert.equal(typeof refused.body.hint, "string");

  await clock.advance(8_571);
  const early = await status(service.call());
  assert.deepEqual([early.status, early.retryAfter], [429, "1"]);
  await clock.advance(1);
  assert.equal((await status(service.call())).status, 200);
  // One call refilled, one spent: the next waits a whole share again.
  assert.equal((await status(service.call())).retryAfter, "9");
  // A long pause refills the bucket to its burst, not beyond.
  await clock.advance(3_600_000);
  for (let i = 0; i < 7; i++) assert.equal((await status(service.call())).status, 200);
  assert.equal((await status(service.call())).status, 429);

  const entry = JSON.parse(service.lines.at(-1)!);
  assert.deepEqual([entry.outcome, entry.errorCode], ["error", "rate_limited"]);
});

Deno.test("call limits: the call past the concurrency limit is refused while the others run", {
  timeout: 30_000,
}, async () => {
  const clock = new FakeClock(0);
  const held = gate();
  await using service = serve(TOKEN_A, limited({ concurrency: 2 }, clock), [held.tool, now]);
  const first = service.call("held");
  const second = service.call("held");
  await held.started(2);
  const third = await status(service.call("held"));
  assert.equal(third.status, 429);
  assert.equal(third.retryAfter, null); // when a slot frees is not known
  assert.equal(third.body.code, "rate_limited");
  assert.match(third.body.error, /2 at a time/);
  // Every tool counts: the limit is on the caller's calls, not one tool's.
  assert.equal((await status(service.call("now"))).status, 429);

  held.release();
  assert.equal((await status(first)).status, 200);
  const fourth = service.call("held");
  await held.started(3);
  held.release();
  held.release();
  assert.equal((await status(second)).status, 200);
  assert.equal((await status(fourth)).status, 200);
  assert.equal((await status(service.call("now"))).status, 200);
});

Deno.test("call limits: a failed call frees its slot; a refused call takes no share of the rate", {
  timeout: 30_000,
}, async () => {
  const clock = new FakeClock(0);
  const failing = tool({
    name: "failing",
    description: "Fails.",
    input: z.object({}),
    execute() {
      throw new TypeError("internals");
    },
  });
  const held = gate();
  const limiter = limited({ concurrency: 1, rate: { calls: 2, periodMs: 1_000 } }, clock);
  await using service = serve(TOKEN_A, limiter, [failing, held.tool, now]);
  assert.equal((await status(service.call("failing"))).status, 500);
  const running = service.call("held");
  await held.started(1);
  // Refused for concurrency, many times over: the rate's one remaining call is still there.
  for (let i = 0; i < 5; i++) assert.equal((await status(service.call())).status, 429);
  held.release();
  assert.equal((await status(running)).status, 200);
  assert.equal((await status(service.call())).status, 429); // the rate now: 3 calls in 0 ms
  await clock.advance(500);
  assert.equal((await status(service.call())).status, 200);
});

Deno.test("call limits: each token has its own limits and counts", {
  timeout: 30_000,
}, async () => {
  const clock = new FakeClock(0);
  const perToken: Record<string, CallLimits> = {
    [TOKEN_A]: { rate: { calls: 1, periodMs: 60_000 } },
    [TOKEN_B]: { rate: { calls: 3, periodMs: 60_000 } },
  };
  // One limiter behind two services, as a deployment with two tokens has.
  const limiter = new MemoryCallLimiter((key) => perToken[key], { clock });
  await using a = serve(TOKEN_A, limiter);
  await using b = serve(TOKEN_B, limiter);
  assert.equal((await status(a.call())).status, 200);
  const refused = await status(a.call());
  assert.deepEqual([refused.status, refused.retryAfter], [429, "60"]);
  for (let i = 0; i < 3; i++) assert.equal((await status(b.call())).status, 200);
  assert.equal((await status(b.call())).retryAfter, "20");
  // A token without limits is not limited.
  await using free = serve("tool-token-free-0123456789", limiter);
  for (let i = 0; i < 20; i++) assert.equal((await status(free.call())).status, 200);
});

Deno.test("call limits: over MCP a refused call is a tool error with the rate_limited code", {
  timeout: 30_000,
}, async () => {
  const clock = new FakeClock(0);
  await using service = serve(TOKEN_A, limited({ rate: { calls: 1, periodMs: 10_000 } }, clock));
  const ok = await service.mcp();
  assert.equal(ok.isError, undefined);
  const refused = await service.mcp();
  assert.equal(refused.isError, true);
  assert.deepEqual(refused._meta["outpost/error"], { code: "rate_limited", retryAfterMs: 10_000 });
  assert.match(refused.content[0].text, /1 per 10000 ms/);
  await clock.advance(10_000);
  assert.equal((await service.mcp()).isError, undefined);
});

Deno.test("call limits: OUTPOST_RATE_LIMIT and OUTPOST_CONCURRENCY_LIMIT are read strictly", () => {
  const rate = (value: string) => readServiceSettings({ OUTPOST_RATE_LIMIT: value }).rateLimit;
  assert.deepEqual(rate("60/min"), { calls: 60, periodMs: 60_000 });
  assert.deepEqual(rate(" 100 / 10s "), { calls: 100, periodMs: 10_000 });
  assert.deepEqual(rate("5/s"), { calls: 5, periodMs: 1_000 });
  assert.deepEqual(rate("1000/h"), { calls: 1_000, periodMs: 3_600_000 });
  assert.equal(readServiceSettings({}).rateLimit, undefined);
  for (
    const bad of [
      "60",
      "60/",
      "/min",
      "60/minute",
      "60/m",
      "0/min",
      "60/0s",
      "-1/min",
      "1.5/min",
      "60/1.5min",
      "9999999999/h",
      "60/min,burst=5",
    ]
  ) {
    assert.throws(() => rate(bad), (error: unknown) => {
      assert.ok(error instanceof SetupError);
      assert.equal(
        error.message,
        `OUTPOST_RATE_LIMIT must be a number of calls per period such as 60/min, not ${
          JSON.stringify(bad)
        }.`,
      );
      assert.match(error.hint!, /100\/10s/);
      return true;
    });
  }
  const concurrency = (value: string) =>
    readServiceSettings({ OUTPOST_CONCURRENCY_LIMIT: value }).concurrencyLimit;
  assert.equal(concurrency("8"), 8);
  assert.throws(() => concurrency("0"), /OUTPOST_CONCURRENCY_LIMIT must be a positive integer/);
  assert.throws(() => concurrency("many"), /OUTPOST_CONCURRENCY_LIMIT must be a positive integer/);
});

Deno.test("call limits: the Vercel handler limits each instance as its settings say", {
  timeout: 30_000,
}, async () => {
  const handler = vercelHandler({
    env: {
      OUTPOST_TOOL_TOKEN: TOKEN_A,
      OUTPOST_TOOLS: "now",
      OUTPOST_RATE_LIMIT: "2/min",
      OUTPOST_ACCESS_LOG: "false",
    },
  });
  const call = () =>
    handler(
      new Request("https://outpost.example/tools/now", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN_A}` },
        body: "{}",
      }),
    );
  assert.equal((await status(call())).status, 200);
  assert.equal((await status(call())).status, 200);
  // The real clock: half a minute less the milliseconds this test took, rounded up.
  const refused = await status(call());
  assert.equal(refused.status, 429);
  assert.match(refused.retryAfter!, /^(30|2\d)$/);
});

const workerVars = {
  OUTPOST_TOOL_TOKEN: TOKEN_A,
  OUTPOST_OPERATOR_TOKEN: "operator-token-0123456789abcdef",
  OUTPOST_ACCESS_LOG: "false",
};

/** Calls `name` on the Worker with the tool token. */
function workerCall(worker: RunningWorker, name = "now", input: unknown = {}) {
  return worker.fetch(`/tools/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN_A}` },
    body: JSON.stringify(input),
  });
}

Deno.test("call limits on the Worker without the binding: counted in the tenant's Durable Object", {
  timeout: 60_000,
}, async () => {
  await using worker = await startWorker({
    vars: { ...workerVars, OUTPOST_RATE_LIMIT: "3/h", OUTPOST_CONCURRENCY_LIMIT: "1" },
  });
  const operator = { authorization: `Bearer ${workerVars.OUTPOST_OPERATOR_TOKEN}` };
  // A question waits for its answer: the one call the concurrency limit allows is running.
  const asking = workerCall(worker, "ask_human", { question: "Proceed?" });
  let pending: { id: string }[] = [];
  await waitFor(async () => {
    const response = await worker.fetch("/questions", { headers: operator });
    pending = (await response.json()).questions;
    return pending.length === 1;
  }, "the question");
  // Every isolate asks the same object: the second call is refused wherever it lands.
  const second = await status(workerCall(worker));
  assert.deepEqual([second.status, second.retryAfter, second.body.code], [
    429,
    null,
    "rate_limited",
  ]);
  const answered = await worker.fetch(`/questions/${pending[0].id}/answer`, {
    method: "POST",
    headers: { ...operator, "content-type": "application/json" },
    body: JSON.stringify({ answer: "yes" }),
  });
  assert.equal(answered.status, 200);
  await answered.body?.cancel();
  assert.equal((await status(asking)).status, 200);
  // Three calls an hour: the ask and this one, then one more; the fourth waits for a third of
  // the hour, less the seconds since the first.
  assert.equal((await status(workerCall(worker))).status, 200);
  assert.equal((await status(workerCall(worker))).status, 200);
  const over = await status(workerCall(worker));
  assert.equal(over.status, 429);
  const wait = Number(over.retryAfter);
  assert.ok(wait > 1_100 && wait <= 1_200, over.retryAfter!);
});

Deno.test("call limits on the Worker with Cloudflare's rate-limiting binding (simulated)", {
  timeout: 60_000,
}, async () => {
  await using worker = await startWorker({
    // The binding's limit, not the setting's, counts the rate: 2 calls a minute.
    vars: { ...workerVars, OUTPOST_RATE_LIMIT: "100/min" },
    ratelimits: {
      OUTPOST_RATE_LIMITER: { namespace_id: "1001", simple: { limit: 2, period: 60 } },
    },
  });
  assert.equal((await status(workerCall(worker))).status, 200);
  assert.equal((await status(workerCall(worker))).status, 200);
  // The simulation counts in windows of the wall clock's minutes: should one begin between the
  // calls, the count starts afresh, and the refusal comes within the next window's two calls.
  let over = await status(workerCall(worker));
  for (let more = 0; over.status === 200 && more < 2; more++) {
    over = await status(workerCall(worker));
  }
  assert.deepEqual([over.status, over.retryAfter, over.body.code], [429, "60", "rate_limited"]);
});

Deno.test("call limits on the Worker need the Durable Object binding", {
  timeout: 60_000,
}, async () => {
  await using worker = await startWorker({
    vars: { ...workerVars, OUTPOST_CONCURRENCY_LIMIT: "2" },
    without: ["OUTPOST_QUESTIONS"],
  });
  const response = await status(workerCall(worker));
  assert.equal(response.status, 503);
  assert.match(response.body.error, /OUTPOST_QUESTIONS/);
});

Deno.test("call limits on the Worker: a slot whose Worker never ended it frees when its lease is over", async () => {
  const clock = new FakeClock(0);
  const counter = new CallCounter(clock);
  const limits = { concurrency: 1 };
  // A call admitted, whose Worker died: it never asks to end it.
  assert.equal(await counter.count({ id: "lost", limits, leaseMs: 60_000 }), null);
  const refused = await counter.count({ id: "next", limits, leaseMs: 60_000 });
  assert.match(refused!.message, /1 at a time/);
  await clock.advance(59_999);
  assert.notEqual(await counter.count({ id: "next", limits, leaseMs: 60_000 }), null);
  await clock.advance(1);
  assert.equal(await counter.count({ id: "next", limits, leaseMs: 60_000 }), null);
  // A call ended as it should frees its slot at once.
  assert.equal(await counter.count({ id: "next" }), null);
  assert.equal(await counter.count({ id: "after", limits, leaseMs: 60_000 }), null);
});

Deno.test("call limits on the Worker: the tenant's object counts each token apart", async () => {
  const counter = new CallCounter(new FakeClock(0));
  const limits = { concurrency: 1 };
  assert.equal(await counter.count({ id: "a1", key: "token-a", limits, leaseMs: 60_000 }), null);
  assert.notEqual(await counter.count({ id: "a2", key: "token-a", limits, leaseMs: 60_000 }), null);
  assert.equal(await counter.count({ id: "b1", key: "token-b", limits, leaseMs: 60_000 }), null);
});

Deno.test("call limits: limits that are no whole numbers above 0 are a SetupError, not a free pass", async () => {
  for (
    const limits of [
      { concurrency: 0 },
      { concurrency: 1.5 },
      { rate: { calls: 0, periodMs: 1_000 } },
      { rate: { calls: 1, periodMs: -1 } },
      { rate: { calls: 2 ** 40, periodMs: 2 ** 20 } },
    ]
  ) {
    const limiter = new MemoryCallLimiter(() => limits, { clock: new FakeClock(0) });
    await assert.rejects(limiter.acquire("token"), SetupError, JSON.stringify(limits));
  }
});

Deno.test("call limits on the Worker: a call's end that cannot reach the object loses no answer", async () => {
  const sent: string[] = [];
  // An object that admits calls, then becomes unreachable.
  const namespace = {
    idFromName: (name: string) => name,
    get: () => ({
      fetch(_url: string, init?: RequestInit) {
        sent.push(String(init?.body));
        return sent.length === 1
          ? Promise.resolve(Response.json(null))
          : Promise.reject(new Error("the object is unreachable"));
      },
    }),
  };
  const limiter = workerCallLimiter({ concurrency: 1 }, namespace, "default", 60_000);
  const end = await limiter.acquire(TOKEN_A);
  await end(); // resolves: the lease frees the slot
  assert.equal(sent.length, 2);
  // No token leaves the Worker: the object gets its digest.
  assert.ok(sent.every((body) => !body.includes(TOKEN_A)));
});
