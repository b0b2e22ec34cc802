import assert from "node:assert/strict";
import { askHuman, type QuestionChannel } from "../mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { DenoKvQuestionChannel } from "../edge/deno/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { QuestionEvents } from "../src/http/question_events.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { channelView } from "./support/questions.ts";
import { sseEvents } from "./support/sse.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
const ask = (question: string) => ({ question, options: [], multiSelect: false });

/** `channel` with `changes()` that yield at each `push()`, counting its reads of `pending`. */
function pushingChannel(channel: MemoryQuestionChannel) {
  let wake = () => {};
  let count = 0;
  const pushing = channelView(channel, {
    async *changes(signal: AbortSignal) {
      yield;
      while (!signal.aborted) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
        if (!signal.aborted) yield;
      }
    },
  });
  Object.defineProperty(pushing, "pending", {
    get() {
      count++;
      return channel.pending;
    },
  });
  return { pushing, push: () => wake(), reads: () => count };
}

/** Serves the app on `channel` on 127.0.0.1, with the failures it reports. */
function serve(channel: QuestionChannel, pollIntervalMs = 20, clock?: FakeClock) {
  const errors: unknown[] = [];
  const app = createApp({
    tools: [askHuman(channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
    pollIntervalMs,
    clock,
    onError: (error) => errors.push(error),
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    errors,
    events: (lastEventId?: string) =>
      fetch(`${url}/questions/events`, {
        headers: {
          authorization: `Bearer ${OPERATOR_TOKEN}`,
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        },
      }),
    async [Symbol.asyncDispose]() {
      app.close();
      await server.shutdown();
    },
  };
}

Deno.test("two event streams at once: one closing leaves the other getting events", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  await using s = serve(channel);
  const a = sseEvents(await s.events());
  const b = sseEvents(await s.events());
  const first = channel.ask(ask("First?"));
  assert.equal((await a.next()).data.question, "First?");
  assert.equal((await b.next()).data.question, "First?");
  await a.close();
  const second = channel.ask(ask("Second?"));
  assert.equal((await b.next()).data.question, "Second?");
  // A stream opened after the first one closed is served too.
  const c = sseEvents(await s.events());
  assert.deepEqual([(await c.next()).data.question, (await c.next()).data.question], [
    "First?",
    "Second?",
  ]);
  const [q1, q2] = await channel.pending;
  channel.answer(q1.id, "one");
  channel.answer(q2.id, "two");
  assert.deepEqual([(await b.next()).event, (await b.next()).event], ["answered", "answered"]);
  assert.deepEqual(await Promise.all([first, second]), [
    { status: "answered", answer: "one" },
    { status: "answered", answer: "two" },
  ]);
  await b.close();
  await c.close();
  channel.close();
  assert.deepEqual(s.errors, []);
});

Deno.test({
  name: "an overlong Last-Event-ID resets its own stream and never reaches Deno KV",
  timeout: 60_000,
  async fn() {
    const kv = await Deno.openKv(":memory:");
    const channel = new DenoKvQuestionChannel(kv, { pollMs: 50 });
    try {
      await using s = serve(channel);
      const other = sseEvents(await s.events());
      const asking = channel.ask(ask("Still served?"));
      assert.equal((await other.next()).data.question, "Still served?");
      // One id of 2,040 characters: Deno KV refuses keys that long.
      const forged = sseEvents(await s.events(`q:${"x".repeat(2040)}`));
      assert.equal((await forged.next()).event, "reset");
      assert.equal((await forged.next()).data.question, "Still served?");
      const [question] = await channel.pending;
      await channel.answer(question.id, "yes");
      assert.equal((await other.next()).event, "answered");
      assert.equal((await forged.next()).event, "answered");
      assert.deepEqual(await asking, { status: "answered", answer: "yes" });
      assert.deepEqual(s.errors, []);
      await other.close();
      await forged.close();
    } finally {
      await channel.close();
      kv.close();
    }
  },
});

Deno.test({
  name: "a channel error for one stream ends that stream only",
  timeout: 60_000,
  async fn() {
    const channel = new MemoryQuestionChannel();
    // A channel whose store fails on one id, which only the first stream's cursor names.
    const failing = channelView(channel, {
      get: (id: string) => {
        if (id === "broken") throw new Error("store failure");
        return channel.get(id);
      },
    });
    await using s = serve(failing);
    const healthy = sseEvents(await s.events());
    const first = channel.ask(ask("Before the failure?"));
    assert.equal((await healthy.next()).data.question, "Before the failure?");
    // The broken stream ends, and its failure is reported once.
    const broken = await s.events("q:broken");
    await broken.body!.pipeTo(new WritableStream());
    assert.equal(s.errors.length, 1);
    assert.match(String(s.errors[0]), /store failure/);
    const second = channel.ask(ask("After the failure?"));
    assert.equal((await healthy.next()).data.question, "After the failure?");
    for (const q of await channel.pending) channel.cancel(q.id, "done");
    assert.deepEqual([(await healthy.next()).event, (await healthy.next()).event], [
      "cancelled",
      "cancelled",
    ]);
    await Promise.all([first, second]);
    await healthy.close();
    channel.close();
  },
});

Deno.test("a channel that pushes its changes is not polled while nothing changes", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const { pushing, push, reads } = pushingChannel(channel);
  // A poll interval of 5 ms would read the channel forty times below.
  const clock = new FakeClock();
  await using s = serve(pushing, 5, clock);
  const stream = sseEvents(await s.events());
  const asking = channel.ask(ask("Pushed?"));
  push();
  assert.equal((await stream.next()).data.question, "Pushed?");
  const before = reads();
  await clock.advance(200);
  assert.equal(reads(), before, "no read while idle");
  channel.cancel((await channel.pending)[0].id, "done");
  push();
  assert.equal((await stream.next()).event, "cancelled");
  await asking;
  await stream.close();
  channel.close();
});

Deno.test({
  name: "keep-alives on a pushing channel's stream read nothing",
  timeout: 60_000,
  async fn() {
    const channel = new MemoryQuestionChannel();
    const { pushing, push, reads } = pushingChannel(channel);
    const events = new QuestionEvents(pushing, {
      pollIntervalMs: 5,
      maxStreams: 10,
      onError: (error) => {
        throw error;
      },
      keepAliveMs: 20,
    });
    const stop = new AbortController();
    const reader = events.open(null, stop.signal)!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (text.split(": keep-alive").length < 6) text += (await reader.read()).value;
    assert.equal(reads(), 1, "only the first read; the keep-alives read nothing");
    const asking = channel.ask(ask("Pushed?"));
    push();
    while (!text.includes("event: asked")) text += (await reader.read()).value;
    assert.equal(reads(), 2);
    channel.cancel((await channel.pending)[0].id);
    await asking;
    stop.abort();
    events.close();
    await reader.cancel();
    channel.close();
  },
});

Deno.test({
  name: "memory and Deno KV channels push their changes: an idle stream reads nothing",
  timeout: 20_000,
  async fn() {
    const kv = await Deno.openKv(":memory:");
    const clock = new FakeClock();
    for (
      const channel of [
        new MemoryQuestionChannel({ clock }),
        new DenoKvQuestionChannel(kv, { clock }),
      ]
    ) {
      let reads = 0;
      const counted = new Proxy(channel, {
        get(target, property) {
          if (property === "pending") reads++;
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) as QuestionChannel;
      const events = new QuestionEvents(counted, {
        pollIntervalMs: 5,
        maxStreams: 10,
        onError: (error) => {
          throw error;
        },
        clock,
      });
      const stop = new AbortController();
      const reader = events.open(null, stop.signal)!.pipeThrough(new TextDecoderStream())
        .getReader();
      let text = "";
      const asking = channel.ask(ask("Pushed?"));
      while (!text.includes("event: asked")) text += (await reader.read()).value;
      // The ask may have been seen by the first read and pushed as well: one more read.
      await clock.advance(1_000);
      const idle = reads;
      // A minute: twelve thousand poll intervals, four keep-alives, not one read.
      for (let i = 0; i < 60; i++) await clock.advance(1_000);
      assert.equal(reads, idle, `${channel.constructor.name}: no read while idle`);
      while (text.split(": keep-alive").length < 4) text += (await reader.read()).value;
      const [question] = await channel.pending;
      await channel.answer(question.id, "yes");
      while (!text.includes("event: answered")) text += (await reader.read()).value;
      assert.deepEqual(await asking, { status: "answered", answer: "yes" });
      stop.abort();
      events.close();
      await reader.cancel();
      await channel.close();
    }
    kv.close();
  },
});
