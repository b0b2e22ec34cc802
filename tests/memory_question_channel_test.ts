import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import { MemoryQuestionChannel, type QuestionRequest } from "../src/human/mod.ts";
import { questionChannelContract } from "../src/testing/question_channel_contract.ts";

function request(question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return { question, options: [], multiSelect: false, ...extra };
}

/** Lets every pending promise callback and timer of this turn run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

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

Deno.test("bad options are refused at construction", () => {
  assert.throws(() => new MemoryQuestionChannel({ reattachMs: -1 }), SetupError);
  assert.throws(() => new MemoryQuestionChannel({ limits: { maxPending: 0 } }), SetupError);
  assert.throws(
    () => new MemoryQuestionChannel({ limits: { maxPendingPerSession: 1.5 } }),
    SetupError,
  );
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

questionChannelContract({
  name: "MemoryQuestionChannel",
  create: ({ clock, reattachMs, limits }) => {
    const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
    return { channel, close: () => channel.close() };
  },
  test: Deno.test,
});
