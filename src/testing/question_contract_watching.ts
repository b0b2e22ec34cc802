import {
  asked,
  canonical,
  type Case,
  check,
  eventually,
  isWithdrawal,
  pending,
  pendingCount,
  record,
  request,
  same,
} from "./question_contract_support.ts";

// The QuestionChannel contract's cases of watching: `questions()`, `changes()`, and `close()`
// ending them (questionChannelContract registers them).

/** The cases of this concern. */
export const WATCHING_CASES: Case[] = [
  {
    name: "questions() delivers the backlog in ask order, then new questions as asked",
    async run({ asker, operator }) {
      const outcomes = [];
      for (const [index, text] of ["one?", "two?"].entries()) {
        outcomes.push(asker.ask(request(text)));
        await pendingCount(operator, index + 1);
      }
      const feed = operator.questions();
      try {
        same((await feed.next()).value?.question, "one?", "first");
        same((await feed.next()).value?.question, "two?", "second");
        const waiting = feed.next();
        outcomes.push(asker.ask(request("three?")));
        same((await waiting).value?.question, "three?", "a new question");
        same((await pending(operator)).map((q) => q.question), ["one?", "two?", "three?"], "order");
        for (const q of await pending(operator)) await operator.answer(q.id, `re: ${q.question}`);
        same(
          await Promise.all(outcomes),
          ["one?", "two?", "three?"].map((q) => ({ status: "answered", answer: `re: ${q}` })),
          "outcomes",
        );
      } finally {
        await feed.return?.();
      }
    },
  },
  {
    name: "questions() skips a question resolved before it reaches it",
    async run({ asker, operator }) {
      const outcomes = [];
      for (const [index, text] of ["a?", "b?", "c?", "d?"].entries()) {
        outcomes.push(asker.ask(request(text)));
        await pendingCount(operator, index + 1);
      }
      const [a, b, c] = await pending(operator);
      const feed = operator.questions();
      try {
        same((await feed.next()).value?.id, a.id, "first");
        await operator.cancel(b.id, "no longer needed");
        await operator.answer(c.id, "done");
        same((await feed.next()).value?.question, "d?", "the next still pending");
      } finally {
        await feed.return?.();
      }
      for (const q of await pending(operator)) await operator.cancel(q.id);
      await Promise.all(outcomes);
    },
  },
  {
    name: "each questions() iterator sees every question; return() ends a waiting next()",
    async run({ asker, operator }) {
      const left = operator.questions();
      const right = operator.questions();
      const outcome = asker.ask(request("shared?"));
      same((await left.next()).value?.question, "shared?", "left");
      same((await right.next()).value?.question, "shared?", "right");
      const waiting = left.next();
      same(await left.return!(), { value: undefined, done: true }, "return()");
      check((await waiting).done === true, "the waiting next() ends");
      check((await left.next()).done === true, "and stays ended");
      await right.return!();
      const [question] = await pending(operator);
      await operator.answer(question.id, "ok");
      await outcome;
    },
  },
  {
    name: "close(): asks resolve closed with its reason, later asks too, iterators end; idempotent",
    async run({ asker, operator }) {
      const feed = asker.questions();
      const waitingFeed = feed.next();
      const outcome = asker.ask(request("Still there?"));
      const question = await asked(operator, "Still there?");
      await waitingFeed;
      const next = feed.next();
      await asker.close("operator left");
      await asker.close("ignored");
      same(await outcome, { status: "closed", reason: "operator left" }, "the waiting ask");
      check((await next).done === true, "a waiting iterator ends");
      same(
        await asker.ask(request("Another?")),
        { status: "closed", reason: "operator left" },
        "a later ask",
      );
      const late = asker.questions();
      check((await late.next()).done === true, "questions() of a closed channel ends at once");
      // What close does to the stored question is the channel's choice (a durable one keeps it
      // for a restarted process); if it resolved it, that is a withdrawal: nobody cancelled it.
      const after = await record(operator, question.id);
      if (after && after.status !== "pending") {
        check(isWithdrawal(after), `closing is no operator's cancel: ${canonical(after)}`);
        check(
          await operator.cancel(question.id, after.status === "cancelled" ? after.reason : "") ===
            false,
          "no retry of it",
        );
      } else if (after) {
        await operator.cancel(question.id);
      }
    },
  },
  {
    name: "after close(), a keyed question stays for a retry through another channel object",
    needs: { peer: true },
    async run({ asker, peer }) {
      const ask = request("Retried later?", { key: "call-7" });
      const closed = asker.ask(ask);
      const question = await asked(peer!, "Retried later?");
      await asker.close("restarting");
      same(await closed, { status: "closed", reason: "restarting" }, "the closed ask");
      same((await pending(peer!)).map((q) => q.id), [question.id], "still pending");
      const retried = peer!.ask(ask);
      same((await pending(peer!)).map((q) => q.id), [question.id], "re-attached, not asked");
      check(await peer!.answer(question.id, "here") === true, "the answer");
      same(await retried, { status: "answered", answer: "here" }, "the retry's outcome");
    },
  },
  {
    name: "changes() yields once watching, after an ask and an answer, and ends when aborted",
    needs: { changes: true },
    async run({ asker, operator }) {
      const stop = new AbortController();
      const changes = operator.changes!(stop.signal)[Symbol.asyncIterator]();
      check((await changes.next()).done === false, "watching");
      const outcome = asker.ask(request("Changed?"));
      check((await changes.next()).done === false, "asked");
      const question = await asked(operator, "Changed?");
      // A yield carries no detail: read again until the answer shows.
      const answering = operator.answer(question.id, "yes");
      await eventually(async () => {
        check((await changes.next()).done === false, "answered");
        return (await record(operator, question.id))?.status === "answered";
      }, "a yield after the answer");
      await answering;
      await outcome;
      const next = changes.next();
      stop.abort();
      check((await next).done === true, "ends when aborted");
    },
  },
  {
    name: "changes() ends when the channel closes",
    needs: { changes: true },
    async run({ asker }) {
      const changes = asker.changes!(new AbortController().signal)[Symbol.asyncIterator]();
      check((await changes.next()).done === false, "watching");
      const next = changes.next();
      await asker.close();
      // A yield may come first (the close is a change); then it ends.
      if (!(await next).done) check((await changes.next()).done === true, "ended");
    },
  },
];
