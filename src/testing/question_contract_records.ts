import {
  MAX_ANSWER_LENGTH,
  type QuestionOutcome,
  type QuestionRequest,
} from "../human/question.ts";
import { TooManyQuestionsError } from "../human/question_limits.ts";
import {
  asked,
  canonical,
  type Case,
  check,
  eventually,
  failure,
  ISO,
  pending,
  pendingCount,
  record,
  request,
  same,
} from "./question_contract_support.ts";

// The QuestionChannel contract's cases of what records hold, and how much: answer lengths,
// approvals' decisions, `resolved()`, the caps (questionChannelContract registers them).

/** The cases of this concern. */
export const RECORD_CASES: Case[] = [
  {
    name: "texts and reasons over MAX_ANSWER_LENGTH are refused and change nothing",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Paste the log?", { kind: "approval" }));
      const question = await asked(operator, "Paste the log?");
      const tooLong = "x".repeat(MAX_ANSWER_LENGTH + 1);
      const refusals = [
        () => operator.answer(question.id, tooLong),
        () => operator.cancel(question.id, tooLong),
        () => operator.answer(question.id, { decision: "deny", reason: tooLong }),
        () => operator.answer(crypto.randomUUID(), tooLong),
      ];
      for (const refusal of refusals) {
        const error = await failure(refusal, "a too long text");
        check(error instanceof RangeError, `a RangeError: ${error}`);
        check(/MAX_ANSWER_LENGTH/.test(error.message), "the message names the limit");
      }
      for (const malformed of [{ decision: "maybe" }, { decision: "deny", reason: 1 }, null]) {
        const error = await failure(() => operator.answer(question.id, malformed as never), "bad");
        check(error instanceof TypeError, `a TypeError for ${canonical(malformed)}: ${error}`);
      }
      same((await pending(operator)).map((q) => q.id), [question.id], "still pending");
      const longest = "€".repeat(MAX_ANSWER_LENGTH);
      check(
        await operator.answer(question.id, { decision: "deny", reason: longest }) === true,
        "MAX_ANSWER_LENGTH itself is taken",
      );
      same(
        await outcome,
        { status: "answered", answer: "Deny", decision: "deny", reason: longest },
        "the outcome",
      );
    },
  },
  {
    name: "an approval's text answer is read once as its decision; the record carries it as data",
    async run({ asker, operator }) {
      const cases: [string, QuestionOutcome][] = [
        [" approve ", { status: "answered", answer: "Approve", decision: "approve" }],
        ["DENY", { status: "answered", answer: "Deny", decision: "deny" }],
        ["not today", {
          status: "answered",
          answer: "Deny",
          decision: "deny",
          reason: "not today",
        }],
      ];
      for (const [index, [text, expected]] of cases.entries()) {
        const outcome = asker.ask(request(`Approve ${index}?`, { kind: "approval" }));
        const { id } = await asked(operator, `Approve ${index}?`);
        check(await operator.answer(id, text) === true, `the answer ${text}`);
        same(await outcome, expected, `the outcome of ${JSON.stringify(text)}`);
        const stored = await record(operator, id);
        same(
          stored && { ...stored, question: undefined, resolvedAt: undefined },
          expected,
          "the record",
        );
        // The same decision again, as text or as data, is a retry; the other one is not.
        check(await operator.answer(id, text) === true, "the same text again");
        const decision = (expected as { decision: "approve" | "deny" }).decision;
        const reason = (expected as { reason?: string }).reason;
        check(
          await operator.answer(id, { decision, ...(reason ? { reason } : {}) }) === true,
          "the same decision as data",
        );
        const other = decision === "approve" ? "deny" : "approve";
        check(await operator.answer(id, { decision: other }) === false, "the other decision");
      }
    },
  },
  {
    name: "an approval and a question under one key are different questions",
    async run({ asker, operator }) {
      const plain = asker.ask(request("Ship it?", { key: "k" }));
      await pendingCount(operator, 1);
      const approval = asker.ask(request("Ship it?", { key: "k", kind: "approval" }));
      await pendingCount(operator, 2);
      const [first, second] = await pending(operator);
      same([first.kind, second.kind], [undefined, "approval"], "kinds");
      await operator.answer(first.id, "a");
      await operator.answer(second.id, "b");
      same(
        await Promise.all([plain, approval]),
        [
          { status: "answered", answer: "a" },
          { status: "answered", answer: "Deny", decision: "deny", reason: "b" },
        ],
        "outcomes",
      );
    },
  },
  {
    name: "resolved() lists answered, cancelled and withdrawn questions, newest first",
    needs: { resolved: true },
    async run({ asker, operator, tick }) {
      const history = operator.resolved!.bind(operator);
      same(await history(10), [], "no history yet");
      const outcomes = [];
      for (const [index, text] of ["a?", "b?", "c?"].entries()) {
        outcomes.push(asker.ask(request(text, { key: `call_${index}` })));
        await pendingCount(operator, index + 1);
      }
      const [a, b, c] = await pending(operator);
      await operator.answer(a.id, "ay");
      await tick();
      await operator.cancel(b.id, "not today");
      await tick();
      const aborter = new AbortController();
      const withdrawn = asker.ask(request("d?"), { signal: aborter.signal });
      await asked(operator, "d?");
      aborter.abort();
      await failure(() => withdrawn, "the aborted ask");
      await eventually(async () => (await history(10)).length === 3, "three resolved");
      const list = await history(10);
      same(list.map((r) => r.question.question), ["d?", "b?", "a?"], "newest first");
      same(
        list.map((r) => r.status === "cancelled" && r.withdrawn ? "withdrawn" : r.status),
        ["withdrawn", "cancelled", "answered"],
        "statuses",
      );
      check(list.every((r) => r.status !== "pending" && ISO.test(r.resolvedAt)), "resolvedAt");
      same((await history(1)).map((r) => r.question.id), [list[0].question.id], "limit 1");
      check(!list.some((r) => r.question.id === c.id), "a pending question is no history");
      if (asker.resolved) same(await asker.resolved(10), list, "the same through the asker");
      await operator.cancel(c.id);
      await Promise.all(outcomes);
    },
  },
  {
    name: "resolved() lists at most 100 however large the limit, and refuses a bad limit",
    needs: { resolved: true },
    setup: { limits: { maxPending: Infinity, maxPendingPerSession: Infinity } },
    async run({ asker, operator }) {
      // In batches, so that a channel reached by requests is not asked 101 times in a row.
      for (let batch = 0; batch < 101; batch += 20) {
        const size = Math.min(20, 101 - batch);
        const outcomes = Array.from(
          { length: size },
          (_, i) => asker.ask(request(`q${batch + i}?`)),
        );
        await pendingCount(operator, size);
        await Promise.all((await pending(operator)).map((q) => operator.answer(q.id, "ok")));
        await Promise.all(outcomes);
      }
      same((await operator.resolved!(1000)).length, 100, "at most 100");
      for (const bad of [0, -1, 1.5, NaN]) {
        const error = await failure(() => operator.resolved!(bad), `resolved(${bad})`);
        check(error instanceof RangeError, `a RangeError for ${bad}: ${error}`);
      }
    },
  },
  {
    name: "caps: beyond maxPendingPerSession or maxPending an ask is refused and stores nothing",
    setup: { limits: { maxPending: 4, maxPendingPerSession: 2 } },
    async run({ asker, operator }) {
      const refused = async (ask: QuestionRequest, what: string) => {
        const error = await failure(() => asker.ask(ask), `the ask beyond ${what}`);
        check(error instanceof TooManyQuestionsError, `TooManyQuestionsError: ${error}`);
        check(new RegExp(`${what} has \\d+ pending`).test(error.message), error.message);
        check(error.code === "rate_limited" && error.retryAfterMs! > 0, "rate_limited");
      };
      const outcomes = [asker.ask(request("a1?", { sessionId: "a", key: "k1" }))];
      await pendingCount(operator, 1);
      outcomes.push(asker.ask(request("a2?", { sessionId: "a" })));
      await pendingCount(operator, 2);
      await refused(request("a3?", { sessionId: "a" }), "this session");
      // A re-attach to a question already pending takes no new place, and is never refused.
      outcomes.push(asker.ask(request("a1?", { sessionId: "a", key: "k1" })));
      outcomes.push(asker.ask(request("b1?", { sessionId: "b" })));
      await pendingCount(operator, 3);
      outcomes.push(asker.ask(request("none?")));
      await pendingCount(operator, 4);
      await refused(request("c1?", { sessionId: "c" }), "the channel");
      same((await pending(operator)).length, 4, "nothing stored for the refused asks");
      // An answer frees a place; so does a withdrawal.
      const first = await asked(operator, "a1?");
      check(await operator.answer(first.id, "done") === true, "the answer");
      const aborter = new AbortController();
      const withdrawn = asker.ask(request("c1?", { sessionId: "c" }), { signal: aborter.signal });
      await asked(operator, "c1?");
      await refused(request("c2?", { sessionId: "d" }), "the channel");
      aborter.abort();
      await failure(() => withdrawn, "the withdrawn ask");
      await pendingCount(operator, 3);
      outcomes.push(asker.ask(request("c2?", { sessionId: "d" })));
      await pendingCount(operator, 4);
      for (const q of await pending(operator)) await operator.cancel(q.id, "done");
      const results = await Promise.all(outcomes);
      same(results[0], { status: "answered", answer: "done" }, "the first ask");
      same(results[2], { status: "answered", answer: "done" }, "the re-attached ask");
    },
  },
];
