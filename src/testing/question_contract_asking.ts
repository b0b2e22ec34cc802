import { MAX_QUESTION_ID_LENGTH } from "../human/question_support.ts";
import {
  asked,
  canonical,
  type Case,
  check,
  failure,
  ISO,
  isWithdrawal,
  pending,
  pendingCount,
  record,
  request,
  same,
  settled,
  YES_NO,
} from "./question_contract_support.ts";

// The QuestionChannel contract's cases of asking, answering, cancelling and withdrawing one
// question (questionChannelContract registers them).

/** The cases of this concern. */
export const ASKING_CASES: Case[] = [
  {
    name: "an ask is pending with what it asked until an answer resolves it",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Which region?", {
        options: YES_NO,
        sessionId: "s",
        runId: "r",
        toolCallId: "t",
      }));
      const question = await asked(operator, "Which region?");
      same(question.options, YES_NO, "options");
      same(
        [question.multiSelect, question.sessionId, question.runId, question.toolCallId],
        [false, "s", "r", "t"],
        "the question's fields",
      );
      check(question.kind === undefined, "a question asked by a model has no kind");
      check(ISO.test(question.askedAt), `askedAt is ISO-8601: ${question.askedAt}`);
      check(typeof question.id === "string" && question.id !== "", "an id");
      check(question.id.length <= MAX_QUESTION_ID_LENGTH, "ids fit MAX_QUESTION_ID_LENGTH");
      same(await record(operator, question.id), { status: "pending", question }, "pending record");
      check(!(await settled(outcome)), "the ask waits");
      check(await operator.answer(question.id, "eu-west") === true, "the answer resolves it");
      same(await outcome, { status: "answered", answer: "eu-west" }, "the outcome");
      const answered = await record(operator, question.id);
      check(answered?.status === "answered", "answered record");
      same(answered.question, question, "the record keeps the question");
      check(ISO.test(answered.resolvedAt), `resolvedAt is ISO-8601: ${answered.resolvedAt}`);
      same(await pending(operator), [], "nothing pending");
    },
  },
  {
    name: "a second answer: the same is true (a retry), another is false and changes nothing",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Deploy?"));
      const { id } = await asked(operator, "Deploy?");
      check(await operator.answer(id, "yes") === true, "the first answer");
      check(await operator.answer(id, "yes") === true, "the same answer again");
      check(await operator.answer(id, "no") === false, "another answer");
      check(await operator.cancel(id) === false, "a cancel after the answer");
      same(await outcome, { status: "answered", answer: "yes" }, "the outcome");
      const answered = await record(asker, id);
      check(answered?.status === "answered" && answered.answer === "yes", "the first answer");
    },
  },
  {
    name: "of concurrent answers and cancels, exactly one wins",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Race?"));
      const { id } = await asked(operator, "Race?");
      const results = await Promise.all([
        operator.answer(id, "a"),
        asker.answer(id, "b"),
        operator.cancel(id, "c"),
      ]);
      same(results.filter(Boolean).length, 1, "winners");
      const won = await outcome;
      const stored = await record(operator, id);
      check(stored?.status === won.status, "the record is the outcome");
    },
  },
  {
    name: "many asks at once each get the answer to their own question",
    async run({ asker, operator, peer }) {
      const askers = peer ? [asker, peer] : [asker];
      const outcomes = Array.from(
        { length: 12 },
        (_, i) => askers[i % askers.length].ask(request(`question ${i}`, { sessionId: `s${i}` })),
      );
      await pendingCount(operator, 12);
      await Promise.all(
        (await pending(operator)).map((q) => operator.answer(q.id, `answer to ${q.question}`)),
      );
      same(
        await Promise.all(outcomes),
        outcomes.map((_, i) => ({ status: "answered", answer: `answer to question ${i}` })),
        "each outcome",
      );
    },
  },
  {
    name: "a key and a session of 3,000 characters each work as short ones do",
    async run({ asker, operator }) {
      const ask = request("Long?", { key: "k".repeat(3000), sessionId: "s".repeat(3000) });
      const first = asker.ask(ask);
      const question = await asked(operator, "Long?");
      same(question.sessionId, ask.sessionId, "the session");
      await operator.answer(question.id, "fine");
      same(await first, { status: "answered", answer: "fine" }, "the outcome");
      same(await asker.ask(ask), { status: "answered", answer: "fine" }, "re-attached");
    },
  },
  {
    name: "an unknown id, or one longer than MAX_QUESTION_ID_LENGTH, is unknown and refused",
    async run({ asker, operator }) {
      const ids = [crypto.randomUUID(), "x".repeat(MAX_QUESTION_ID_LENGTH + 1), "q".repeat(3000)];
      for (const channel of [asker, operator]) {
        for (const id of ids) {
          check(await record(channel, id) === undefined, `get(${id.length} chars)`);
          check(await channel.answer(id, "x") === false, `answer(${id.length} chars)`);
          check(await channel.cancel(id) === false, `cancel(${id.length} chars)`);
        }
      }
    },
  },
  {
    name: "a cancel resolves the ask; the same cancel again is true, another false; no withdrawal",
    async run({ asker, operator }) {
      const plain = asker.ask(request("Proceed?"));
      const first = await asked(operator, "Proceed?");
      check(await operator.cancel(first.id) === true, "the cancel");
      same(await plain, { status: "cancelled", reason: "cancelled" }, "the default reason");
      const reasoned = asker.ask(request("Rotate keys?"));
      const { id } = await asked(operator, "Rotate keys?");
      check(await operator.cancel(id, "withdrawn: by me") === true, "a cancel with a reason");
      check(await operator.cancel(id, "withdrawn: by me") === true, "the same cancel again");
      check(await operator.cancel(id, "other") === false, "another cancel");
      check(await operator.answer(id, "withdrawn: by me") === false, "an answer");
      same(await reasoned, { status: "cancelled", reason: "withdrawn: by me" }, "outcome");
      const cancelled = await record(operator, id);
      check(cancelled?.status === "cancelled", "cancelled record");
      check(cancelled.withdrawn === undefined, "an operator's cancel is never a withdrawal");
      check(ISO.test(cancelled.resolvedAt), "resolvedAt");
    },
  },
  {
    name: "an aborted ask withdraws its question and rejects with the signal's reason",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Wait for me?"), { signal: controller.signal });
      const question = await asked(operator, "Wait for me?");
      const reason = new Error("run stopped");
      controller.abort(reason);
      check(await failure(() => outcome, "the aborted ask") === reason, "the signal's reason");
      same(await pending(operator), [], "withdrawn from pending");
      const withdrawn = await record(operator, question.id);
      check(isWithdrawal(withdrawn), `a withdrawal as data: ${canonical(withdrawn)}`);
      check(
        withdrawn?.status === "cancelled" &&
          withdrawn.reason === "withdrawn: the asking call was aborted",
        "the reason of an abort",
      );
      check(await operator.answer(question.id, "too late") === false, "an answer is refused");
      check(await operator.cancel(question.id, withdrawn.reason) === false, "no retry of it");
    },
  },
  {
    name: "an ask that times out (a TimeoutError) is withdrawn as timed out",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Quick?"), { signal: controller.signal });
      const question = await asked(operator, "Quick?");
      const reason = new DOMException("No answer in time.", "TimeoutError");
      controller.abort(reason);
      check(await failure(() => outcome, "the timed-out ask") === reason, "the signal's reason");
      const withdrawn = await record(operator, question.id);
      check(
        isWithdrawal(withdrawn) && withdrawn?.status === "cancelled" &&
          withdrawn.reason === "withdrawn: the asking call timed out",
        `the reason of a timeout: ${canonical(withdrawn)}`,
      );
    },
  },
  {
    name: "an ask whose signal has already aborted rejects and asks nothing",
    async run({ asker, operator }) {
      const reason = new Error("never");
      const error = await failure(
        () => asker.ask(request("Never asked?"), { signal: AbortSignal.abort(reason) }),
        "the ask",
      );
      check(error === reason, "the signal's reason");
      same(await pending(operator), [], "nothing asked");
    },
  },
  {
    name: "an answer given before the ask aborts is its outcome",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Proceed?"), { signal: controller.signal });
      const { id } = await asked(operator, "Proceed?");
      check(await operator.answer(id, "go") === true, "the answer");
      controller.abort(new DOMException("late", "TimeoutError"));
      same(await outcome, { status: "answered", answer: "go" }, "the outcome");
      check((await record(operator, id))?.status === "answered", "still answered");
    },
  },
];
