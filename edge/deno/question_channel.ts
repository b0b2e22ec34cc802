import { SetupError } from "../../src/errors.ts";
import type { QuestionChannel } from "../../src/human/question_channel.ts";
import type {
  ApprovalDecision,
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "../../src/human/question.ts";
import type { QuestionLimits } from "../../src/human/question_limits.ts";
import { StoreQuestionChannel } from "../../src/human/store_question_channel.ts";
import { type Clock, MAX_TIMER_MS, systemClock } from "../../src/clock.ts";
import { checkOption, positiveInteger } from "../../src/option_checks.ts";
import { DenoKvQuestionStore, isClosedStore } from "./question_store.ts";

/**
 * Options of {@linkcode DenoKvQuestionChannel}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DenoKvQuestionChannel, type DenoKvQuestionChannelOptions } from "@outpost/agent-tools/deno";
 * const options: DenoKvQuestionChannelOptions = { prefix: ["my-agent", "questions"] };
 * const kv = await Deno.openKv(":memory:");
 * const channel = new DenoKvQuestionChannel(kv, options);
 * const outcome = channel.ask({ question: "Proceed?", options: [], multiSelect: false });
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, "Yes");
 *   break;
 * }
 * assert.deepEqual(await outcome, { status: "answered", answer: "Yes" });
 * // Its records live under the prefix:
 * assert.ok((await Array.fromAsync(kv.list({ prefix: ["my-agent", "questions"] }))).length > 0);
 * await channel.close();
 * kv.close();
 * ```
 */
export interface DenoKvQuestionChannelOptions {
  /**
   * The key prefix the channel keeps its data under (default `["outpost", "human"]`). Channels
   * on the same store and prefix, in any number of processes, share their questions.
   */
  prefix?: Deno.KvKey;
  /**
   * How long answered and cancelled questions are kept, for `get` and for re-attaching a re-run
   * tool call, before they expire (default 7 days). Pending questions are withdrawn when their
   * lease runs out instead (`leaseMs`, `expireMs`).
   */
  retainMs?: number;
  /**
   * How long after a question was resolved an ask with its key still re-attaches to it and gets
   * its outcome, in milliseconds (default `REATTACH_WINDOW_MS`: 10 minutes); later, the same ask
   * is asked afresh. At most `retainMs`, since an expired record cannot be re-attached to.
   */
  reattachMs?: number;
  /**
   * How often this channel object reads the store's change markers while an ask of it waits or
   * something watches it (default 1000 ms): one read per period however many wait. `kv.watch`
   * reports changes made in this process at once, but a local SQLite store does not report
   * other processes' writes, which this poll picks up. At most 2^31 - 1 (about 24.8 days), the
   * longest timer there is; `Infinity` turns polling off, for stores whose watch sees every
   * writer (Deno Deploy).
   */
  pollMs?: number;
  /**
   * How long a question asked without a `key` stays pending after its asker was last heard
   * from (default 30 000 ms). A waiting ask renews its lease three times per period; a question
   * whose lease ran out (its process crashed) can never be re-attached to, so any channel on the
   * store withdraws it when it next looks, and an answer to it is refused.
   */
  leaseMs?: number;
  /**
   * How long a question asked with a `key` stays pending once no ask waits on it any more
   * (default 1 hour): a retry of the same call within it re-attaches, and after it the question
   * is withdrawn as for an expired lease (`leaseMs`), and its key asks afresh. Waiting asks
   * renew it three times per period. At most 2^31 - 1.
   */
  expireMs?: number;
  /**
   * Caps on the questions pending at once in the store (from every process on this prefix) and
   * per session; beyond them `ask` throws `TooManyQuestionsError`.
   */
  limits?: QuestionLimits;
  /** Reads the time and sets the timers of leases, polls and windows (default the system's). */
  clock?: Clock;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * A durable {@linkcode QuestionChannel} on Deno KV: questions and answers survive restarts and
 * are shared by every process that opens the same store with the same prefix.
 *
 * - A question is written before its ask starts waiting; an answer is written, atomically and
 *   only if the question is still pending (the first answer wins), before `answer` resolves.
 * - Every write that asks or resolves also sets a change marker. A channel object keeps one
 *   `kv.watch` on the markers for all its waiting asks and `changes()` watchers, and reads the
 *   markers every `pollMs` for writes from other processes, which a local store's watch does not
 *   see; an idle wait costs nothing of its own.
 * - An ask whose `key` (with `askHuman`, the tool call's id in its session and run) already has
 *   the same question, with the same options, waits on that question or, if it was resolved
 *   within `reattachMs`, returns its outcome at once: a restarted agent that re-runs the same
 *   tool call gets the operator's answer, and nothing is asked twice. A question that was
 *   withdrawn or resolved longer ago, or a different question under the same key, is asked
 *   afresh and the key points to the new question.
 * - An answer or cancel reason longer than `MAX_ANSWER_LENGTH` is refused with a `RangeError`
 *   before anything is written, as by every channel; the limit keeps a record under Deno KV's
 *   64 KiB per value for any question `askHuman` lets through.
 * - `questions()` delivers questions asked by any process, in the order they were asked (by
 *   the asking process's clock; concurrent asks commit independently, none waits for another).
 * - `limits` caps the questions pending at once, in the store and per session; beyond them
 *   `ask` throws `TooManyQuestionsError` and stores nothing. The counts are kept in two sum
 *   counters no ask has to check, so asks that race may pass a cap by as many as race.
 * - `close()` closes this channel object only: its waiting asks resolve `{ status: "closed" }`
 *   and its iterators end, but questions asked with a key stay pending for a restarted process
 *   to re-attach to (cancel them to withdraw them). Questions asked without a key, which nothing
 *   can re-attach to, are withdrawn. It does not close `kv`, which stays yours.
 * - Every question holds a lease its waiting asks renew, each channel object's hold apart (an
 *   ask that gives up withdraws the question only when no other object's ask still holds it):
 *   `leaseMs` for one asked without a key,
 *   `expireMs` for a keyed one. When the asking process dies without closing (or, for a keyed
 *   question, no retry re-attaches), the lease runs out and any channel on the store withdraws
 *   the question the next time it lists or reads it, is asked to answer it (which then resolves
 *   `false`), or finds a cap reached.
 *
 * It is `StoreQuestionChannel` over a store on Deno KV. Keys under the prefix: `q/<id>` (the
 * question, with its holds), `key/<SHA-256 of the key>` (so that long keys fit Deno KV's key size
 * limit), `pending/<seq>/<id>` (`seq`: the ask time in ms times 1024 plus the asking object's
 * count), `resolved/<resolution time in ms>/<id>` (the history `resolved` lists), `count` and
 * `count/session/<SHA-256>` (the caps' counters), and `changed/any` (the marker).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman } from "@outpost/agent-tools/human";
 * import { DenoKvQuestionChannel } from "@outpost/agent-tools/deno";
 *
 * const kv = await Deno.openKv(":memory:"); // `Deno.openKv()` for the default, persistent store
 * const channel = new DenoKvQuestionChannel(kv, { prefix: ["outpost", "human"] });
 * const tools = [askHuman(channel, { timeoutMs: 30 * 60_000 })];
 * const asking = tools[0].execute({ question: "Ship it?" });
 * // Elsewhere, maybe in another process on the same store:
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, "Ship it");
 *   break;
 * }
 * assert.match(await asking, /Ship it/);
 * await channel.close();
 * kv.close();
 * ```
 */
export class DenoKvQuestionChannel extends StoreQuestionChannel implements QuestionChannel {
  /** Opens the channel on `kv`; throws {@linkcode SetupError} for bad options. */
  constructor(kv: Deno.Kv, options: DenoKvQuestionChannelOptions = {}) {
    const {
      prefix = ["outpost", "human"],
      retainMs = 7 * DAY,
      pollMs = 1000,
      leaseMs = 30_000,
      expireMs = 60 * 60_000,
      clock = systemClock,
      ...lifecycle
    } = options;
    if (typeof kv?.atomic !== "function" || typeof kv.watch !== "function") {
      throw new SetupError("DenoKvQuestionChannel needs a Deno.Kv store.", {
        hint: "Pass `await Deno.openKv()`.",
      });
    }
    if (!Array.isArray(prefix)) {
      throw new SetupError("prefix must be a Deno.KvKey, an array such as ['outpost', 'human'].");
    }
    if (!(pollMs === Infinity || (pollMs > 0 && pollMs <= MAX_TIMER_MS))) {
      throw new SetupError(
        `pollMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}, not ${pollMs}.`,
        { hint: "Pass Infinity to rely on kv.watch alone." },
      );
    }
    checkOption("retainMs", retainMs, positiveInteger);
    const store = new DenoKvQuestionStore(kv, { prefix: [...prefix], retainMs, pollMs, clock });
    super(store, { ...lifecycle, leaseMs, expireMs, clock });
  }

  /**
   * Asks a question, or re-attaches to the same question already asked under `request.key`, and
   * waits for its outcome. Aborting `signal` withdraws the question (once no other ask holds it)
   * and rejects with the signal's reason after the withdrawal is stored; if the question was
   * answered or cancelled first, it resolves with that outcome instead. A new question beyond
   * `limits` rejects with `TooManyQuestionsError`; a store closed meanwhile resolves `closed`.
   */
  override async ask(
    request: QuestionRequest,
    options?: { signal?: AbortSignal },
  ): Promise<QuestionOutcome> {
    try {
      return await super.ask(request, options);
    } catch (error) {
      if (!isClosedStore(error)) throw error;
      return { status: "closed", reason: "the Deno KV store was closed" };
    }
  }

  /** The questions still waiting for an answer, from every process, oldest first. */
  override get pending(): Promise<readonly HumanQuestion[]> {
    return Promise.resolve(super.pending);
  }

  /**
   * The questions as any process asks them. Questions already pending when iteration starts come
   * first, in ask order; a question resolved before the iterator reaches it is skipped. It ends
   * when this channel object closes or the store is closed. Each call returns an independent
   * iterator, meant for one consumer.
   */
  override questions(): AsyncIterableIterator<HumanQuestion> {
    const feed = super.questions();
    const iterator: AsyncIterableIterator<HumanQuestion> = {
      next: async () => {
        try {
          return await feed.next();
        } catch (error) {
          if (!isClosedStore(error)) throw error;
          return await feed.return!();
        }
      },
      return: () => feed.return!(),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** What the store holds for `id`, or `undefined` for an unknown or expired id. */
  override async get(id: string): Promise<QuestionRecord | undefined> {
    return await super.get(id);
  }

  /**
   * The most recently resolved questions still kept (for `retainMs`), from every process,
   * newest first, at most `limit` (capped at 100). It reads the resolution index backwards, so
   * its cost grows with `limit`, not with how many questions the store holds. Throws a
   * `RangeError` for a `limit` that is not a positive whole number.
   */
  override async resolved(limit: number): Promise<readonly QuestionRecord[]> {
    return await super.resolved(limit);
  }

  /**
   * Stores the answer (a text or, for an approval, a decision) if the question is still
   * pending; `true` when this call resolved it, or the question already has this very answer (a
   * retry after a response lost to a crash). Throws a `RangeError`, writing nothing, for a text
   * or reason longer than `MAX_ANSWER_LENGTH`.
   */
  override answer(id: string, answer: string | ApprovalDecision): Promise<boolean> {
    return Promise.resolve(super.answer(id, answer));
  }

  /**
   * Cancels the question if it is still pending; `true` when this call resolved it, or an
   * earlier cancel did with the same reason. Throws a `RangeError`, writing nothing, for a
   * reason longer than `MAX_ANSWER_LENGTH`.
   */
  override cancel(id: string, reason?: string): Promise<boolean> {
    return Promise.resolve(super.cancel(id, reason));
  }

  /**
   * Closes this channel object: waiting asks resolve `{ status: "closed", reason }`, iterators
   * end, later asks resolve closed at once. Questions asked with a key stay pending, so a
   * restarted process can re-attach to them; those asked without one, which nothing can
   * re-attach to, are withdrawn. Resolves once this object's waits have ended. Idempotent.
   */
  override async close(reason?: string): Promise<void> {
    await super.close(reason);
  }
}
