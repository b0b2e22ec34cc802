import { type Clock, systemClock } from "../clock.ts";
import { SetupError } from "../errors.ts";
import {
  type ApprovalDecision,
  type HumanQuestion,
  type QuestionChannel,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
  REATTACH_WINDOW_MS,
} from "./question_channel.ts";
import { questionFeed } from "./question_feed.ts";
import { checkLimits, limitsOption, type QuestionLimits } from "./question_limits.ts";
import {
  newQuestion,
  outcomeOf,
  reattaches,
  resolution,
  withdrawalReason,
  WITHDRAWN,
} from "./question_lifecycle.ts";
import { answerOutcome, checkLength, reattachOption, resolvedLimit } from "./question_support.ts";

/**
 * Options of {@linkcode MemoryQuestionChannel}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type MemoryQuestionChannelOptions } from "@outpost/agent-tools/human";
 * const options: MemoryQuestionChannelOptions = { remember: 1 };
 * const channel = new MemoryQuestionChannel(options);
 * for (const answer of ["first", "second"]) {
 *   const outcome = channel.ask({ question: "Next?", options: [], multiSelect: false });
 *   for await (const q of channel.questions()) {
 *     await channel.answer(q.id, answer);
 *     break;
 *   }
 *   await outcome;
 * }
 * // Only the most recent resolved question is remembered.
 * assert.deepEqual((await channel.resolved(10)).map((r) => r.status === "answered" && r.answer), ["second"]);
 * ```
 */
export interface MemoryQuestionChannelOptions {
  /**
   * How many answered or cancelled questions `get` and re-asks by key still know (default
   * 1000); the oldest are forgotten first, so a long-lived channel stays bounded.
   */
  remember?: number;
  /**
   * How long after a question was resolved an ask with its key still re-attaches to it and gets
   * its outcome, in milliseconds (default {@linkcode REATTACH_WINDOW_MS}: 10 minutes); later,
   * the same ask is asked afresh.
   */
  reattachMs?: number;
  /**
   * Caps on the questions pending at once, in the channel and per session; beyond them `ask`
   * throws `TooManyQuestionsError`. A question waits here only while its ask does (an abort or
   * a timeout withdraws it), so it cannot outlive its asker.
   */
  limits?: QuestionLimits;
  /** Reads the time for `askedAt`, `resolvedAt` and the re-attach window (default the system's). */
  clock?: Clock;
}

interface Entry {
  question: HumanQuestion;
  /** Ask order; `questions()` iterators keep their place by it. */
  seq: number;
  key?: string;
  record: QuestionRecord;
  /** The asks waiting on this question; each settles with the outcome. */
  waiters: Set<(outcome: QuestionOutcome) => void>;
}

/**
 * A {@linkcode QuestionChannel} that keeps questions in memory, for one process: an agent asks
 * through `askHuman`, and the operator side (a console, a chat bridge, a test) reads
 * `questions()` or `pending` and calls `answer` or `cancel`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 *
 * const channel = new MemoryQuestionChannel();
 * const ask = askHuman(channel);
 * (async () => {
 *   for await (const q of channel.questions()) await channel.answer(q.id, "Staging");
 * })();
 * const reply = await ask.execute({ question: "Which environment?" });
 * assert.match(reply, /Staging/);
 * channel.close();
 * ```
 */
export class MemoryQuestionChannel implements QuestionChannel {
  readonly #remember: number;
  readonly #reattachMs: number;
  /** Every question the channel knows, pending ones and remembered resolved ones. */
  readonly #entries = new Map<string, Entry>();
  /** Pending questions, in ask order. */
  readonly #pending = new Map<string, Entry>();
  /** Resolved questions, oldest first, for forgetting in order. */
  readonly #resolved = new Set<string>();
  readonly #byKey = new Map<string, string>();
  /** Wakes `questions()` iterators waiting for a new question or the close. */
  readonly #wakers = new Set<() => void>();
  /** Wakes `changes()` watchers after any change. */
  readonly #watchers = new Set<() => void>();
  /** Pending questions per session (`undefined` for those without one), for the caps. */
  readonly #perSession = new Map<string | undefined, number>();
  readonly #limits: Required<QuestionLimits>;
  readonly #clock: Clock;
  #seq = 0;
  #closedReason?: string;

  /** Creates an empty, open channel. */
  constructor(options: MemoryQuestionChannelOptions = {}) {
    const { remember = 1000, reattachMs = REATTACH_WINDOW_MS, clock = systemClock } = options;
    if (!Number.isSafeInteger(remember) || remember < 0) {
      throw new SetupError(`remember must be a whole number of questions, not ${remember}.`);
    }
    this.#remember = remember;
    this.#reattachMs = reattachOption(reattachMs);
    this.#limits = limitsOption(options.limits);
    this.#clock = clock;
  }

  /**
   * Asks a question and waits for its outcome. An ask whose `key` matches a question the channel
   * still knows, asking the same with the same options, waits on that question or returns its
   * outcome at once if it was resolved within `reattachMs`; if the question was withdrawn,
   * resolved longer ago, or the ask differs, it is asked afresh. A closed channel resolves at
   * once with `{ status: "closed" }`. Aborting `signal` withdraws the question (once no other ask
   * waits on it) and rejects with the signal's reason. A new question beyond `limits` rejects
   * with `TooManyQuestionsError`.
   */
  ask(request: QuestionRequest, options: { signal?: AbortSignal } = {}): Promise<QuestionOutcome> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#closedReason !== undefined) {
      return Promise.resolve({ status: "closed", reason: this.#closedReason });
    }
    const knownId = request.key === undefined ? undefined : this.#byKey.get(request.key);
    const known = knownId === undefined ? undefined : this.#entries.get(knownId)!;
    let entry: Entry;
    if (
      known &&
      reattaches(known.record, isWithdrawn(known.record), request, this.#reattachMs, this.#now())
    ) {
      entry = known;
    } else {
      try {
        entry = this.#add(request);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (entry.record.status !== "pending") return Promise.resolve(outcomeOf(entry.record));
    return new Promise((resolve, reject) => {
      const settle = (outcome: QuestionOutcome) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => {
        entry.waiters.delete(settle);
        if (entry.waiters.size === 0) {
          const reason = withdrawalReason(signal!.reason);
          this.#settle(entry, { status: "cancelled", reason }, true);
        }
        reject(signal!.reason);
      };
      entry.waiters.add(settle);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A snapshot of the questions waiting for an answer, oldest first. */
  get pending(): readonly HumanQuestion[] {
    return [...this.#pending.values()].map((entry) => entry.question);
  }

  /**
   * The questions as they are asked. Questions already pending when iteration starts come first,
   * in ask order; a question resolved before the iterator reaches it is skipped. It ends when the
   * channel closes, and at once on a closed channel. Each call returns an independent iterator,
   * meant for one consumer.
   */
  questions(): AsyncIterableIterator<HumanQuestion> {
    // The ask count at the last look: a question asked after it, while the feed was between
    // looking and waiting, means look again rather than wait.
    let seen = 0;
    return questionFeed({
      after: (seq) => {
        seen = this.#seq;
        return this.#pendingAfter(seq);
      },
      wait: (signal) =>
        this.#closedReason === undefined &&
        (this.#seq !== seen || new Promise<boolean>((resolve) => {
          const wake = () => {
            this.#wakers.delete(wake);
            signal.removeEventListener("abort", wake);
            resolve(true);
          };
          this.#wakers.add(wake);
          signal.addEventListener("abort", wake, { once: true });
        })),
    });
  }

  /**
   * Yields once at once (the channel is watched from then on), then after each change: a
   * question asked, answered, cancelled or withdrawn. Ends when `signal` aborts or the channel
   * closes. Changes that come while the consumer is busy are folded into one yield.
   */
  async *changes(signal: AbortSignal): AsyncIterable<void> {
    let changed = false;
    let wake = () => {};
    const watcher = () => {
      changed = true;
      wake();
    };
    this.#watchers.add(watcher);
    const onAbort = () => wake();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      yield;
      while (!signal.aborted && this.#closedReason === undefined) {
        if (!changed) {
          await new Promise<void>((resolve) => wake = resolve);
          continue;
        }
        changed = false;
        yield;
      }
    } finally {
      this.#watchers.delete(watcher);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** What the channel knows of `id`, or `undefined` for an id it never had or has forgotten. */
  get(id: string): QuestionRecord | undefined {
    return this.#entries.get(id)?.record;
  }

  /**
   * The most recently resolved questions the channel still remembers (at most `remember`),
   * newest first, at most `limit` (capped at 100). Throws a `RangeError` for a `limit` that is
   * not a positive whole number.
   */
  resolved(limit: number): readonly QuestionRecord[] {
    const count = resolvedLimit(limit);
    const records: QuestionRecord[] = [];
    // `#resolved` is in resolution order, oldest first.
    const ids = [...this.#resolved];
    for (let i = ids.length - 1; i >= 0 && records.length < count; i--) {
      records.push(this.#entries.get(ids[i])!.record);
    }
    return records;
  }

  /**
   * Answers a pending question with a text or, for an approval, a decision; `true` also for the
   * same answer given again, `false` when `id` is unknown or was resolved otherwise. Throws a
   * `RangeError` for a text or reason longer than {@linkcode MAX_ANSWER_LENGTH}.
   */
  answer(id: string, answer: string | ApprovalDecision): boolean {
    return this.#resolve(id, answerOutcome(answer));
  }

  /**
   * Cancels a pending question; `true` also for the same cancel given again, `false` when `id`
   * is unknown or was resolved otherwise. Throws a `RangeError` for a reason longer than
   * {@linkcode MAX_ANSWER_LENGTH}.
   */
  cancel(id: string, reason = "cancelled"): boolean {
    checkLength("reason", reason);
    return this.#resolve(id, { status: "cancelled", reason });
  }

  #resolve(id: string, outcome: QuestionOutcome): boolean {
    const entry = this.#entries.get(id);
    return entry !== undefined && this.#settle(entry, outcome);
  }

  /**
   * Closes the channel: every pending question is withdrawn (its record says `withdrawn: <reason>`,
   * and its asks resolve `{ status: "closed", reason }`), `questions()` iterators end, and later asks resolve closed at once.
   * Idempotent.
   */
  close(reason = "channel closed"): void {
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason;
    for (const entry of [...this.#pending.values()]) {
      // Nobody cancelled these: their asks went away with the channel, which a record says as a
      // withdrawal (as the durable channels record it), never as an operator's cancel.
      const withdrawal = { status: "cancelled", reason: WITHDRAWN.closed(reason) } as const;
      this.#settle(entry, withdrawal, true, { status: "closed", reason });
    }
    for (const wake of [...this.#wakers]) wake();
    this.#changed();
  }

  #now(): number {
    return this.#clock.now();
  }

  #changed(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }

  #add(request: QuestionRequest): Entry {
    const inSession = this.#perSession.get(request.sessionId) ?? 0;
    checkLimits(this.#limits, this.#pending.size, inSession);
    this.#perSession.set(request.sessionId, inSession + 1);
    const question = newQuestion(request, this.#now());
    const entry: Entry = {
      question,
      seq: ++this.#seq,
      record: Object.freeze({ status: "pending", question }),
      waiters: new Set(),
    };
    if (request.key !== undefined) {
      entry.key = request.key;
      this.#byKey.set(request.key, question.id);
    }
    this.#entries.set(question.id, entry);
    this.#pending.set(question.id, entry);
    for (const wake of [...this.#wakers]) wake();
    this.#changed();
    return entry;
  }

  #pendingAfter(cursor: number): Entry | undefined {
    for (const entry of this.#pending.values()) if (entry.seq > cursor) return entry;
    return undefined;
  }

  /**
   * Resolves the question with `outcome` if it is pending (`withdrawn` when its asks went away),
   * tells its waiters (`told`, or the record's outcome), and forgets the oldest resolved ones;
   * `true` when this call resolved it or repeated its operator's resolution.
   */
  #settle(
    entry: Entry,
    outcome: QuestionOutcome,
    withdrawn = false,
    told?: QuestionOutcome,
  ): boolean {
    const resolvedAt = new Date(this.#now()).toISOString();
    const next = resolution(entry.record, outcome, resolvedAt, withdrawn);
    if ("done" in next) return next.done;
    const { question } = entry;
    const inSession = this.#perSession.get(question.sessionId)! - 1;
    if (inSession === 0) this.#perSession.delete(question.sessionId);
    else this.#perSession.set(question.sessionId, inSession);
    entry.record = Object.freeze(next.record);
    this.#pending.delete(question.id);
    this.#resolved.add(question.id);
    for (const settle of [...entry.waiters]) settle(told ?? outcomeOf(entry.record));
    entry.waiters.clear();
    this.#changed();
    for (const id of this.#resolved) {
      if (this.#resolved.size <= this.#remember) break;
      this.#resolved.delete(id);
      const forgotten = this.#entries.get(id)!;
      this.#entries.delete(id);
      // The key may point to a newer question by now, which stays known.
      if (forgotten.key !== undefined && this.#byKey.get(forgotten.key) === id) {
        this.#byKey.delete(forgotten.key);
      }
    }
    return true;
  }
}

function isWithdrawn(record: QuestionRecord): boolean {
  return record.status === "cancelled" && record.withdrawn === true;
}
