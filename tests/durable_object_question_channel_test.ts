import assert from "node:assert/strict";
import { type QuestionChannel, ToolError } from "../mod.ts";
import type { HumanQuestion } from "../src/human/mod.ts";
import {
  type DurableObjectNamespaceLike,
  DurableObjectQuestionChannel,
} from "../edge/cloudflare/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { sseEvents } from "./support/sse.ts";
import { waitFor } from "./support/wait.ts";
import { type RunningWorker, startWorker } from "./support/workerd.ts";
import { questionChannelContract } from "../src/testing/question_channel_contract.ts";

// DurableObjectQuestionChannel run here, in Deno, against the real Durable Object in workerd: Miniflare
// hands the test the namespace binding, so requests to the object can be counted.

const ask = (question: string, key?: string) => ({
  question,
  options: [],
  multiSelect: false,
  ...(key === undefined ? {} : { key }),
});

/** The questions asked as `texts`, in that order, whatever order the object stored them in. */
function byText(questions: readonly HumanQuestion[], ...texts: string[]): HumanQuestion[] {
  return texts.map((text) => {
    const question = questions.find((q) => q.question === text);
    assert.ok(question, `no question "${text}"`);
    return question;
  });
}

/**
 * The namespace of the running Worker, counting the requests sent to its objects; `drop` says
 * which requests to fail as a dropped connection would.
 */
async function countedNamespace(worker: RunningWorker, drop = (_op: string) => false) {
  const namespace = await worker.durableObjects("OUTPOST_QUESTIONS");
  const inFlight = new Set<{ stub: unknown }>();
  const counted = {
    requests: [] as string[],
    /** The requests the object has answered, in the order their responses came. */
    answered: [] as string[],
    idFromName: (name: string) => namespace.idFromName(name),
    get: (id: { toString(): string }) => {
      const stub = namespace.get(id);
      return {
        fetch: (input: string, init?: RequestInit) => {
          const op = new URL(input).pathname.slice(1);
          counted.requests.push(op);
          if (drop(op)) return Promise.reject(new TypeError("Network connection lost."));
          // Held until the answer comes: Miniflare frees, in workerd, a stub it sees collected
          // here, and on a busy machine that free can overtake the request still on its way.
          const hold = { stub };
          inFlight.add(hold);
          return stub.fetch(input, init).then((response) => {
            counted.answered.push(op);
            return response;
          }).finally(() => inFlight.delete(hold));
        },
      };
    },
  };
  return counted satisfies DurableObjectNamespaceLike;
}

Deno.test("a waiting ask costs one request per wait slice, and the answer ends it at once", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker();
  const namespace = await countedNamespace(worker);
  const channel = new DurableObjectQuestionChannel(namespace, "slices", { waitSliceMs: 100 });
  const asking = channel.ask(ask("Slices?"));
  await waitFor(() => namespace.requests.filter((op) => op === "wait").length >= 5, "5 slices");
  const [question] = await channel.pending;
  assert.equal(await channel.answer(question.id, "done"), true);
  assert.deepEqual(await asking, { status: "answered", answer: "done" });
  const waits = namespace.requests.filter((op) => op === "wait").length;
  // One open, then a wait per slice: nothing polls in between.
  assert.equal(namespace.requests.filter((op) => op === "open").length, 1);
  assert.deepEqual(
    new Set(namespace.requests),
    new Set(["open", "wait", "pending", "resolve"]),
  );
  assert.ok(waits >= 5);
});

Deno.test(
  "aborting withdraws the question, unless another ask holds it",
  { timeout: 120_000 },
  async () => {
    await using worker = await startWorker();
    const namespace = await countedNamespace(worker);
    const channel = new DurableObjectQuestionChannel(namespace, "withdraw");
    const first = new AbortController();
    const second = new AbortController();
    const a = channel.ask(ask("Shared?", "key-1"), { signal: first.signal });
    const b = channel.ask(ask("Shared?", "key-1"), { signal: second.signal });
    // Both asks hold the question only once the object has answered both opens.
    await waitFor(() => namespace.answered.filter((op) => op === "open").length === 2, "opens");
    assert.equal((await channel.pending).length, 1);
    first.abort(new Error("first gave up"));
    await assert.rejects(a, /first gave up/);
    const [question] = await channel.pending;
    assert.equal(question.question, "Shared?", "still pending: the second ask holds it");
    second.abort(new DOMException("late", "TimeoutError"));
    await assert.rejects(b, /late/);
    assert.deepEqual(await channel.pending, []);
    const record = await channel.get(question.id);
    assert.equal(record?.status, "cancelled");
    assert.equal(
      record?.status === "cancelled" && record.reason,
      "withdrawn: the asking call timed out",
    );
    // A withdrawn question is asked afresh under its key.
    const again = channel.ask(ask("Shared?", "key-1"));
    await waitFor(async () => (await channel.pending).length === 1, "the new question");
    const [fresh] = await channel.pending;
    assert.notEqual(fresh.id, question.id);
    await channel.cancel(fresh.id, "done");
    assert.deepEqual(await again, { status: "cancelled", reason: "done" });
  },
);

Deno.test({
  name: "close() leaves the questions pending: to the object, the askers just went away",
  timeout: 120_000,
  async fn() {
    await using worker = await startWorker();
    const namespace = await countedNamespace(worker);
    // Leases far longer than the test: nothing here may lapse, however slow the machine.
    const options = { waitSliceMs: 50, leaseGraceMs: 120_000 };
    const vanishing = new DurableObjectQuestionChannel(namespace, "closing", options);
    const unkeyed = vanishing.ask(ask("Orphan?"));
    const keyed = vanishing.ask(ask("Retried later?", "call-7"));
    const observer = new DurableObjectQuestionChannel(namespace, "closing", options);
    await waitFor(async () => (await observer.pending).length === 2, "two questions");
    const [orphan, kept] = byText(await observer.pending, "Orphan?", "Retried later?");
    vanishing.close("gone");
    assert.deepEqual(await unkeyed, { status: "closed", reason: "gone" });
    assert.deepEqual(await keyed, { status: "closed", reason: "gone" });
    assert.deepEqual(
      new Set((await observer.pending).map((q) => q.id)),
      new Set([orphan.id, kept.id]),
    );
    // A retry of the same call re-attaches to the keyed one.
    const retried = observer.ask(ask("Retried later?", "call-7"));
    await waitFor(() => namespace.requests.filter((op) => op === "open").length === 3, "retry");
    await observer.answer(kept.id, "here");
    assert.deepEqual(await retried, { status: "answered", answer: "here" });
    await observer.cancel(orphan.id, "done");
  },
});

Deno.test({
  name: "an unkeyed question whose asker vanished is withdrawn when its lease lapses",
  timeout: 120_000,
  async fn() {
    await using worker = await startWorker();
    // The asker stores its questions, then never reaches the object again: its waits fail, so
    // it renews no lease, and gives up with the questions left pending.
    const cut = await countedNamespace(worker, (op) => op === "wait");
    const vanishing = new DurableObjectQuestionChannel(cut, "leases", {
      waitSliceMs: 50,
      leaseGraceMs: 50,
    });
    const unreachable = (error: Error) =>
      error instanceof ToolError && /the question stays pending/.test(error.message);
    const unkeyed = assert.rejects(vanishing.ask(ask("Orphan?")), unreachable);
    const keyed = assert.rejects(vanishing.ask(ask("Retried later?", "call-7")), unreachable);
    const observer = new DurableObjectQuestionChannel(await countedNamespace(worker), "leases");
    // The lapse may come before the observer first looks: it looks for the outcome only.
    await waitFor(async () => (await observer.resolved(10)).length === 1, "the lapse");
    const [record] = await observer.resolved(10);
    assert.equal(record.question.question, "Orphan?");
    assert.equal(
      record.status === "cancelled" && record.reason,
      "withdrawn: the asking call went away",
    );
    await Promise.all([unkeyed, keyed]);
    // The keyed one stays pending, and a retry of the same call re-attaches to it.
    const left = await observer.pending;
    assert.deepEqual(left.map((q) => q.question), ["Retried later?"]);
    const [kept] = left;
    const retried = observer.ask(ask("Retried later?", "call-7"));
    await observer.answer(kept.id, "here");
    assert.deepEqual(await retried, { status: "answered", answer: "here" });
  },
});

Deno.test("answers and reasons over MAX_ANSWER_LENGTH are refused before any request", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker();
  const namespace = await countedNamespace(worker);
  const channel: QuestionChannel = new DurableObjectQuestionChannel(namespace, "limits");
  assert.throws(() => channel.answer("x", "a".repeat(20_001)), RangeError);
  assert.throws(() => channel.cancel("x", "a".repeat(20_001)), RangeError);
  assert.equal(await channel.get("x".repeat(2000)), undefined);
  assert.equal(await channel.answer("x".repeat(2000), "no"), false);
  assert.deepEqual(namespace.requests, []);
  assert.throws(() => new DurableObjectQuestionChannel({} as never, "x"), /namespace binding/);
  assert.throws(
    () => new DurableObjectQuestionChannel(namespace, "x", { limits: { maxPending: 0 } }),
    /limits.maxPending must be a positive whole number/,
  );
  assert.throws(
    () => new DurableObjectQuestionChannel(namespace, "x", { reattachMs: -1 }),
    /reattachMs must be/,
  );
  assert.throws(
    () => new DurableObjectQuestionChannel(namespace, "x", { waitSliceMs: 0 }),
    /waitSliceMs must be a positive/,
  );
});

Deno.test(
  "an idle console stream costs no requests to the object",
  { timeout: 120_000 },
  async () => {
    await using worker = await startWorker();
    const namespace = await countedNamespace(worker);
    const channel = new DurableObjectQuestionChannel(namespace, "console");
    const operatorToken = "operator-token-0123456789abcdef";
    // A poll interval of 5 ms would send dozens of requests while the stream idles below.
    const app = createApp({
      tools: [],
      channel,
      auth: { toolToken: "tool-token-0123456789abcdef", operatorToken },
      pollIntervalMs: 5,
    });
    const asking = channel.ask(ask("Seen?"));
    await waitFor(async () => (await channel.pending).length === 1, "the question");
    const response = await app.fetch(
      new Request("http://localhost/questions/events", {
        headers: { authorization: `Bearer ${operatorToken}` },
      }),
    );
    const stream = sseEvents(response);
    assert.equal((await stream.next()).data.question, "Seen?");
    const before = namespace.requests.filter((op) => op !== "wait").length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      namespace.requests.filter((op) => op !== "wait").length,
      before,
      "none while idle",
    );
    const [question] = await channel.pending;
    await channel.answer(question.id, "yes");
    assert.equal((await stream.next()).event, "answered");
    await asking;
    await stream.close();
    app.close();
  },
);

Deno.test(
  "a wait cut off is waited again; an object that stays unreachable leaves the question pending",
  { timeout: 120_000 },
  async () => {
    await using worker = await startWorker();
    let dropped = 0;
    const flaky = await countedNamespace(worker, (op) => op === "wait" && dropped++ < 2);
    const channel = new DurableObjectQuestionChannel(flaky, "drops", { waitSliceMs: 100 });
    const asking = channel.ask(ask("Through the drops?", "call-1"));
    await waitFor(() => dropped >= 2 && flaky.requests.at(-1) === "wait", "two drops");
    const [question] = await channel.pending;
    await channel.answer(question.id, "made it");
    assert.deepEqual(await asking, { status: "answered", answer: "made it" });

    const down = await countedNamespace(worker, (op) => op === "wait");
    const cut = new DurableObjectQuestionChannel(down, "drops", { waitSliceMs: 100 });
    await assert.rejects(
      cut.ask(ask("Still there?", "call-2")),
      (error: Error) =>
        error instanceof ToolError && /could not be reached; the question stays pending/.test(
          error.message,
        ),
    );
    const [pendingOne] = await channel.pending;
    assert.equal(pendingOne.question, "Still there?");
    // The same call retried once the object is reachable again re-attaches to that question.
    const retried = channel.ask(ask("Still there?", "call-2"));
    await waitFor(() => flaky.requests.filter((op) => op === "open").length === 2, "re-attached");
    await channel.answer(pendingOne.id, "yes");
    assert.deepEqual(await retried, { status: "answered", answer: "yes" });
    assert.deepEqual(await channel.pending, []);
  },
);

Deno.test({
  name: "resolved questions expire after retainMs, by the object's alarm",
  timeout: 120_000,
  async fn() {
    await using worker = await startWorker();
    const namespace = await countedNamespace(worker);
    // One object, two retentions: an hour, which cannot pass during the test, and 1 ms, which
    // has passed by the time anything looks.
    const keeping = new DurableObjectQuestionChannel(namespace, "retain", { retainMs: 3_600_000 });
    const brief = new DurableObjectQuestionChannel(namespace, "retain", { retainMs: 1 });
    const kept = keeping.ask(ask("Long-lived?", "call-k"));
    const short = brief.ask(ask("Short-lived?", "call-r"));
    await waitFor(async () => (await keeping.pending).length === 2, "the questions");
    const [long, passing] = byText(await keeping.pending, "Long-lived?", "Short-lived?");
    // The brief asker leaves first, so that no wait of its own can find its question expired.
    brief.close("left");
    assert.deepEqual(await short, { status: "closed", reason: "left" });
    assert.equal(await keeping.answer(long.id, "for an hour"), true);
    assert.equal(await keeping.answer(passing.id, "briefly"), true);
    assert.deepEqual(await kept, { status: "answered", answer: "for an hour" });
    await waitFor(async () => (await keeping.get(passing.id)) === undefined, "the expiry");
    // The alarm that expired one left the other, whose retention has not passed.
    assert.equal((await keeping.get(long.id))?.status, "answered");
    // The expired one's key is free again: the same call asks afresh.
    const again = keeping.ask(ask("Short-lived?", "call-r"));
    await waitFor(async () => (await keeping.pending).length === 1, "the new question");
    const [fresh] = await keeping.pending;
    assert.notEqual(fresh.id, passing.id);
    await keeping.cancel(fresh.id);
    assert.deepEqual(await again, { status: "cancelled", reason: "cancelled" });
  },
});

Deno.test(
  "the object answers 400 to what is not one of its operations",
  { timeout: 120_000 },
  async () => {
    await using worker = await startWorker();
    const namespace = await worker.durableObjects("OUTPOST_QUESTIONS");
    const stub = namespace.get(namespace.idFromName("malformed"));
    for (const body of ["not json", JSON.stringify({ op: "teleport" }), "null"]) {
      const response = await stub.fetch("https://question-channel/x", { method: "POST", body });
      assert.equal(response.status, 400);
      await response.body?.cancel();
    }
  },
);

Deno.test("resolved() lists the history newest first, one request a call, across a restart", {
  timeout: 120_000,
}, async () => {
  const persistDir = await Deno.makeTempDir({ prefix: "outpost_do_history_" });
  try {
    await using worker = await startWorker({ persistDir });
    const namespace = await countedNamespace(worker);
    const channel = new DurableObjectQuestionChannel(namespace, "history");
    assert.deepEqual(await channel.resolved(10), []);
    const asks = ["a?", "b?", "c?"].map((q, i) => channel.ask(ask(q, `call-${i}`)));
    await waitFor(async () => (await channel.pending).length === 3, "three questions");
    const byText = new Map((await channel.pending).map((q) => [q.question, q]));
    const [a, b, c] = ["a?", "b?", "c?"].map((text) => byText.get(text)!);
    assert.equal(await channel.answer(a.id, "ay"), true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await channel.cancel(b.id, "not today"), true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const aborter = new AbortController();
    const withdrawn = channel.ask(ask("d?"), { signal: aborter.signal });
    await waitFor(async () => (await channel.pending).length === 2, "the fourth question");
    aborter.abort();
    await assert.rejects(withdrawn);

    namespace.requests.length = 0;
    const list = await channel.resolved(10);
    assert.deepEqual(namespace.requests, ["resolved"]);
    assert.deepEqual(list.map((r) => r.question.question), ["d?", "b?", "a?"]);
    assert.deepEqual(list.map((r) => r.status), ["cancelled", "cancelled", "answered"]);
    assert.match(list[0].status === "cancelled" ? list[0].reason : "", /^withdrawn: /);
    assert.equal(list[2].status === "answered" && list[2].answer, "ay");
    assert.deepEqual((await channel.resolved(1)).map((r) => r.question.id), [list[0].question.id]);
    assert.equal((await channel.resolved(1000)).length, 3);
    await assert.rejects(() => channel.resolved(-1), RangeError);

    // The history is the object's, kept in its storage: a restart keeps it.
    // Every ask ends before its worker goes away: none is left waiting on a disposed stub.
    assert.deepEqual(await asks[0], { status: "answered", answer: "ay" });
    assert.deepEqual(await asks[1], { status: "cancelled", reason: "not today" });
    channel.close("restart");
    assert.deepEqual(await asks[2], { status: "closed", reason: "restart" });
    await worker.restart();
    const after = new DurableObjectQuestionChannel(await countedNamespace(worker), "history");
    assert.deepEqual(await after.resolved(10), list);
    assert.equal(await after.answer(c.id, "see"), true);
    assert.equal((await after.resolved(1))[0].question.id, c.id);
  } finally {
    await Deno.remove(persistDir, { recursive: true });
  }
});

Deno.test({
  name: "a keyed question nobody waits on any more is withdrawn once expireMs has passed",
  timeout: 120_000,
  async fn() {
    await using worker = await startWorker();
    // The asker stores its question, then never reaches the object again: it renews no lease,
    // and gives up with the question left pending, however slow the machine.
    const cut = await countedNamespace(worker, (op) => op === "wait");
    // A lease that lapses only after 2 s without a renewal: the observer's ask below holds its
    // question however slowly a loaded machine runs its 50 ms slices.
    const options = { waitSliceMs: 50, leaseGraceMs: 2_000, expireMs: 500 };
    const asker = new DurableObjectQuestionChannel(cut, "expiry", options);
    await assert.rejects(
      asker.ask(ask("Still wanted?", "call-9")),
      (error: Error) =>
        error instanceof ToolError && /the question stays pending/.test(error.message),
    );
    const observer = new DurableObjectQuestionChannel(
      await countedNamespace(worker),
      "expiry",
      options,
    );
    // The expiry may come before the observer first looks: it looks for the outcome only.
    await waitFor(async () => (await observer.resolved(10)).length === 1, "expiry");
    const [record] = await observer.resolved(10);
    const question = record.question;
    assert.equal(question.question, "Still wanted?");
    assert.equal(
      record.status === "cancelled" && record.withdrawn === true && record.reason,
      "withdrawn: no call waited for the answer any more",
    );
    // The same call now asks afresh.
    const again = observer.ask(ask("Still wanted?", "call-9"));
    await waitFor(async () => (await observer.pending).length === 1, "asked afresh");
    const [fresh] = await observer.pending;
    assert.notEqual(fresh.id, question.id);
    await observer.answer(fresh.id, "yes");
    assert.deepEqual(await again, { status: "answered", answer: "yes" });
  },
});

// The contract suite, on one workerd for all its cases: each case has an object of its own.
let shared: Promise<RunningWorker> | undefined;
questionChannelContract({
  name: "DurableObjectQuestionChannel",
  peer: true,
  // The object reads workerd's clock: the cases that move the time cannot run here.
  readsClock: false,
  create: async ({ reattachMs, limits }) => {
    const namespace = await countedNamespace(await (shared ??= startWorker()));
    const name = crypto.randomUUID();
    const channel = new DurableObjectQuestionChannel(namespace, name, { reattachMs, limits });
    const peer = new DurableObjectQuestionChannel(namespace, name, { reattachMs, limits });
    return {
      channel,
      peer,
      close: () => {
        channel.close();
        peer.close();
      },
    };
  },
  // The worker outlives each case, and so do the wait slices a closed channel left in it.
  test: (definition) => Deno.test({ ...definition, sanitizeOps: false, sanitizeResources: false }),
});

Deno.test({
  name: "DurableObjectQuestionChannel: the contract suite's workerd stops",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await (await shared)?.close();
  },
});
