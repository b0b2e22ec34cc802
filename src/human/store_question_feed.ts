import { linkSignals } from "../clock.ts";
import type { HumanQuestion } from "./question.ts";
import { questionFeed } from "./question_feed.ts";
import type { MaybePromise, QuestionStore, StoredQuestion } from "./question_store.ts";

/**
 * `questions()` over a store: the pending questions in ask order, then each new one as the
 * store's watch reports it. A store that orders by its writers' clocks (`lateBy`) is read again
 * that far back after each wake, skipping what was delivered; `reaped` withdraws a listed
 * question whose askers are gone, which is then skipped. Ends once `closed` aborts.
 */
export function storeQuestionFeed(
  store: QuestionStore,
  closed: AbortSignal,
  reaped: (stored: StoredQuestion) => MaybePromise<StoredQuestion>,
): AsyncIterableIterator<HumanQuestion> {
  const lateBy = store.lateBy ?? 0;
  const stop = new AbortController();
  const linked = linkSignals([stop.signal, closed]);
  const closer = linked.signal;
  let changes: AsyncIterator<unknown> | undefined;
  // Delivered lately, by id, with its `seq`: a question committed late is listed again.
  const delivered = new Map<string, number>();
  let newest = -Infinity;
  // Where to go on after a delivery, until a wake.
  let resume: number | undefined;
  return questionFeed({
    after: async () => {
      if (closer.aborted) return undefined;
      if (!changes) {
        changes = store.watch(closer)[Symbol.asyncIterator]();
        await changes.next();
      }
      for (;;) {
        const after = resume ?? (Number.isFinite(newest) ? newest - lateBy : undefined);
        const batch = await store.pending({ after, limit: 64 });
        for (const listed of batch) {
          resume = listed.seq;
          if (delivered.has(listed.record.question.id)) continue;
          const stored = await reaped(listed);
          if (stored.record.status !== "pending") continue;
          delivered.set(stored.record.question.id, stored.seq);
          newest = Math.max(newest, stored.seq);
          return { seq: delivered.size, question: stored.record.question };
        }
        if (batch.length < 64) break;
      }
      for (const [id, seq] of delivered) if (seq < newest - lateBy) delivered.delete(id);
      return undefined;
    },
    wait: async (signal) => {
      resume = undefined;
      if (closer.aborted || !changes) return false;
      const onAbort = () => stop.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        return !(await changes.next()).done && !closed.aborted;
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
    close: async () => {
      stop.abort();
      linked.release();
      await changes?.return?.();
    },
  });
}
