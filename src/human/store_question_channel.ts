import { linkSignals, systemClock } from "../clock.ts";
import { checkOption, integerAtLeast, timeoutMs } from "../option_checks.ts";
import { type QuestionChannel, REATTACH_WINDOW_MS } from "./question_channel.ts";
import type {
  ApprovalDecision,
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "./question.ts";
import { storeQuestionFeed } from "./store_question_feed.ts";
import { QuestionWakers } from "./question_wakers.ts";
import { keepHolding } from "./hold_renewal.ts";
import { isWithdrawn, outcomeOf, withdrawalReason, WITHDRAWN } from "./question_lifecycle.ts";
import { limitsOption, TooManyQuestionsError } from "./question_limits.ts";
import {
  current,
  lapsed,
  leave,
  type LifecycleSettings,
  open,
  resolve,
} from "./question_operations.ts";
import type { MaybePromise, QuestionStore, StoredQuestion } from "./question_store.ts";
import {
  answerOutcome,
  checkLength,
  MAX_QUESTION_ID_LENGTH,
  resolvedLimit,
} from "./question_support.ts";
import { drive, type Steps, value } from "./steps.ts";
import type { StoreQuestionChannelOptions } from "./store_question_channel_options.ts";

/** What an ask's leaving did. */
type Left = { withdrawn: boolean; record?: QuestionRecord };

/** An ask of this object waiting on a question. */
interface Waiting {
  id: string;
  keyed: boolean;
}

/**
 * The one {@linkcode QuestionChannel} lifecycle, over any {@linkcode QuestionStore}: asks,
 * re-attaches by key within the re-attach window, holds renewed while asks wait, withdrawal when
 * the last asker goes away (abort, timeout, close, or a lapsed hold), caps, ask order, the first
 * answer winning. `MemoryQuestionChannel` and `DenoKvQuestionChannel` are this class over their
 * stores; a Redis or PostgreSQL channel is this class over a store of its own, checked by
 * running `questionChannelContract` (`@outpost/agent-tools/testing`) against it.
 *
 * `close()` ends this object's waits (they resolve `closed`) and iterators, and withdraws the
 * questions its asks held that nothing could re-attach to: those without a key, and with
 * `expireMs: Infinity` those with one; keyed questions stay pending for `expireMs`, for a
 * restarted process to re-attach to.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, MemoryQuestionStore, StoreQuestionChannel } from "@outpost/agent-tools/human";
 * const channel = new StoreQuestionChannel(new MemoryQuestionStore(), { leaseMs: 30_000 });
 * const asking = askHuman(channel).execute({ question: "Ship it?" });
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, "Ship it");
 *   break;
 * }
 * assert.match(await asking, /Ship it/);
 * await channel.close();
 * ```
 */
export class StoreQuestionChannel implements QuestionChannel {
  readonly #store: QuestionStore;
  readonly #settings: LifecycleSettings;
  /** Aborted by `close()`: ends every wait and iterator of this object. */
  readonly #closer = new AbortController();
  #closedReason = "channel closed";
  /** The asks of this object that wait, by holder. */
  readonly #waiting = new Map<string, Waiting>();
  /** How many asks of this object wait on each question: it is alive while any does. */
  readonly #waitedOn = new Map<string, number>();
  /** Wakes the waits on a question when it may have changed. */
  readonly #wakers: QuestionWakers;
  /** Asks and iterator steps in flight, which `close()` lets finish. */
  readonly #active = new Set<Promise<unknown>>();
  /** When a cap last made this object look for questions whose askers are gone. */
  #reapedAt = -Infinity;

  /** Uses `store`; throws `SetupError` for bad options. */
  constructor(store: QuestionStore, options: StoreQuestionChannelOptions = {}) {
    const {
      reattachMs = REATTACH_WINDOW_MS,
      leaseMs = Infinity,
      expireMs = Infinity,
      clock = systemClock,
    } = options;
    this.#store = store;
    this.#wakers = new QuestionWakers(store, this.#closer.signal);
    this.#settings = {
      reattachMs: checkOption("reattachMs", reattachMs, integerAtLeast(0)),
      limits: limitsOption(options.limits),
      leaseMs: leaseMs === Infinity ? leaseMs : checkOption("leaseMs", leaseMs, timeoutMs()),
      expireMs: expireMs === Infinity ? expireMs : checkOption("expireMs", expireMs, timeoutMs()),
      clock,
      waitedOn: (id) => this.#waitedOn.has(id),
    };
  }

  /**
   * Asks a question, or re-attaches to the one asked under `request.key`, and waits for its
   * outcome. Aborting `signal` withdraws it (unless another ask holds it, or it was resolved
   * first: then that outcome) and rejects with the signal's reason.
   */
  ask(request: QuestionRequest, options: { signal?: AbortSignal } = {}): Promise<QuestionOutcome> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#closer.signal.aborted) {
      return Promise.resolve({ status: "closed", reason: this.#closedReason });
    }
    try {
      return this.#track(Promise.resolve(drive(this.#ask(request, signal))));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A snapshot of the questions waiting for an answer, oldest first. */
  get pending(): MaybePromise<readonly HumanQuestion[]> {
    return drive(this.#pending());
  }

  /**
   * The questions as they are asked, by anyone on the store: those pending when iteration
   * starts first, in ask order; a question resolved before the iterator reaches it is skipped.
   * Ends when this object closes. Each call returns an independent iterator, for one consumer.
   */
  questions(): AsyncIterableIterator<HumanQuestion> {
    const reaped = (stored: StoredQuestion) => this.#reaped(stored);
    const feed = storeQuestionFeed(this.#store, this.#closer.signal, reaped);
    // Tracked, so that `close()` resolves once the steps in flight have ended.
    const iterator: AsyncIterableIterator<HumanQuestion> = {
      next: () => this.#track(feed.next()),
      return: () => this.#track(feed.return!()),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * Yields once it watches, then after each change to the questions (asked, answered, cancelled
   * or withdrawn, by anyone on the store), folding changes that come while the consumer is busy.
   * Ends when `signal` aborts or this object closes.
   */
  async *changes(signal: AbortSignal): AsyncIterable<void> {
    const { signal: stop, release } = linkSignals([signal, this.#closer.signal]);
    try {
      for await (const _ of this.#store.watch(stop)) {
        if (stop.aborted) break;
        yield;
      }
    } finally {
      release();
    }
  }

  /** What the store holds of `id`: `undefined` for an id it never had or has forgotten. */
  get(id: string): MaybePromise<QuestionRecord | undefined> {
    // No id that long is ever stored; some stores refuse it as a key.
    if (id.length > MAX_QUESTION_ID_LENGTH) return undefined;
    return drive(this.#get(id));
  }

  /**
   * The most recently resolved questions the store still keeps, newest first, at most `limit`
   * (capped at 100). Throws a `RangeError` for a `limit` that is not a positive whole number.
   */
  resolved(limit: number): MaybePromise<readonly QuestionRecord[]> {
    const count = resolvedLimit(limit);
    return drive(this.#resolved(count));
  }

  /**
   * Answers a pending question with a text or, for an approval, a decision; `true` also for the
   * same answer given again, `false` when `id` is unknown or was resolved otherwise. Throws a
   * `RangeError`, changing nothing, for a text or reason longer than `MAX_ANSWER_LENGTH`.
   */
  answer(id: string, answer: string | ApprovalDecision): MaybePromise<boolean> {
    return this.#resolve(id, answerOutcome(answer));
  }

  /**
   * Cancels a pending question; `true` also for the same cancel given again, `false` when `id`
   * is unknown or was resolved otherwise. Throws a `RangeError`, changing nothing, for a reason
   * longer than `MAX_ANSWER_LENGTH`.
   */
  cancel(id: string, reason = "cancelled"): MaybePromise<boolean> {
    checkLength("reason", reason);
    return this.#resolve(id, { status: "cancelled", reason });
  }

  /**
   * Closes this channel object: its waiting asks resolve `{ status: "closed", reason }`, its
   * iterators end, later asks resolve closed at once; the questions its asks held are withdrawn
   * unless a restarted process could re-attach to them (see the class). Resolves once this
   * object's waits have ended. Idempotent.
   */
  close(reason = "channel closed"): MaybePromise<void> {
    if (this.#closer.signal.aborted) return this.#settled();
    this.#closedReason = reason;
    this.#closer.abort();
    return drive(this.#close(reason));
  }

  *#close(reason: string): Steps<void> {
    const withdrawal = WITHDRAWN.closed(reason);
    for (const [holder, { id, keyed }] of [...this.#waiting]) {
      if (keyed && this.#settings.expireMs !== Infinity) continue;
      this.#waitedOn.delete(id);
      try {
        yield* value(
          this.#store.transact((tx) => drive(leave(tx, id, holder, withdrawal, this.#settings))),
        );
      } catch {
        // A store that failed keeps it pending until its hold lapses and another channel reaps it.
      }
    }
    this.#wakers.idle(true);
    yield* value(this.#settled());
  }

  /** Once the asks and iterator steps in flight have ended (at once when there are none). */
  #settled(): MaybePromise<void> {
    if (this.#active.size === 0) return undefined;
    return Promise.allSettled(this.#active).then(() => {});
  }

  *#ask(request: QuestionRequest, signal: AbortSignal | undefined): Steps<QuestionOutcome> {
    const holder = crypto.randomUUID();
    const opened = yield* this.#open(request, holder);
    if (opened.record.status !== "pending") return outcomeOf(opened.record);
    const { id } = opened.record.question;
    return yield* value(this.#wait(id, holder, opened.key !== undefined, signal));
  }

  /**
   * Opens `request`; at a cap, first withdraws the questions whose askers are gone (at most once
   * a lease), which frees their places, then throws `TooManyQuestionsError` if still full.
   */
  *#open(request: QuestionRequest, holder: string): Steps<Omit<StoredQuestion, "seq">> {
    const attempt = () =>
      this.#store.transact((tx) => drive(open(tx, request, holder, this.#settings)));
    let opened = yield* value(attempt());
    const now = this.#settings.clock.now();
    const leaseMs = Math.min(this.#settings.leaseMs, this.#settings.expireMs);
    if ("full" in opened && leaseMs !== Infinity && now - this.#reapedAt >= leaseMs) {
      this.#reapedAt = now;
      yield* this.#pending();
      opened = yield* value(attempt());
    }
    if ("full" in opened) throw new TooManyQuestionsError(opened.full.what, opened.full.max);
    return opened;
  }

  /** Waits until question `id` is resolved, this object closes, or `signal` aborts. */
  async #wait(
    id: string,
    holder: string,
    keyed: boolean,
    signal: AbortSignal | undefined,
  ): Promise<QuestionOutcome> {
    this.#waiting.set(holder, { id, keyed });
    this.#waitedOn.set(id, (this.#waitedOn.get(id) ?? 0) + 1);
    const stopRenewing = keepHolding(this.#store, id, holder, keyed, this.#settings);
    // Left at the abort itself, so that the question is withdrawn at once over a store that
    // answers at once.
    let left: Promise<Left> | undefined;
    const onAbort = () => left ??= this.#leave(id, holder, withdrawalReason(signal!.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        if (this.#closer.signal.aborted) return await this.#closedOutcome(id);
        if (signal?.aborted) return await this.#withdrawn(onAbort(), signal);
        // Listening before the read, so that a change in between still wakes us.
        const woken = this.#wakers.listen(id, signal);
        await this.#wakers.watching();
        const stored = await this.#store.get(id);
        if (!stored || stored.record.status !== "pending") {
          woken.cancel();
          if (this.#closer.signal.aborted || signal?.aborted) continue;
          if (!stored) {
            return { status: "cancelled", reason: "the question is gone from the store" };
          }
          return outcomeOf(stored.record);
        }
        await woken.promise;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      stopRenewing();
      this.#waiting.delete(holder);
      const count = this.#waitedOn.get(id)! - 1;
      if (count > 0) this.#waitedOn.set(id, count);
      else this.#waitedOn.delete(id);
      this.#wakers.idle();
    }
  }

  /** What an ask of question `id` resolves with once this object closed. */
  async #closedOutcome(id: string): Promise<QuestionOutcome> {
    const closed = { status: "closed", reason: this.#closedReason } as const;
    try {
      const record = (await this.#store.get(id))?.record;
      // Resolved before the close (not withdrawn by it): that outcome stands.
      return record && record.status !== "pending" && !isWithdrawn(record)
        ? outcomeOf(record)
        : closed;
    } catch {
      return closed;
    }
  }

  /** Ends `holder`'s hold on `id`, withdrawing it with `reason` unless another ask holds it. */
  #leave(id: string, holder: string, reason: string): Promise<Left> {
    try {
      const left = Promise.resolve(
        this.#store.transact((tx) => drive(leave(tx, id, holder, reason, this.#settings))),
      );
      // Awaited by the ask, unless the close came first.
      left.catch(() => {});
      return left;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** What an aborted ask does once it left: the outcome if it was resolved first, else throws. */
  async #withdrawn(leaving: Promise<Left>, signal: AbortSignal): Promise<QuestionOutcome> {
    const { withdrawn, record } = await leaving;
    // Resolved first (by an operator, not by a withdrawal): that outcome stands.
    if (!withdrawn && record && record.status !== "pending" && !isWithdrawn(record)) {
      return outcomeOf(record);
    }
    throw signal.reason;
  }

  #resolve(id: string, outcome: QuestionOutcome): MaybePromise<boolean> {
    if (id.length > MAX_QUESTION_ID_LENGTH) return false;
    return this.#store.transact((tx) => drive(resolve(tx, id, outcome, this.#settings)));
  }

  /** `stored` as it stands once withdrawn if its askers are gone. */
  #reaped(stored: StoredQuestion): MaybePromise<StoredQuestion> {
    if (!lapsed(stored, this.#settings)) return stored;
    const { id } = stored.record.question;
    return drive(this.#reap(id, stored));
  }

  *#reap(id: string, stored: StoredQuestion): Steps<StoredQuestion> {
    const now = yield* value(this.#store.transact((tx) => drive(current(tx, id, this.#settings))));
    return now ?? stored;
  }

  *#pending(): Steps<readonly HumanQuestion[]> {
    const questions: HumanQuestion[] = [];
    for (const listed of yield* value(this.#store.pending())) {
      const stored = yield* value(this.#reaped(listed));
      if (stored.record.status === "pending") questions.push(stored.record.question);
    }
    return questions;
  }

  *#get(id: string): Steps<QuestionRecord | undefined> {
    const stored = yield* value(this.#store.get(id));
    return stored && (yield* value(this.#reaped(stored))).record;
  }

  *#resolved(limit: number): Steps<readonly QuestionRecord[]> {
    const stored = yield* value(this.#store.resolved(limit));
    return stored.map((s) => s.record);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#active.add(work);
    const forget = () => this.#active.delete(work);
    work.then(forget, forget);
    return work;
  }
}
