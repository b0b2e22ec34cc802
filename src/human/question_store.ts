import type { QuestionRecord } from "./question.ts";

/**
 * A value now, or a promise of it: a store in memory answers at once, so that the channel over
 * it keeps its operator methods synchronous; a durable store answers with promises.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MaybePromise } from "@outpost/agent-tools/human";
 * const now: MaybePromise<number> = 1;
 * const later: MaybePromise<number> = Promise.resolve(2);
 * assert.equal(now + await later, 3);
 * ```
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A question as a {@linkcode QuestionStore} keeps it. The store keeps what it is given as it is
 * given, fields it does not know included (a record may carry more than the lifecycle reads, such
 * as who asked), so that it round-trips through `JSON.stringify` and back unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { StoredQuestion } from "@outpost/agent-tools/human";
 * const stored: StoredQuestion = {
 *   seq: 1,
 *   key: "call_1",
 *   leases: { "ask-7": Date.parse("2026-01-01T00:01:00Z") },
 *   record: {
 *     status: "pending",
 *     question: { id: "q1", question: "Go?", options: [], multiSelect: false, askedAt: "2026-01-01T00:00:00.000Z" },
 *   },
 * };
 * assert.deepEqual(JSON.parse(JSON.stringify(stored)), stored);
 * ```
 */
export interface StoredQuestion {
  /** What the channel knows of the question: pending, or resolved with its outcome. */
  record: QuestionRecord;
  /** The idempotency key it was asked under, if any. */
  key?: string;
  /**
   * Its place in ask order, given by the store when the question is inserted: greater than that
   * of every question inserted before it, except by at most the store's
   * {@linkcode QuestionStore.lateBy}.
   */
  seq: number;
  /**
   * Who waits on the question, by holder (one per waiting ask), with the time in milliseconds on
   * the lifecycle's clock at which each hold lapses. Empty once the question is resolved. A
   * pending question whose holds have all lapsed has no asker left, and is withdrawn.
   */
  leases: Readonly<Record<string, number>>;
}

/**
 * What a {@linkcode QuestionStore} gives the function it runs atomically: reads of one
 * consistent state, and writes that take effect together when the function returns (or not at
 * all, when it throws).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { QuestionTransaction } from "@outpost/agent-tools/human";
 * // Releases one holder's lease, as the lifecycle does when an ask of a keyed question ends.
 * async function release(tx: QuestionTransaction, id: string, holder: string): Promise<boolean> {
 *   const stored = await tx.get(id);
 *   if (!stored || !(holder in stored.leases)) return false;
 *   const { [holder]: _, ...leases } = stored.leases;
 *   tx.update({ ...stored, leases });
 *   return true;
 * }
 * assert.equal(typeof release, "function");
 * ```
 */
export interface QuestionTransaction {
  /** The question `id`, or `undefined` for an id the store does not have (or forgot). */
  get(id: string): MaybePromise<StoredQuestion | undefined>;
  /** The question most recently inserted under `key`, if the store still has it. */
  byKey(key: string): MaybePromise<StoredQuestion | undefined>;
  /**
   * How many questions are pending: in the whole store, and with `sessionId` (`undefined`
   * counts those without one). A store may read these without isolation, so that concurrent asks
   * do not contend: asks that race may then pass a cap by as many as race.
   */
  counts(sessionId: string | undefined): MaybePromise<{ pending: number; inSession: number }>;
  /**
   * Stores a new, pending question (its id is new), gives it the next `seq`, and points its key,
   * if any, to it.
   */
  insert(question: Omit<StoredQuestion, "seq">): void;
  /**
   * Replaces the stored question of the same id and `seq` (read in this transaction) with
   * `stored`: new leases, or its resolved record. A resolved question leaves the pending list,
   * joins the resolved list, and is forgotten once the store's retention has passed.
   */
  update(stored: StoredQuestion): void;
}

/**
 * Where a question channel keeps its questions: the storage under the one question lifecycle of
 * {@linkcode StoreQuestionChannel}, which holds every rule (re-attach, leases, caps, withdrawal,
 * ask order, the first answer winning). A store has atomic updates, ordered lists and a way to
 * be woken; that is all a Redis, PostgreSQL or other channel needs to write. `MemoryQuestionChannel`
 * and `DenoKvQuestionChannel` are channels over stores of this package.
 *
 * A store forgets a resolved question once its retention has passed (its own option), by any
 * means it has: expiry, an alarm, a delete when it writes. It never forgets a pending one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { QuestionStore } from "@outpost/agent-tools/human";
 * // What an operator's screen needs from a store: the oldest questions waiting.
 * async function oldest(store: QuestionStore, count: number): Promise<string[]> {
 *   const waiting = await store.pending({ limit: count });
 *   return waiting.map((stored) => stored.record.question.question);
 * }
 * assert.equal(typeof oldest, "function");
 * ```
 */
export interface QuestionStore {
  /**
   * Runs `fn` atomically: its reads see one consistent state, and its writes apply together
   * once it returns, or not at all if it throws (the error is rethrown). A store with optimistic
   * concurrency may run `fn` again after a conflict, so `fn` acts through `tx` only.
   */
  transact<T>(fn: (tx: QuestionTransaction) => MaybePromise<T>): MaybePromise<T>;
  /** The question `id`, outside any transaction. */
  get(id: string): MaybePromise<StoredQuestion | undefined>;
  /**
   * The pending questions in ask order (by `seq`), those with a `seq` greater than `after` when
   * given, at most `limit` when given.
   */
  pending(options?: { after?: number; limit?: number }): MaybePromise<StoredQuestion[]>;
  /** The resolved questions still kept, most recently resolved first, at most `limit`. */
  resolved(limit: number): MaybePromise<StoredQuestion[]>;
  /**
   * Yields `[]` once it watches (a read after that misses no change), then after changes: each
   * yield carries the ids of questions inserted or resolved since the last one, or `undefined`
   * when the store cannot tell (then anything may have changed). Changes that come while the
   * consumer is busy may be folded into one yield. Ends when `signal` aborts, or the store is
   * closed. Lease changes need not wake it.
   */
  watch(signal: AbortSignal): AsyncIterable<readonly string[] | undefined>;
  /**
   * How far behind, in `seq`, a question may be committed after a later one was already listed
   * (default 0): a store that orders by its writers' clocks, without a shared counter, says how
   * far back the question feed must look again.
   */
  readonly lateBy?: number;
}
