import type { HumanQuestion } from "./question.ts";

/** A pending question and its place in ask order. */
export interface QueuedQuestion {
  /** Ask order: strictly increasing, never reused. */
  seq: number;
  /** The question. */
  question: HumanQuestion;
}

/** What a channel tells {@linkcode questionFeed}. */
export interface FeedSource {
  /** The first question still pending that was asked after `seq`. */
  after(seq: number): QueuedQuestion | undefined | Promise<QueuedQuestion | undefined>;
  /**
   * Waits for news: `true` to look again, `false` once the channel is closed and the feed should
   * end. `signal` aborts when the iterator is returned; the wait should then end at once.
   */
  wait(signal: AbortSignal): boolean | Promise<boolean>;
  /** Releases what the source holds; called once, when the feed ends. */
  close?(): void | Promise<void>;
}

/**
 * The `questions()` iterator of every channel, so that their semantics cannot drift: the
 * questions pending when iteration starts come first, in ask order, then new ones as they are
 * asked; a question resolved before the iterator reaches it is skipped (the source lists pending
 * questions only); it ends once the source reports the channel closed, or when `return()` is
 * called, which also ends a `next()` that is waiting.
 */
export function questionFeed(source: FeedSource): AsyncIterableIterator<HumanQuestion> {
  let cursor = 0;
  let closing: Promise<void> | undefined;
  const stop = new AbortController();
  const done = { value: undefined, done: true } as const;
  const finish = () => {
    stop.abort();
    return closing ??= Promise.resolve(source.close?.());
  };
  const iterator: AsyncIterableIterator<HumanQuestion> = {
    async next() {
      try {
        while (!stop.signal.aborted) {
          const next = await source.after(cursor);
          if (stop.signal.aborted) break;
          if (next) {
            cursor = next.seq;
            return { value: next.question, done: false };
          }
          if (!(await source.wait(stop.signal))) break;
        }
      } catch (error) {
        await finish();
        throw error;
      }
      await finish();
      return done;
    },
    async return() {
      await finish();
      return done;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
