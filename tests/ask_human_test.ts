import assert from "node:assert/strict";
import * as z from "zod";
import { askHuman, runToolCalls, SetupError, tool, type ToolContext, ToolError } from "../mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { serviceTools } from "../edge/service/service_app.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { nextQuestion } from "./support/questions.ts";

/** Lets every pending promise callback and timer of this turn run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("ask_human returns the operator's answer and passes the call's ids along", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const ask = askHuman(channel);
  assert.equal(ask.name, "ask_human");
  assert.equal(ask.parallel, false);
  const reply = ask.execute(
    { question: "  Which region?  ", options: null, multi_select: null },
    { sessionId: "s1", runId: "r1", toolCallId: "call_1" },
  );
  const question = await nextQuestion(channel);
  assert.deepEqual(
    { ...question, id: undefined, askedAt: undefined },
    {
      id: undefined,
      question: "Which region?",
      options: [],
      multiSelect: false,
      sessionId: "s1",
      runId: "r1",
      toolCallId: "call_1",
      askedAt: undefined,
    },
  );
  channel.answer(question.id, "eu-west-1");
  assert.equal(await reply, "eu-west-1");
  channel.close();
});

Deno.test("a multi-select question replies with the chosen labels, one per line", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const reply = askHuman(channel).execute({
    question: "Which checks should run?",
    options: [
      { label: "Unit tests", description: "Fast, recommended" },
      { label: "Lint" },
      { label: "E2E", description: null },
    ],
    multi_select: true,
  });
  const question = await nextQuestion(channel);
  assert.equal(question.multiSelect, true);
  assert.deepEqual(question.options, [
    { label: "Unit tests", description: "Fast, recommended" },
    { label: "Lint", description: "" },
    { label: "E2E", description: "" },
  ]);
  channel.answer(question.id, [question.options[0].label, question.options[2].label].join("\n"));
  assert.equal(await reply, "Unit tests\nE2E");
  channel.close();
});

Deno.test("multi_select is forced off for an open question", { timeout: 60_000 }, async () => {
  const channel = new MemoryQuestionChannel();
  const reply = askHuman(channel).execute({ question: "Anything else?", multi_select: true });
  const question = await nextQuestion(channel);
  assert.equal(question.multiSelect, false);
  channel.answer(question.id, "no");
  assert.equal(await reply, "no");
  channel.close();
});

Deno.test("bad options are refused in words the model can act on, and nothing is asked", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const ask = askHuman(channel);
  const cases: [unknown, string][] = [
    [{ question: "   " }, "`question` must have at least 1 character"],
    [{ question: "Pick", options: [{ label: "Only" }] }, "`options` must have at least 2 items"],
    [
      { question: "Pick", options: ["a", "b", "c", "d", "e"].map((label) => ({ label })) },
      "`options` must have at most 4 items",
    ],
    [
      { question: "Pick", options: [{ label: "Yes\nreally" }, { label: "No" }] },
      "`options[0].label`: must be a single line, without line breaks",
    ],
    [
      { question: "Pick", options: [{ label: "Yes" }, { label: "No", description: "a\r\nb" }] },
      "`options[1].description`: must be a single line, without line breaks",
    ],
    [
      { question: "Pick", options: [{ label: "Yes" }, { label: " yes " }] },
      '`options[1].label`: repeats the label "Yes"; labels must be unique',
    ],
    [
      { question: "Pick", options: [{ label: "" }, { label: "No" }] },
      "`options[0].label` must have at least 1 character",
    ],
    ...["\u0085", "\v", "\f", "\r", "\u2028"].map((lineBreak): [unknown, string] => [
      { question: "Pick", options: [{ label: `Yes${lineBreak}really` }, { label: "No" }] },
      "`options[0].label`: must be a single line, without line breaks",
    ]),
    [
      { question: "Pick", options: [{ label: "Yes" }, { label: "No", description: "a\u0085b" }] },
      "`options[1].description`: must be a single line, without line breaks",
    ],
    [
      { question: "Pick", options: [{ label: "Yes" }, { label: "\u200B\u2060 \u00AD" }] },
      "`options[1].label`: must contain a visible character",
    ],
    [
      { question: "Pick", options: [{ label: "Yes" }, { label: "Y\u200Bes" }] },
      '`options[1].label`: repeats the label "Yes"; labels must be unique',
    ],
    ...["Yеs", "ＹＥＳ", "Yés", "Ye\u0301s", "Υes", "𝐘𝐞𝐬", "ʏᴇꜱ"].map((
      lookAlike,
    ): [unknown, string] => [
      { question: "Pick", options: [{ label: "Yes" }, { label: lookAlike }] },
      '`options[1].label`: repeats the label "Yes"; labels must be unique',
    ]),
    [{ question: "\u200B\uFEFF" }, "`question`: must contain a visible character"],
    [{ question: "Pick", other: true }, "unknown argument `other`"],
  ];
  for (const [input, expected] of cases) {
    await assert.rejects(ask.execute(input), (error) => {
      assert.ok(error instanceof ToolError);
      assert.equal(error.message, `Invalid input for ask_human: ${expected}.`);
      return true;
    });
  }
  assert.deepEqual(channel.pending, []);
  channel.close();
});

Deno.test("cancellation and closure are ToolErrors the model can route around", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const ask = askHuman(channel, { name: "ask_operator" });
  const cancelled = ask.execute({ question: "Delete the branch?" });
  channel.cancel((await nextQuestion(channel)).id, "the operator is away");
  await assert.rejects(cancelled, (error) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.message, "The operator cancelled the question (the operator is away).");
    assert.match(error.hint!, /Do not ask the same question again/);
    return true;
  });

  const closed = ask.execute({ question: "Still there?" });
  await nextQuestion(channel);
  channel.close("session ended");
  for (const outcome of [closed, ask.execute({ question: "And now?" })]) {
    await assert.rejects(outcome, (error) => {
      assert.ok(error instanceof ToolError);
      assert.equal(
        error.message,
        "No operator can answer: the question channel is closed (session ended).",
      );
      assert.match(error.hint!, /Do not call ask_operator again/);
      return true;
    });
  }
});

Deno.test("a timed-out call withdraws its question and tells the model", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const ask = askHuman(channel, { timeoutMs: 20 });
  const feed = channel.questions();
  const reply = ask.execute({ question: "Quick, yes or no?" });
  const question = (await feed.next()).value!;
  await assert.rejects(reply, (error) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.message, "The operator did not answer within 20 ms.");
    assert.match(error.hint!, /withdrawn/);
    return true;
  });
  assert.deepEqual(channel.pending, []);
  const record = channel.get(question.id);
  assert.equal(
    record?.status === "cancelled" && record.reason,
    "withdrawn: the asking call timed out",
  );
  assert.equal(channel.answer(question.id, "yes"), false);
  channel.close();
  assert.equal((await feed.next()).done, true);
});

Deno.test("the service's ask_human gives up after 2 hours, or OUTPOST_ASK_TIMEOUT_MS", {
  timeout: 20_000,
}, async () => {
  for (
    const [env, ms, said] of [
      [{}, 2 * 60 * 60_000, "2 hours"],
      [{ OUTPOST_ASK_TIMEOUT_MS: "90000" }, 90_000, "1.5 minutes"],
    ] as const
  ) {
    const clock = new FakeClock();
    const channel = new MemoryQuestionChannel({ clock });
    const [ask] = serviceTools(readServiceSettings({ ...env, OUTPOST_TOOLS: "ask_human" }), {
      channel,
      clock,
    });
    // Settled into a value at once, so that the rejection is never unhandled while time moves.
    const reply = ask.execute({ question: "Still there?" }).then(() => undefined, (e) => e);
    const question = await nextQuestion(channel);
    await clock.advance(ms - 1);
    assert.equal(channel.get(question.id)?.status, "pending", said);
    await clock.advance(1);
    const error = await reply;
    assert.ok(error instanceof ToolError);
    assert.equal(error.message, `The operator did not answer within ${said}.`);
    const record = channel.get(question.id);
    assert.equal(
      record?.status === "cancelled" && record.reason,
      "withdrawn: the asking call timed out",
    );
    channel.close();
  }
});

Deno.test("an answer before the timeout wins, and the timer is cleared", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const reply = askHuman(channel, { timeoutMs: 60 * 60_000 }).execute({ question: "Go?" });
  channel.answer((await nextQuestion(channel)).id, "go");
  assert.equal(await reply, "go");
  channel.close();
});

Deno.test("aborting the call withdraws the question at once", { timeout: 60_000 }, async () => {
  const channel = new MemoryQuestionChannel();
  const controller = new AbortController();
  const reply = askHuman(channel, { timeoutMs: 60_000 }).execute({ question: "Hold on?" }, {
    signal: controller.signal,
  });
  const question = await nextQuestion(channel);
  const reason = new Error("user pressed stop");
  controller.abort(reason);
  assert.deepEqual(channel.pending, []);
  await assert.rejects(reply, (error) => error === reason);
  assert.equal(channel.get(question.id)?.status, "cancelled");
  channel.close();
});

Deno.test("through runToolCalls, ask_human waits for earlier calls and later calls wait for it", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const events: string[] = [];
  const gates = new Map<string, () => void>();
  const started = new Map<string, PromiseWithResolvers<void>>();
  for (const name of ["a", "b"]) started.set(name, Promise.withResolvers());
  const step = tool({
    name: "step",
    description: "Records when it runs.",
    input: z.object({ name: z.string() }),
    async execute({ name }) {
      events.push(`start ${name}`);
      started.get(name)!.resolve();
      await new Promise<void>((resolve) => gates.set(name, resolve));
      events.push(`end ${name}`);
      return name;
    },
  });
  const tools = [step, askHuman(channel)];
  const results = runToolCalls(tools, [
    { id: "1", name: "step", input: { name: "a" } },
    { id: "2", name: "ask_human", input: { question: "Continue?" } },
    { id: "3", name: "step", input: { name: "b" } },
  ], { sessionId: "s" });

  await started.get("a")!.promise;
  await settle();
  assert.deepEqual(channel.pending, [], "ask_human waits for the earlier call");
  const feed = channel.questions();
  const asked = feed.next();
  gates.get("a")!();
  const question = (await asked).value!;
  await feed.return!();
  assert.equal(question.toolCallId, "2");
  assert.equal(question.sessionId, "s");
  assert.deepEqual(events, ["start a", "end a"]);
  await settle();
  assert.deepEqual(events, ["start a", "end a"], "the later call waits for the answer");
  events.push("answered");
  channel.answer(question.id, "yes");
  await started.get("b")!.promise;
  gates.get("b")!();
  assert.deepEqual(await results, [
    { id: "1", name: "step", text: "a", isError: false },
    { id: "2", name: "ask_human", text: "yes", isError: false },
    { id: "3", name: "step", text: "b", isError: false },
  ]);
  assert.deepEqual(events, ["start a", "end a", "answered", "start b", "end b"]);
  channel.close();
});

Deno.test("two ask_human calls in one batch are asked one after the other", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const results = runToolCalls([askHuman(channel, { timeoutMs: 60_000 })], [
    { id: "1", name: "ask_human", input: { question: "First?" } },
    { id: "2", name: "ask_human", input: { question: "Second?" } },
  ]);
  const seen: string[] = [];
  for await (const question of channel.questions()) {
    await settle();
    assert.equal(channel.pending.length, 1, "at most one question is pending per run");
    seen.push(question.question);
    channel.answer(question.id, `re: ${question.question}`);
    if (seen.length === 2) break;
  }
  assert.deepEqual((await results).map((r) => r.text), ["re: First?", "re: Second?"]);
  channel.close();
});

Deno.test("a timeout through runToolCalls is an error result, not a crash", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const [result] = await runToolCalls([askHuman(channel, { timeoutMs: 1 })], [
    { id: "1", name: "ask_human", input: { question: "Anyone?" } },
  ]);
  assert.equal(result.isError, true);
  assert.match(result.text, /^Error: The operator did not answer within 1 ms\.\nHint: /);
  channel.close();
});

Deno.test("askHuman rejects a bad set-up at construction", () => {
  const channel = new MemoryQuestionChannel();
  for (const timeoutMs of [0, -5, Number.NaN, Infinity, 2 ** 31]) {
    assert.throws(() => askHuman(channel, { timeoutMs }), SetupError);
  }
  assert.throws(() => askHuman(channel, { name: "Ask Human" }), SetupError);
  assert.throws(() => askHuman({} as MemoryQuestionChannel), SetupError);
  channel.close();
});

Deno.test("a tool-call id re-used in another session or run, or another question, asks afresh", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const ask = askHuman(channel);
  const staging = { question: "Delete the staging DB?" };
  const first = ask.execute(staging, { sessionId: "A", toolCallId: "1" });
  channel.answer((await nextQuestion(channel)).id, "YES");
  assert.equal(await first, "YES");
  assert.equal(
    await ask.execute(staging, { sessionId: "A", toolCallId: "1" }),
    "YES",
    "the same call re-attaches to its answer",
  );

  const fresh: [ToolContext, string][] = [
    [{ sessionId: "B", toolCallId: "1" }, "Delete the PRODUCTION DB?"],
    [{ sessionId: "A", runId: "r2", toolCallId: "1" }, staging.question],
    [{ toolCallId: "1" }, staging.question],
    // Ids that a naive join of session, run and call id would run together.
    [{ sessionId: "A:r", toolCallId: "1" }, staging.question],
    [{ sessionId: "A", runId: "r:1", toolCallId: "1" }, staging.question],
    [{ sessionId: 'A",null,"1', toolCallId: "1" }, staging.question],
    // The same call asking something else is not answered by the old answer.
    [{ sessionId: "A", toolCallId: "1" }, "Delete the PRODUCTION DB?"],
  ];
  for (const [ctx, question] of fresh) {
    const reply = ask.execute({ question }, ctx);
    await settle();
    assert.equal(channel.pending.length, 1, `asked afresh for ${JSON.stringify(ctx)}`);
    const [asked] = channel.pending;
    assert.equal(asked.question, question);
    channel.answer(asked.id, "NO");
    assert.equal(await reply, "NO");
  }
  channel.close();
});

Deno.test("a call re-run after its question was withdrawn asks again; a cancel stands", {
  timeout: 60_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const input = { question: "Rotate the keys?" };
  const timedOut = { sessionId: "s", toolCallId: "call_9" };
  await assert.rejects(
    askHuman(channel, { timeoutMs: 1 }).execute(input, timedOut),
    /did not answer within 1 ms/,
  );
  const aborted = { sessionId: "s", toolCallId: "call_10" };
  const controller = new AbortController();
  const stopped = askHuman(channel).execute(input, { ...aborted, signal: controller.signal });
  await settle();
  controller.abort(new Error("shutting down"));
  await assert.rejects(stopped, /shutting down/);

  for (const call of [timedOut, aborted]) {
    const rerun = askHuman(channel).execute(input, call);
    await settle();
    assert.equal(channel.pending.length, 1, `the re-run of ${call.toolCallId} asks again`);
    channel.answer(channel.pending[0].id, `rotate ${call.toolCallId}`);
    assert.equal(await rerun, `rotate ${call.toolCallId}`);
  }

  const cancelled = { sessionId: "s", toolCallId: "call_11" };
  const refused = askHuman(channel).execute(input, cancelled);
  await settle();
  channel.cancel(channel.pending[0].id, "not now");
  const stood = /The operator cancelled the question \(not now\)/;
  await assert.rejects(refused, stood);
  await assert.rejects(askHuman(channel).execute(input, cancelled), stood);
  assert.deepEqual(channel.pending, [], "an operator's cancel is not asked again");
  channel.close();
});
