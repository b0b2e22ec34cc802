import type { QuestionOutcome, QuestionRequest } from "../human/question.ts";
import {
  asked,
  type Case,
  check,
  eventually,
  failure,
  isWithdrawal,
  pending,
  pendingCount,
  record,
  request,
  same,
  YES_NO,
} from "./question_contract_support.ts";

// The QuestionChannel contract's cases of keys: re-attaching within the window on the channel's
// clock, asking afresh, and holds across channel objects (questionChannelContract registers them).

/** The cases of this concern. */
export const KEY_CASES: Case[] = [
  {
    name: "asks under one key share one question; aborting one keeps it for the other",
    async run({ asker, operator }) {
      const ask = request("Ship it?", { key: "call_1" });
      const holding = asker.ask(ask);
      const question = await asked(operator, "Ship it?");
      const controller = new AbortController();
      const leaving = asker.ask(ask, { signal: controller.signal });
      controller.abort(new Error("gave up"));
      await failure(() => leaving, "the aborted ask");
      same((await pending(operator)).map((q) => q.id), [question.id], "kept for the other ask");
      check(await operator.answer(question.id, "ship") === true, "the answer");
      same(await holding, { status: "answered", answer: "ship" }, "the other ask's outcome");
    },
  },
  {
    name: "an ask through another channel object keeps the question when one under its key aborts",
    needs: { peer: true },
    async run({ asker, peer }) {
      const ask = request("Shared?", { key: "call_2" });
      // Another process asked first and waits; this one re-attaches, then gives up.
      const holding = peer!.ask(ask);
      const question = await asked(asker, "Shared?");
      const controller = new AbortController();
      const leaving = asker.ask(ask, { signal: controller.signal });
      controller.abort(new Error("gave up"));
      await failure(() => leaving, "the aborted ask");
      same((await pending(asker)).map((q) => q.id), [question.id], "kept for the other ask");
      check(await asker.answer(question.id, "ship") === true, "the answer");
      same(await holding, { status: "answered", answer: "ship" }, "the other ask's outcome");
    },
  },
  {
    name: "a resolved question re-attaches by key: its outcome at once, nothing asked",
    async run({ asker, operator, peer }) {
      const ask = request("Run deploy?", { key: "k", kind: "approval" });
      const first = asker.ask(ask);
      const question = await asked(operator, "Run deploy?");
      check(question.kind === "approval", "the kind is copied");
      check(await operator.answer(question.id, "Approve") === true, "the answer");
      const approved = { status: "answered", answer: "Approve", decision: "approve" };
      same(await first, approved, "the outcome");
      for (const channel of peer ? [asker, peer] : [asker]) {
        same(await channel.ask(ask), approved, "the re-attached outcome");
      }
      same(await pending(operator), [], "nothing asked again");
      const cancelled = asker.ask(request("Rotate?", { key: "c" }));
      const { id } = await asked(operator, "Rotate?");
      await operator.cancel(id, "not now");
      same(await cancelled, { status: "cancelled", reason: "not now" }, "the cancel");
      same(await asker.ask(request("Rotate?", { key: "c" })), await cancelled, "a cancel stands");
      same(await pending(operator), [], "nothing asked again");
    },
  },
  {
    name: "a key re-used with another text, options, multiSelect or kind asks afresh",
    async run({ asker, operator }) {
      const base = request("Ship it?", { key: "k", options: YES_NO });
      const variants: QuestionRequest[] = [
        base,
        { ...base, question: "Ship it now?" },
        { ...base, options: [YES_NO[1], YES_NO[0]] },
        { ...base, options: [YES_NO[0], { label: "No", description: "Wait" }] },
        { ...base, options: [YES_NO[0]] },
        { ...base, multiSelect: true },
        { ...base, kind: "approval" },
      ];
      // While the first is pending: each variant is a question of its own.
      const outcomes: Promise<QuestionOutcome>[] = [];
      for (const [index, variant] of variants.entries()) {
        outcomes.push(asker.ask(variant));
        await pendingCount(operator, index + 1);
      }
      const ids = (await pending(operator)).map((q) => q.id);
      same(new Set(ids).size, variants.length, "distinct questions");
      for (const id of ids) check(await operator.answer(id, "No") === true, "each answered");
      for (const outcome of outcomes) check((await outcome).status === "answered", "answered");
      // The key points to the latest of them, which re-attaches; a new variant asks afresh.
      same(await asker.ask(variants[6]), await outcomes[6], "the latest re-attaches");
      const fresh = asker.ask({ ...base, question: "Ship it later?" });
      await pendingCount(operator, 1);
      const [latest] = await pending(operator);
      await operator.answer(latest.id, "later");
      same(await fresh, { status: "answered", answer: "later" }, "asked afresh");
    },
  },
  {
    name: "a withdrawn question's key asks afresh, and then points to the new question",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const ask = request("Wait?", { key: "w" });
      const withdrawn = asker.ask(ask, { signal: controller.signal });
      const first = await asked(operator, "Wait?");
      controller.abort(new Error("timed out"));
      await failure(() => withdrawn, "the aborted ask");
      await eventually(async () => isWithdrawal(await record(operator, first.id)), "withdrawal");
      const again = asker.ask(ask);
      const second = await asked(operator, "Wait?");
      check(second.id !== first.id, "a new question");
      check(await operator.answer(second.id, "ok") === true, "the answer");
      same(await again, { status: "answered", answer: "ok" }, "the outcome");
      same(await asker.ask(ask), { status: "answered", answer: "ok" }, "the key's new question");
    },
  },
  {
    name: "the re-attach window runs on the channel's clock: to its end, then asks afresh",
    needs: { clock: true },
    setup: { reattachMs: 1_000 },
    async run({ asker, operator, clock }) {
      const ask = request("When?", { key: "k" });
      const first = asker.ask(ask);
      const question = await asked(operator, "When?");
      await operator.answer(question.id, "now");
      same(await first, { status: "answered", answer: "now" }, "the outcome");
      await clock.advance(1_000);
      same(await asker.ask(ask), { status: "answered", answer: "now" }, "at the window's end");
      await clock.advance(1);
      const later = asker.ask(ask);
      const again = await asked(operator, "When?");
      check(again.id !== question.id, "asked afresh after the window");
      await operator.answer(again.id, "later");
      same(await later, { status: "answered", answer: "later" }, "the new outcome");
    },
  },
  {
    name: "a re-attach window of 0 re-attaches only within the same millisecond",
    setup: { reattachMs: 0 },
    async run({ asker, operator, tick }) {
      const ask = request("Again?", { key: "a" });
      const first = asker.ask(ask);
      const question = await asked(operator, "Again?");
      await operator.answer(question.id, "once");
      await first;
      await tick();
      const later = asker.ask(ask);
      await eventually(async () => (await pending(operator)).length === 1, "asked afresh");
      const [again] = await pending(operator);
      check(again.id !== question.id, "a new question");
      await operator.answer(again.id, "twice");
      same(await later, { status: "answered", answer: "twice" }, "the new outcome");
    },
  },
  {
    name: "askedAt and resolvedAt are the channel clock's time",
    needs: { clock: true },
    async run({ asker, operator, clock }) {
      const outcome = asker.ask(request("When?"));
      const question = await asked(operator, "When?");
      same(question.askedAt, new Date(clock.now()).toISOString(), "askedAt");
      await clock.advance(5_000);
      await operator.answer(question.id, "now");
      await outcome;
      const answered = await record(operator, question.id);
      check(answered?.status === "answered", "answered");
      same(answered.resolvedAt, new Date(clock.now()).toISOString(), "resolvedAt");
    },
  },
];
