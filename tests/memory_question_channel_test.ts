import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import {
  MAX_ANSWER_LENGTH,
  MemoryQuestionChannel,
  type QuestionRequest,
} from "../src/human/mod.ts";
import { checkOutcomesAsData } from "./support/outcomes.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { checkCaps } from "./support/questions.ts";
import { questionChannelContract } from "../src/testing/question_channel_contract.ts";

function request(question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return { question, options: [], multiSelect: false, ...extra };
}

/** Lets every pending promise callback and timer of this turn run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("questions() delivers the backlog first, in order, then new questions", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const first = channel.ask(request("one?"));
  const second = channel.ask(request("two?"));
  const feed = channel.questions();
  assert.equal((await feed.next()).value?.question, "one?");
  assert.equal((await feed.next()).value?.question, "two?");
  const waiting = feed.next();
  const third = channel.ask(request("three?"));
  const delivered = (await waiting).value!;
  assert.equal(delivered.question, "three?");
  for (const q of channel.pending) channel.answer(q.id, `re: ${q.question}`);
  assert.deepEqual(await Promise.all([first, second, third]), [
    { status: "answered", answer: "re: one?" },
    { status: "answered", answer: "re: two?" },
    { status: "answered", answer: "re: three?" },
  ]);
  channel.close();
  assert.deepEqual(await feed.next(), { value: undefined, done: true });
});

Deno.test("questions() skips questions resolved while queued", { timeout: 60_000 }, async () => {
  const channel = new MemoryQuestionChannel();
  const outcomes = ["a?", "b?", "c?", "d?"].map((q) => channel.ask(request(q)));
  const [a, b, c] = channel.pending;
  const feed = channel.questions();
  assert.equal((await feed.next()).value?.id, a.id);
  assert.equal(channel.cancel(b.id, "no longer needed"), true);
  assert.equal(channel.answer(c.id, "done"), true);
  assert.equal((await feed.next()).value?.question, "d?");
  channel.close("shutting down");
  assert.equal((await feed.next()).done, true);
  assert.deepEqual(await Promise.all(outcomes), [
    { status: "closed", reason: "shutting down" },
    { status: "cancelled", reason: "no longer needed" },
    { status: "answered", answer: "done" },
    { status: "closed", reason: "shutting down" },
  ]);
});

Deno.test("each questions() iterator sees every question; return() ends a waiting next()", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const left = channel.questions();
  const right = channel.questions();
  const asked = channel.ask(request("shared?"));
  assert.equal((await left.next()).value?.question, "shared?");
  assert.equal((await right.next()).value?.question, "shared?");
  const waiting = left.next();
  assert.deepEqual(await left.return!(), { value: undefined, done: true });
  assert.equal((await waiting).done, true);
  channel.close();
  assert.equal((await right.next()).done, true);
  assert.equal((await asked).status, "closed");
});

Deno.test("questions() on a closed channel ends at once, and close ends a waiting iterator", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const feed = channel.questions();
  const waiting = feed.next();
  channel.close();
  assert.equal((await waiting).done, true);
  const late: unknown[] = [];
  for await (const q of channel.questions()) late.push(q);
  assert.deepEqual(late, []);
});

Deno.test("close cancels waiting questions, refuses later asks, and is idempotent", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const outcome = channel.ask(request("still there?"));
  const [question] = channel.pending;
  channel.close("operator left");
  channel.close("ignored");
  assert.deepEqual(await outcome, { status: "closed", reason: "operator left" });
  assert.deepEqual(channel.pending, []);
  const record = channel.get(question.id);
  assert.equal(record?.status, "cancelled");
  // A withdrawal, not an operator's cancel: a cancel with its reason is no retry of it.
  assert.equal(record.status === "cancelled" && record.reason, "withdrawn: operator left");
  assert.equal(record.status === "cancelled" && record.withdrawn, true);
  assert.equal(channel.cancel(question.id, "withdrawn: operator left"), false);
  assert.equal(channel.answer(question.id, "yes"), false);
  assert.equal(channel.cancel(question.id), false);
  assert.deepEqual(await channel.ask(request("another?")), {
    status: "closed",
    reason: "operator left",
  });
  assert.deepEqual(channel.pending, []);
});

Deno.test("answer and cancel resolve once and return false after, never throwing", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const outcome = channel.ask(request("Which region?", { sessionId: "s", runId: "r" }));
  const [question] = channel.pending;
  assert.equal(question.sessionId, "s");
  assert.equal(question.runId, "r");
  assert.equal(question.toolCallId, undefined);
  assert.ok(!Number.isNaN(Date.parse(question.askedAt)));
  assert.deepEqual(channel.get(question.id), { status: "pending", question });
  assert.equal(channel.answer(question.id, "eu-west"), true);
  assert.equal(channel.answer(question.id, "us-east"), false);
  assert.equal(channel.cancel(question.id), false);
  assert.equal(channel.answer("no-such-id", "x"), false);
  assert.equal(channel.cancel("no-such-id"), false);
  assert.equal(channel.get("no-such-id"), undefined);
  assert.deepEqual(await outcome, { status: "answered", answer: "eu-west" });
  const record = channel.get(question.id);
  assert.equal(record?.status, "answered");
  assert.equal(record.status === "answered" && record.answer, "eu-west");

  const cancelled = channel.ask(request("Proceed?"));
  assert.equal(channel.cancel(channel.pending[0].id), true);
  assert.deepEqual(await cancelled, { status: "cancelled", reason: "cancelled" });
  channel.close();
});

Deno.test("an aborted ask withdraws its question at once and rejects with the reason", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const controller = new AbortController();
  const outcome = channel.ask(request("Wait for me?"), { signal: controller.signal });
  const [question] = channel.pending;
  const reason = new Error("run stopped");
  controller.abort(reason);
  assert.deepEqual(channel.pending, []);
  await assert.rejects(outcome, (error) => error === reason);
  const record = channel.get(question.id);
  assert.equal(
    record?.status === "cancelled" && record.reason,
    "withdrawn: the asking call was aborted",
  );
  assert.equal(channel.answer(question.id, "too late"), false);

  await assert.rejects(
    channel.ask(request("Never asked?"), { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
  assert.deepEqual(channel.pending, []);
  channel.close();
});

Deno.test("asks with the same key share one question, which outlives one aborted waiter", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const controller = new AbortController();
  const first = channel.ask(request("Ship it?", { key: "call_1" }), {
    signal: controller.signal,
  });
  const second = channel.ask(request("Ship it?", { key: "call_1" }));
  assert.equal(channel.pending.length, 1);
  controller.abort();
  await assert.rejects(first);
  assert.equal(channel.pending.length, 1);
  assert.equal(channel.answer(channel.pending[0].id, "ship"), true);
  assert.deepEqual(await second, { status: "answered", answer: "ship" });
  assert.deepEqual(await channel.ask(request("Ship it?", { key: "call_1" })), {
    status: "answered",
    answer: "ship",
  });
  assert.deepEqual(channel.pending, []);
  channel.close();
});

Deno.test("resolved questions are remembered up to `remember`, oldest forgotten first", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel({ remember: 1 });
  const ids: string[] = [];
  for (const q of ["a?", "b?"]) {
    const outcome = channel.ask(request(q, { key: q }));
    ids.push(channel.pending[0].id);
    channel.answer(channel.pending[0].id, q);
    await outcome;
  }
  assert.equal(channel.get(ids[0]), undefined);
  assert.equal(channel.get(ids[1])?.status, "answered");
  const reasked = channel.ask(request("a?", { key: "a?" }));
  assert.equal(channel.pending.length, 1, "a forgotten key asks afresh");
  channel.close();
  assert.equal((await reasked).status, "closed");
  assert.throws(() => new MemoryQuestionChannel({ remember: -1 }), SetupError);
});

Deno.test("many channels with their own operators never mix up answers", {
  timeout: 60_000,
}, async () => {
  const channels = Array.from({ length: 40 }, () => new MemoryQuestionChannel());
  const operators = channels.map(async (channel, index) => {
    let answered = 0;
    for await (const q of channel.questions()) {
      await settle();
      channel.answer(q.id, `${index}:${q.question}`);
      answered++;
    }
    return answered;
  });
  const outcomes = await Promise.all(
    channels.flatMap((channel) => [1, 2, 3].map((n) => channel.ask(request(`q${n}`)))),
  );
  assert.deepEqual(
    outcomes,
    channels.flatMap((_, index) =>
      [1, 2, 3].map((n) => ({ status: "answered", answer: `${index}:q${n}` }))
    ),
  );
  for (const channel of channels) channel.close();
  assert.deepEqual(await Promise.all(operators), channels.map(() => 3));
});

Deno.test("a key re-attaches only to the same question, and never to a withdrawn one", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel({ remember: 1 });
  const options = [{ label: "Yes", description: "" }, { label: "No", description: "" }];
  const asked = request("Ship it?", { key: "k", options });
  const first = channel.ask(asked);
  const [question] = channel.pending;
  assert.equal(channel.answer(question.id, "Yes"), true);
  assert.deepEqual(await first, { status: "answered", answer: "Yes" });
  assert.deepEqual(await channel.ask(asked), { status: "answered", answer: "Yes" });

  const different: QuestionRequest[] = [
    request("Ship it now?", { key: "k", options }),
    { ...asked, options: [options[1], options[0]] },
    { ...asked, options: [options[0], { label: "No", description: "Wait" }] },
    { ...asked, multiSelect: true },
  ];
  for (const changed of different) {
    const outcome = channel.ask(changed);
    assert.equal(channel.pending.length, 1, `asked afresh: ${JSON.stringify(changed)}`);
    const [fresh] = channel.pending;
    assert.notEqual(fresh.id, question.id);
    assert.equal(channel.answer(fresh.id, "No"), true);
    assert.deepEqual(await outcome, { status: "answered", answer: "No" });
    assert.deepEqual(await channel.ask(changed), { status: "answered", answer: "No" });
  }

  const controller = new AbortController();
  const withdrawn = channel.ask(request("Wait?", { key: "w" }), { signal: controller.signal });
  controller.abort(new Error("timed out"));
  await assert.rejects(withdrawn, /timed out/);
  const again = channel.ask(request("Wait?", { key: "w" }));
  assert.equal(channel.pending.length, 1, "a withdrawn question is asked again");
  const [reasked] = channel.pending;
  // Forgetting the withdrawn question (remember: 1) must not forget where the key points now.
  assert.equal(channel.answer(reasked.id, "ok"), true);
  assert.deepEqual(await again, { status: "answered", answer: "ok" });
  assert.deepEqual(await channel.ask(request("Wait?", { key: "w" })), {
    status: "answered",
    answer: "ok",
  });
  channel.close();
});

Deno.test("an answer given before the asking call aborts is the outcome", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const controller = new AbortController();
  const outcome = channel.ask(request("Proceed?"), { signal: controller.signal });
  assert.equal(channel.answer(channel.pending[0].id, "go"), true);
  controller.abort(new DOMException("late", "TimeoutError"));
  assert.deepEqual(await outcome, { status: "answered", answer: "go" });
  channel.close();
});

Deno.test("an answer or reason over MAX_ANSWER_LENGTH is refused and changes nothing", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const outcome = channel.ask(request("Paste the log?"));
  const [question] = channel.pending;
  const tooLong = "x".repeat(MAX_ANSWER_LENGTH + 1);
  for (
    const act of [
      () => channel.answer(question.id, tooLong),
      () => channel.cancel(question.id, tooLong),
    ]
  ) {
    assert.throws(act, (error) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /20001 characters long; .* at most 20000 \(MAX_ANSWER_LENGTH\)/);
      return true;
    });
  }
  assert.throws(() => channel.answer("no-such-id", tooLong), RangeError);
  assert.deepEqual(channel.pending, [question]);
  const longest = "€".repeat(MAX_ANSWER_LENGTH);
  assert.equal(channel.answer(question.id, longest), true);
  assert.deepEqual(await outcome, { status: "answered", answer: longest });
  channel.close();
});

Deno.test("a key re-used for a pending question, other multiSelect or description, asks afresh", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const options = [{ label: "Yes", description: "Now" }, { label: "No", description: "" }];
  const first = channel.ask(request("Ship it?", { key: "k", options }));
  const flipped = channel.ask(request("Ship it?", { key: "k", options, multiSelect: true }));
  const redescribed = channel.ask(
    request("Ship it?", {
      key: "k",
      multiSelect: true,
      options: [options[0], { label: "No", description: "Wait" }],
    }),
  );
  const ids = channel.pending.map((q) => q.id);
  assert.equal(new Set(ids).size, 3);
  for (const [index, id] of ids.entries()) assert.equal(channel.answer(id, `a${index}`), true);
  assert.deepEqual(await Promise.all([first, flipped, redescribed]), [
    { status: "answered", answer: "a0" },
    { status: "answered", answer: "a1" },
    { status: "answered", answer: "a2" },
  ]);
  channel.close();
});

Deno.test("a resolved question re-attaches by key only within reattachMs", {
  timeout: 60_000,
}, async () => {
  const answered = async (channel: MemoryQuestionChannel) => {
    const first = channel.ask(request("Ship it?", { key: "k" }));
    const [question] = channel.pending;
    channel.answer(question.id, "yes");
    assert.deepEqual(await first, { status: "answered", answer: "yes" });
    return question;
  };
  // A window of an hour, which cannot pass during the test: the retry gets the answer without
  // asking anyone.
  const within = new MemoryQuestionChannel({ reattachMs: 3_600_000 });
  await answered(within);
  assert.deepEqual(await within.ask(request("Ship it?", { key: "k" })), {
    status: "answered",
    answer: "yes",
  });
  assert.equal(within.pending.length, 0);
  within.close();
  // A window of 0 ms, which has passed once the clock ticks: the same ask under the same key is
  // a new question.
  const past = new MemoryQuestionChannel({ reattachMs: 0 });
  const question = await answered(past);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const later = past.ask(request("Ship it?", { key: "k" }));
  const [again] = past.pending;
  assert.notEqual(again.id, question.id);
  past.answer(again.id, "not now");
  assert.deepEqual(await later, { status: "answered", answer: "not now" });
  past.close();
  assert.throws(() => new MemoryQuestionChannel({ reattachMs: -1 }), SetupError);
});

Deno.test("an approval and a question under one key are different questions", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const plain = channel.ask(request("Ship it?", { key: "k" }));
  const approval = channel.ask(request("Ship it?", { key: "k", kind: "approval" }));
  const [first, second] = channel.pending;
  assert.equal(first.kind, undefined);
  assert.equal(second.kind, "approval");
  channel.answer(first.id, "a");
  channel.answer(second.id, "b");
  // The approval's text answer is read once, as a denial with that text as its reason.
  assert.deepEqual(await Promise.all([plain, approval]), [
    { status: "answered", answer: "a" },
    { status: "answered", answer: "Deny", decision: "deny", reason: "b" },
  ]);
  channel.close();
});

Deno.test("resolved() lists answered, cancelled and withdrawn questions, newest first, bounded", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel({ remember: 3 });
  assert.deepEqual(channel.resolved(10), []);
  const asks = ["a?", "b?", "c?", "d?"].map((q) => channel.ask(request(q)));
  const [a, b, c, d] = channel.pending;
  channel.answer(b.id, "bee");
  channel.cancel(a.id, "not now");
  const aborter = new AbortController();
  const withdrawn = channel.ask(request("e?"), { signal: aborter.signal });
  aborter.abort();
  await assert.rejects(withdrawn);
  channel.answer(d.id, "dee");
  const list = channel.resolved(10);
  // `remember: 3` keeps the last three; b, the first resolved, is forgotten.
  assert.deepEqual(list.map((r) => r.question.question), ["d?", "e?", "a?"]);
  assert.deepEqual(list.map((r) => r.status), ["answered", "cancelled", "cancelled"]);
  assert.match(list[1].status === "cancelled" ? list[1].reason : "", /^withdrawn: /);
  assert.deepEqual(channel.resolved(1).map((r) => r.question.id), [d.id]);
  assert.ok(list.every((r) => r.status !== "pending" && !Number.isNaN(Date.parse(r.resolvedAt))));
  // The pending question is not history.
  assert.ok(!list.some((r) => r.question.id === c.id));
  for (const bad of [0, -1, 1.5, NaN]) assert.throws(() => channel.resolved(bad), RangeError);
  channel.close();
  await Promise.all(asks);
});

Deno.test("resolved() lists at most 100, however large the limit", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel({ limits: { maxPendingPerSession: Infinity } });
  const asks = Array.from({ length: 120 }, (_, i) => channel.ask(request(`q${i}?`)));
  for (const q of channel.pending) channel.answer(q.id, "ok");
  await Promise.all(asks);
  const list = channel.resolved(1000);
  assert.equal(list.length, 100);
  assert.equal(list[0].question.question, "q119?");
  assert.equal(list[99].question.question, "q20?");
});

Deno.test({
  name: "outcomes carry their kind and decision as data; a repeated answer succeeds",
  timeout: 10_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  await checkOutcomesAsData(channel, channel);
  channel.close();
});

Deno.test("caps: a question beyond maxPending or maxPendingPerSession is refused", async () => {
  const channel = new MemoryQuestionChannel({ limits: { maxPending: 4, maxPendingPerSession: 2 } });
  await checkCaps(channel);
  assert.throws(() => new MemoryQuestionChannel({ limits: { maxPending: 0 } }), SetupError);
  assert.throws(
    () => new MemoryQuestionChannel({ limits: { maxPendingPerSession: 1.5 } }),
    SetupError,
  );
  channel.close();
});

Deno.test("changes() yields when watching, after each change, and ends on close", {
  timeout: 10_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const changes = channel.changes(new AbortController().signal)[Symbol.asyncIterator]();
  assert.equal((await changes.next()).done, false, "watching");
  const asking = channel.ask(request("Changed?"));
  assert.equal((await changes.next()).done, false, "asked");
  // Two changes while the consumer is busy are one yield.
  const [question] = channel.pending;
  channel.answer(question.id, "yes");
  channel.ask(request("Again?"));
  assert.equal((await changes.next()).done, false, "answered and asked again");
  const next = changes.next();
  channel.close();
  await next;
  assert.equal((await changes.next()).done, true, "closed");
  assert.deepEqual(await asking, { status: "answered", answer: "yes" });
});

Deno.test("askedAt, resolvedAt and the re-attach window follow the channel's clock", async () => {
  const clock = new FakeClock();
  const channel = new MemoryQuestionChannel({ clock, reattachMs: 1_000 });
  const asked = channel.ask(request("When?", { key: "k" }));
  const [question] = channel.pending;
  assert.equal(question.askedAt, new Date(clock.now()).toISOString());
  await clock.advance(5);
  channel.answer(question.id, "now");
  await asked;
  const record = channel.get(question.id);
  assert.equal(
    record?.status === "answered" && record.resolvedAt,
    new Date(clock.now()).toISOString(),
  );
  await clock.advance(1_000);
  assert.deepEqual(await channel.ask(request("When?", { key: "k" })), {
    status: "answered",
    answer: "now",
  });
  await clock.advance(1);
  channel.ask(request("When?", { key: "k" }));
  assert.notEqual(channel.pending[0]?.id, question.id, "asked afresh after the window");
  channel.close();
});

questionChannelContract({
  name: "MemoryQuestionChannel",
  create: ({ clock, reattachMs, limits }) => {
    const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
    return { channel, close: () => channel.close() };
  },
  test: Deno.test,
});
