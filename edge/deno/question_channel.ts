import { type QuestionChannel, SetupError } from "../../mod.ts";
import {
  type ApprovalDecision,
  type HumanQuestion,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
  REATTACH_WINDOW_MS,
} from "../../src/human/mod.ts";
import { questionFeed } from "../../src/human/question_feed.ts";
import {
  newQuestion,
  outcomeOf,
  reattaches,
  resolution,
  withdrawalReason,
  WITHDRAWN,
} from "../../src/human/question_lifecycle.ts";
import {
  answerOutcome,
  checkLength,
  MAX_QUESTION_ID_LENGTH,
  reattachOption,
  resolvedLimit,
} from "../../src/human/question_support.ts";
import { type Clock, MAX_TIMER_MS, systemClock } from "../../src/clock.ts";
import { checkLimits, limitsOption, type QuestionLimits } from "../../src/human/question_limits.ts";
import { checkOption, positiveInteger, timeoutMs } from "../../src/option_checks.ts";
import { sha256 } from "../../src/sha256.ts";

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

/** What the channel keeps under `[...prefix, "q", id]`. */
interface Stored {
  /**
   * Where the question sits in the `pending` index: the time it was asked and the ask count of
   * the object that asked it. No shared counter, so that concurrent asks do not contend.
   */
  order?: [number, number];
  /** The `pending` index entry of a question stored before `order` (a shared counter). */
  seq?: number;
  key?: string;
  /** Set when the question was withdrawn because its ask went away; its key then asks afresh. */
  withdrawn?: true;
  /** Set when the pending counters count the question (not those stored before the caps). */
  counted?: true;
  record: QuestionRecord;
}

const DAY = 24 * 60 * 60 * 1000;
/**
 * How far back the indexes are read again for entries committed late: an entry is ordered by
 * the time its writer read before committing, so one may land behind entries already read.
 */
const LATE_COMMIT_MS = 60_000;
/**
 * What `lease/<id>` holds: when each channel object waiting on the question stops holding it,
 * by the object's id, so that one object giving up does not withdraw a question another still
 * waits on. A bare number is a lease stored before holders were told apart.
 */
type Lease = Record<string, number> | number;

/** The holders of `lease` whose time has not run out at `now`, leaving out `except`. */
function liveHolders(lease: Lease | null, now: number, except?: string): Record<string, number> {
  const holders = typeof lease === "number" ? { "": lease } : lease ?? {};
  return Object.fromEntries(
    Object.entries(holders).filter(([holder, end]) => holder !== except && end > now),
  );
}

/** Subtracts one from a Deno KV sum counter (which wraps around at 2^64). */
const MINUS_ONE = 0xffff_ffff_ffff_ffffn;

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
 * Keys under the prefix: `q/<id>`, `key/<SHA-256 of the key>` (so that long keys fit Deno KV's
 * key size limit), `pending/<ask time in ms>/<ask count>/<id>`, `lease/<id>`,
 * `resolved/<resolution time in ms>/<id>` (the history `resolved` lists), `count` and
 * `count/session/<SHA-256>` (the caps' counters), and `changed/asked`, `changed/resolved` (the
 * markers).
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
export class DenoKvQuestionChannel implements QuestionChannel {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #retainMs: number;
  readonly #reattachMs: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #expireMs: number;
  readonly #limits: Required<QuestionLimits>;
  readonly #clock: Clock;
  /** Ids of the questions without a key that asks of this object wait on. */
  readonly #unkeyed = new Set<string>();
  /** Aborted by `close()`: wakes every wait and iterator of this object. */
  readonly #closer = new AbortController();
  /** Local asks waiting per question id: a question is withdrawn only when its last one aborts. */
  readonly #waiting = new Map<string, number>();
  /** Waits and iterator steps in flight, which `close()` lets finish. */
  readonly #active = new Set<Promise<unknown>>();
  /** Wakes this object's waits when their questions are resolved, by any process. */
  readonly #resolutions: Resolutions;
  /** This object's name among the holders of a lease. */
  readonly #holder = crypto.randomUUID();
  /** How many asks this object took: orders its asks within one millisecond. */
  #asks = 0;
  /** When a cap last made this object look for lapsed leases. */
  #reapedAt = -Infinity;
  #closedReason = "channel closed";

  /** Opens the channel on `kv`; throws {@linkcode SetupError} for bad options. */
  constructor(kv: Deno.Kv, options: DenoKvQuestionChannelOptions = {}) {
    const {
      prefix = ["outpost", "human"],
      retainMs = 7 * DAY,
      pollMs = 1000,
      leaseMs = 30_000,
      expireMs = 60 * 60_000,
      reattachMs = REATTACH_WINDOW_MS,
      clock = systemClock,
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
    this.#kv = kv;
    this.#leaseMs = checkOption("leaseMs", leaseMs, timeoutMs());
    this.#expireMs = checkOption("expireMs", expireMs, timeoutMs());
    this.#prefix = [...prefix];
    this.#retainMs = checkOption("retainMs", retainMs, positiveInteger);
    this.#reattachMs = reattachOption(reattachMs);
    this.#pollMs = pollMs;
    this.#limits = limitsOption(options.limits);
    this.#clock = clock;
    this.#resolutions = new Resolutions(
      kv,
      this.#key("changed", "resolved"),
      this.#key("resolved"),
      pollMs,
      clock,
    );
  }

  /**
   * Asks a question, or re-attaches to the same question already asked under `request.key`, and
   * waits for its outcome. Aborting `signal` withdraws the question (once no other ask of this
   * object waits on it) and rejects with the signal's reason after the withdrawal is stored; if
   * the question was answered or cancelled first, it resolves with that outcome instead. A new
   * question beyond `limits` rejects with `TooManyQuestionsError`.
   */
  async ask(
    request: QuestionRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<QuestionOutcome> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#closer.signal.aborted) return { status: "closed", reason: this.#closedReason };
    // Its place in ask order, taken at the call: asks of one object keep the order they came in.
    const order: [number, number] = [this.#clock.now(), ++this.#asks];
    // Tracked from the start, so that `close()` also waits for an ask still storing its question.
    return await this.#track((async () => {
      const { stored, fresh } = await this.#findOrAsk(request, order);
      if (stored.record.status !== "pending") return outcomeOf(stored.record);
      const { id } = stored.record.question;
      // A re-attached ask holds the lease from now, however little of it was left.
      if (!fresh) await this.#renewLease(id, this.#leaseFor(stored));
      return await this.#waitHeld(id, stored.key !== undefined, signal);
    })());
  }

  /** The questions still waiting for an answer, from every process, oldest first. */
  get pending(): Promise<readonly HumanQuestion[]> {
    return (async () => {
      const ids: string[] = [];
      for await (const entry of this.#kv.list<string>({ prefix: this.#key("pending") })) {
        ids.push(entry.value);
      }
      const questions: HumanQuestion[] = [];
      for (let i = 0; i < ids.length; i += 10) {
        const batch = ids.slice(i, i + 10).map((id) => this.#key("q", id));
        for (const entry of await this.#kv.getMany<Stored[]>(batch)) {
          const stored = entry.value && await this.#reap(entry.value);
          if (stored?.record.status === "pending") questions.push(stored.record.question);
        }
      }
      return questions;
    })();
  }

  /**
   * The questions as any process asks them. Questions already pending when iteration starts come
   * first, in ask order; a question resolved before the iterator reaches it is skipped. It ends
   * when this channel object closes or the store is closed. Each call returns an independent
   * iterator, meant for one consumer.
   */
  questions(): AsyncIterableIterator<HumanQuestion> {
    const closer = this.#closer.signal;
    let watch: KeyWatch | undefined;
    // What this iterator delivered lately, by id, with its ask time: after a wake, the index is
    // read again from a while before the newest delivered, for entries committed late.
    const delivered = new Map<string, number>();
    let newest = -Infinity;
    // Where to go on after a delivery, until a wake.
    let resume: Deno.KvKey | undefined;
    let count = 0;
    const pending = this.#key("pending");
    const feed = questionFeed({
      after: async () => {
        if (closer.aborted) return undefined;
        try {
          // Watch before listing, so that an ask committed in between still wakes us.
          watch ??= new KeyWatch(
            this.#kv,
            [this.#key("changed", "asked")],
            this.#pollMs,
            this.#clock,
          );
          const start = resume ??
            (Number.isFinite(newest) ? [...pending, newest - LATE_COMMIT_MS] : undefined);
          const list = this.#kv.list<string>(
            start ? { prefix: pending, start } : { prefix: pending },
          );
          for await (const entry of list) {
            if (delivered.has(entry.value)) continue;
            const found = (await this.#kv.get<Stored>(this.#key("q", entry.value))).value;
            const stored = found && await this.#reap(found);
            if (stored?.record.status !== "pending") continue;
            const at = entry.key[pending.length] as number;
            delivered.set(entry.value, at);
            newest = Math.max(newest, at);
            resume = entry.key;
            return { seq: ++count, question: stored.record.question };
          }
          for (const [id, at] of delivered) if (at < newest - LATE_COMMIT_MS) delivered.delete(id);
          return undefined;
        } catch (error) {
          if (isClosedStore(error)) return undefined;
          throw error;
        }
      },
      wait: async (signal) => {
        resume = undefined;
        if (closer.aborted || !watch) return false;
        try {
          return await watch.changed(AbortSignal.any([signal, closer]));
        } catch (error) {
          if (isClosedStore(error)) return false;
          throw error;
        }
      },
      close: () => watch?.close(),
    });
    // Tracked, so that `close()` resolves once the steps in flight have released their watch.
    const iterator: AsyncIterableIterator<HumanQuestion> = {
      next: () => this.#track(feed.next()),
      return: () => this.#track(feed.return!()),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * Yields once it watches, then after each change any process made (a question asked,
   * answered, cancelled or withdrawn), folding changes that come while the consumer is busy.
   * It costs one `kv.watch` and, every `pollMs`, one read of the change markers. Ends when
   * `signal` aborts, this object closes, or the store is closed.
   */
  async *changes(signal: AbortSignal): AsyncIterable<void> {
    const stop = AbortSignal.any([signal, this.#closer.signal]);
    const markers = [this.#key("changed", "asked"), this.#key("changed", "resolved")];
    const watch = new KeyWatch(this.#kv, markers, this.#pollMs, this.#clock);
    const read = async () =>
      (await this.#kv.getMany(markers)).map((entry) => entry.versionstamp).join();
    try {
      let seen = await read();
      yield;
      while (!stop.aborted && await watch.changed(stop) && !stop.aborted) {
        const now = await read();
        if (now === seen) continue;
        seen = now;
        yield;
      }
    } catch (error) {
      if (!isClosedStore(error)) throw error;
    } finally {
      await watch.close();
    }
  }

  /** What the store holds for `id`, or `undefined` for an unknown or expired id. */
  async get(id: string): Promise<QuestionRecord | undefined> {
    if (id.length > MAX_QUESTION_ID_LENGTH) return undefined;
    const stored = (await this.#kv.get<Stored>(this.#key("q", id))).value;
    return stored ? (await this.#reap(stored)).record : undefined;
  }

  /**
   * The most recently resolved questions still kept (for `retainMs`), from every process,
   * newest first, at most `limit` (capped at 100). It reads the resolution index backwards, so
   * its cost grows with `limit`, not with how many questions the store holds. Throws a
   * `RangeError` for a `limit` that is not a positive whole number.
   */
  async resolved(limit: number): Promise<readonly QuestionRecord[]> {
    const count = resolvedLimit(limit);
    const ids: string[] = [];
    const list = this.#kv.list<string>({ prefix: this.#key("resolved") }, {
      reverse: true,
      limit: count,
    });
    for await (const entry of list) ids.push(entry.value);
    const records: QuestionRecord[] = [];
    // getMany takes at most 10 keys.
    for (let i = 0; i < ids.length; i += 10) {
      const batch = ids.slice(i, i + 10).map((id) => this.#key("q", id));
      for (const entry of await this.#kv.getMany<Stored[]>(batch)) {
        // An index entry may outlive its record by a moment: both expire, not together.
        if (entry.value && entry.value.record.status !== "pending") {
          records.push(entry.value.record);
        }
      }
    }
    return records;
  }

  /**
   * Stores the answer (a text or, for an approval, a decision) if the question is still
   * pending; `true` when this call resolved it, or the question already has this very answer (a
   * retry after a response lost to a crash). Throws a `RangeError`, writing nothing, for a text
   * or reason longer than `MAX_ANSWER_LENGTH`.
   */
  answer(id: string, answer: string | ApprovalDecision): Promise<boolean> {
    return this.#resolve(id, answerOutcome(answer));
  }

  /**
   * Cancels the question if it is still pending; `true` when this call resolved it, or an
   * earlier cancel did with the same reason. Throws a `RangeError`, writing nothing, for a
   * reason longer than `MAX_ANSWER_LENGTH`.
   */
  cancel(id: string, reason = "cancelled"): Promise<boolean> {
    checkLength("reason", reason);
    return this.#resolve(id, { status: "cancelled", reason });
  }

  /**
   * Closes this channel object: waiting asks resolve `{ status: "closed", reason }`, iterators
   * end, later asks resolve closed at once. Questions asked with a key stay pending, so a
   * restarted process can re-attach to them; those asked without one, which nothing can
   * re-attach to, are withdrawn. Resolves once this object's waits have ended. Idempotent.
   */
  async close(reason = "channel closed"): Promise<void> {
    if (!this.#closer.signal.aborted) {
      this.#closedReason = reason;
      this.#closer.abort();
    }
    await Promise.allSettled(this.#active);
  }

  #key(...parts: Deno.KvKeyPart[]): Deno.KvKey {
    return [...this.#prefix, ...parts];
  }

  /** Where the id of the question asked under `key` is kept. */
  async #indexKey(key: string): Promise<Deno.KvKey> {
    return this.#key("key", await sha256(key));
  }

  /** The `pending` index entry of a stored question. */
  #pendingKey(stored: Stored): Deno.KvKey {
    return stored.order
      ? this.#key("pending", ...stored.order, stored.record.question.id)
      : this.#key("pending", stored.seq!);
  }

  /** The counters a question counts in: the store's, and its session's. */
  async #countKeys(sessionId: string | undefined): Promise<[Deno.KvKey, Deno.KvKey]> {
    return [
      this.#key("count"),
      this.#key("count", "session", await sha256(JSON.stringify(sessionId ?? null))),
    ];
  }

  /**
   * Returns the question already asked under `request.key` if it asks the same and was not
   * withdrawn; otherwise stores a new one, and points the key to it.
   */
  async #findOrAsk(
    request: QuestionRequest,
    order: [number, number],
  ): Promise<{ stored: Stored; fresh: boolean }> {
    const indexKey = request.key === undefined ? undefined : await this.#indexKey(request.key);
    const countKeys = await this.#countKeys(request.sessionId);
    for (;;) {
      let index: Deno.KvEntryMaybe<string> | undefined;
      const now = this.#clock.now();
      if (indexKey) {
        index = await this.#kv.get<string>(indexKey);
        if (index.value !== null) {
          const found = (await this.#kv.get<Stored>(this.#key("q", index.value))).value;
          const existing = found && await this.#reap(found);
          if (
            existing &&
            reattaches(existing.record, existing.withdrawn === true, request, this.#reattachMs, now)
          ) return { stored: existing, fresh: false };
        }
      }
      await this.#checkLimits(countKeys);
      const question = newQuestion(request, order[0]);
      const stored: Stored = {
        order,
        ...(request.key === undefined ? {} : { key: request.key }),
        counted: true,
        record: { status: "pending", question },
      };
      const leaseMs = this.#leaseFor(stored);
      // No key every ask checks: concurrent asks commit side by side, without retries.
      const op = this.#kv.atomic()
        .set(this.#key("q", question.id), stored)
        .set(this.#pendingKey(stored), question.id)
        .set(this.#key("lease", question.id), { [this.#holder]: now + leaseMs }, {
          expireIn: leaseMs * 4,
        })
        .sum(countKeys[0], 1n)
        .sum(countKeys[1], 1n)
        .set(this.#key("changed", "asked"), question.id);
      if (indexKey) op.check(index!).set(indexKey, question.id);
      if ((await commit(op)).ok) return { stored, fresh: true };
    }
  }

  /** How long a lease on `stored` lasts: `expireMs` for a keyed question, else `leaseMs`. */
  #leaseFor(stored: Stored): number {
    return stored.key === undefined ? this.#leaseMs : this.#expireMs;
  }

  /**
   * Throws `TooManyQuestionsError` when a cap is reached. Before refusing, it withdraws the
   * questions whose leases ran out (at most once per `leaseMs`), which frees their places.
   */
  async #checkLimits(countKeys: [Deno.KvKey, Deno.KvKey]): Promise<void> {
    const read = async () => {
      const [total, session] = await this.#kv.getMany<[Deno.KvU64, Deno.KvU64]>(countKeys);
      return [counted(total.value), counted(session.value)] as const;
    };
    let [total, session] = await read();
    const full = () =>
      total >= this.#limits.maxPending || session >= this.#limits.maxPendingPerSession;
    const now = this.#clock.now();
    if (full() && now - this.#reapedAt >= this.#leaseMs) {
      this.#reapedAt = now;
      await this.pending;
      [total, session] = await read();
    }
    checkLimits(this.#limits, total, session);
  }

  /**
   * Waits on question `id`, holding its lease: renewed while this object waits, and for a
   * question without a key (which nothing can re-attach to) given up, withdrawing the question,
   * when this object closes.
   */
  async #waitHeld(
    id: string,
    keyed: boolean,
    signal: AbortSignal | undefined,
  ): Promise<QuestionOutcome> {
    if (!keyed) this.#unkeyed.add(id);
    const leaseMs = keyed ? this.#expireMs : this.#leaseMs;
    let cancel = () => {};
    const renew = () => {
      cancel = this.#clock.setTimer(() => {
        void this.#renewLease(id, leaseMs);
        renew();
      }, leaseMs / 3);
    };
    renew();
    try {
      return await this.#wait(id, signal);
    } finally {
      cancel();
      if (!keyed) {
        if (this.#closer.signal.aborted) {
          const reason = WITHDRAWN.closed(this.#closedReason);
          await this.#resolve(id, { status: "cancelled", reason }, true).catch(() => {
            // A closed store keeps it pending until the lease runs out and another channel reaps it.
          });
        }
        this.#unkeyed.delete(id);
      }
    }
  }

  /** Waits until question `id` is resolved, this object closes, or `signal` aborts. */
  async #wait(id: string, signal: AbortSignal | undefined): Promise<QuestionOutcome> {
    this.#waiting.set(id, (this.#waiting.get(id) ?? 0) + 1);
    const wake = signal ? AbortSignal.any([signal, this.#closer.signal]) : this.#closer.signal;
    const key = this.#key("q", id);
    try {
      for (;;) {
        if (signal?.aborted) {
          const withdrawal = {
            status: "cancelled",
            reason: withdrawalReason(signal.reason),
          } as const;
          if (this.#waiting.get(id) === 1 && await this.#resolve(id, withdrawal, true)) {
            throw signal.reason;
          }
          // The question was resolved first (maybe by a process whose write the watch has not
          // reported yet): its outcome stands, as with a channel in memory.
          const stored = (await this.#kv.get<Stored>(key)).value;
          if (stored && stored.record.status !== "pending" && !stored.withdrawn) {
            return outcomeOf(stored.record);
          }
          throw signal.reason;
        }
        if (this.#closer.signal.aborted) return { status: "closed", reason: this.#closedReason };
        // Listening before the read, so that a resolution in between still wakes us.
        const resolved = this.#resolutions.listen(id, wake);
        const stored = (await this.#kv.get<Stored>(key)).value;
        if (!stored || stored.record.status !== "pending") resolved.cancel();
        if (!stored) return { status: "cancelled", reason: "the question is gone from the store" };
        if (stored.record.status !== "pending") return outcomeOf(stored.record);
        if (!(await resolved.promise)) break;
      }
    } catch (error) {
      if (!isClosedStore(error)) throw error;
    } finally {
      const count = this.#waiting.get(id)! - 1;
      if (count === 0) this.#waiting.delete(id);
      else this.#waiting.set(id, count);
    }
    return { status: "closed", reason: "the Deno KV store was closed" };
  }

  /** Resolves question `id` if it is still pending; `true` when this call did. */
  async #resolve(
    id: string,
    outcome: QuestionOutcome,
    withdrawn = false,
    onlyIfOrphaned = false,
  ): Promise<boolean> {
    // No id that long was ever stored, and as a key it would be refused as too large.
    if (id.length > MAX_QUESTION_ID_LENGTH) return false;
    const key = this.#key("q", id);
    for (;;) {
      const entry = await this.#kv.get<Stored>(key);
      const stored = entry.value;
      if (!stored) return false;
      const now = this.#clock.now();
      const next = resolution(stored.record, outcome, new Date(now).toISOString(), withdrawn);
      if ("done" in next) return next.done;
      // A question another process asked is its askers' only while its lease holds.
      let lease: Deno.KvEntryMaybe<Lease> | undefined;
      if (!this.#unkeyed.has(id) && !this.#waiting.has(id)) {
        lease = await this.#kv.get<Lease>(this.#key("lease", id));
        // A keyed question stored before keyed questions had leases has none, and is not orphaned.
        const orphaned = lease.value === null
          ? stored.key === undefined || stored.order !== undefined
          : Object.keys(liveHolders(lease.value, now)).length === 0;
        if (orphaned !== onlyIfOrphaned) {
          // Nobody waits for an answer to an orphan: it is withdrawn instead, and refused.
          if (orphaned) await this.#withdrawOrphan(stored);
          return false;
        }
      } else if (onlyIfOrphaned) {
        return false;
      } else if (withdrawn) {
        // This object's last ask gave up; an ask of another object may still wait on it.
        lease = await this.#kv.get<Lease>(this.#key("lease", id));
        if (Object.keys(liveHolders(lease.value, now, this.#holder)).length > 0) {
          await this.#renewLease(id, 0, true);
          return false;
        }
      }
      const { record } = next;
      const { question } = record;
      const expireIn = this.#retainMs;
      const op = this.#kv.atomic()
        .check(entry)
        .set(key, { ...stored, ...(withdrawn ? { withdrawn } : {}), record }, { expireIn })
        .delete(this.#pendingKey(stored))
        .delete(this.#key("lease", id))
        // The history index, in resolution order; it expires with the record.
        .set(this.#key("resolved", now, id), id, { expireIn })
        .set(this.#key("changed", "resolved"), id);
      if (stored.counted) {
        for (const countKey of await this.#countKeys(question.sessionId)) {
          op.sum(countKey, MINUS_ONE);
        }
      }
      // A renewal in between means the asker is alive after all.
      if (lease) op.check(lease);
      if (stored.key !== undefined) {
        // The key expires with its question, unless it points to a newer question by now.
        const indexKey = await this.#indexKey(stored.key);
        const index = await this.#kv.get<string>(indexKey);
        if (index.value === id) op.check(index).set(indexKey, id, { expireIn });
      }
      if ((await commit(op)).ok) return true;
    }
  }

  /** Withdraws a question whose lease ran out: its askers are gone. */
  #withdrawOrphan(stored: Stored): Promise<boolean> {
    const reason = stored.key === undefined ? WITHDRAWN.lapsed : WITHDRAWN.expired;
    return this.#resolve(stored.record.question.id, { status: "cancelled", reason }, true, true);
  }

  /**
   * Extends this object's hold on question `id`, which an ask of it waits on, to `leaseMs` from
   * now; or, with `release`, gives the hold up. Holds that ran out are dropped meanwhile.
   */
  async #renewLease(id: string, leaseMs: number, release = false): Promise<void> {
    const key = this.#key("lease", id);
    try {
      for (;;) {
        const entry = await this.#kv.get<Lease>(key);
        const now = this.#clock.now();
        const holders = liveHolders(entry.value, now, this.#holder);
        if (!release) holders[this.#holder] = now + leaseMs;
        const ends = Object.values(holders);
        const op = this.#kv.atomic().check(entry);
        if (ends.length === 0) op.delete(key);
        else op.set(key, holders, { expireIn: Math.max(Math.max(...ends) - now, 1) * 4 });
        if ((await commit(op)).ok) return;
      }
    } catch {
      // A closed store ends the wait anyway; a failed renewal is retried at the next tick.
    }
  }

  /**
   * `stored` as it stands once a pending question whose lease ran out is withdrawn (an unkeyed
   * question from before leases has none, and its asker is gone too).
   */
  async #reap(stored: Stored): Promise<Stored> {
    if (stored.record.status !== "pending") return stored;
    const { id } = stored.record.question;
    if (this.#unkeyed.has(id) || this.#waiting.has(id)) return stored;
    const lease = (await this.#kv.get<Lease>(this.#key("lease", id))).value;
    if (Object.keys(liveHolders(lease, this.#clock.now())).length > 0) return stored;
    if (lease === null && stored.key !== undefined && !stored.order) {
      // A keyed question stored before keyed questions had leases: its time starts now.
      await this.#renewLease(id, this.#expireMs);
      return stored;
    }
    await this.#withdrawOrphan(stored);
    return (await this.#kv.get<Stored>(this.#key("q", id))).value ?? stored;
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#active.add(work);
    const forget = () => this.#active.delete(work);
    work.then(forget, forget);
    return work;
  }
}

/** A sum counter's value as a count; one that wrapped below zero counts as none. */
function counted(value: Deno.KvU64 | null): number {
  if (value === null || value.value >= 2n ** 63n) return 0;
  return Number(value.value);
}

/**
 * Wakes the waits of one channel object when their questions are resolved, by any process: one
 * watch on the `resolved` change marker for all of them, however many wait. When the marker
 * changes, the resolution index is read from shortly before the last read, and the waits on the
 * questions found there are woken.
 */
class Resolutions {
  readonly #kv: Deno.Kv;
  readonly #marker: Deno.KvKey;
  readonly #index: Deno.KvKey;
  readonly #pollMs: number;
  readonly #clock: Clock;
  readonly #listeners = new Map<string, Set<(result: boolean | { error: unknown }) => void>>();
  #running = false;
  /** Ends the watch's current wait, when the last listener leaves. */
  #idle?: AbortController;

  constructor(kv: Deno.Kv, marker: Deno.KvKey, index: Deno.KvKey, pollMs: number, clock: Clock) {
    this.#kv = kv;
    this.#marker = marker;
    this.#index = index;
    this.#pollMs = pollMs;
    this.#clock = clock;
  }

  /**
   * Listens for a resolution of `id`: the promise resolves `true` to look again (maybe it was
   * resolved, or `signal` aborted), `false` once the store is closed.
   */
  listen(id: string, signal: AbortSignal): { promise: Promise<boolean>; cancel(): void } {
    let settle!: (result: boolean | { error: unknown }) => void;
    const promise = new Promise<boolean>((resolve, reject) => {
      settle = (result) => {
        const set = this.#listeners.get(id);
        if (set?.delete(settle) && set.size === 0) this.#listeners.delete(id);
        if (this.#listeners.size === 0) this.#idle?.abort();
        signal.removeEventListener("abort", onAbort);
        if (typeof result === "boolean") resolve(result);
        else reject(result.error);
      };
    });
    const onAbort = () => settle(true);
    if (signal.aborted) {
      settle(true);
      return { promise, cancel: () => {} };
    }
    signal.addEventListener("abort", onAbort, { once: true });
    let set = this.#listeners.get(id);
    if (!set) this.#listeners.set(id, set = new Set());
    set.add(settle);
    if (!this.#running) void this.#run();
    return { promise, cancel: () => settle(true) };
  }

  /** Watches the marker while anyone listens. */
  async #run(): Promise<void> {
    this.#running = true;
    let watch: KeyWatch | undefined;
    let ended: boolean | { error: unknown } = true;
    let seen: string | null | undefined;
    // Read from a while back at first: a listener may have read its record just before.
    let since = this.#clock.now();
    try {
      watch = new KeyWatch(this.#kv, [this.#marker], this.#pollMs, this.#clock);
      while (this.#listeners.size > 0) {
        const { versionstamp } = await this.#kv.get(this.#marker);
        if (versionstamp !== seen) {
          seen = versionstamp;
          const now = this.#clock.now();
          const start = [...this.#index, since - LATE_COMMIT_MS];
          for await (const entry of this.#kv.list<string>({ prefix: this.#index, start })) {
            for (const settle of [...this.#listeners.get(entry.value) ?? []]) settle(true);
          }
          since = now;
        }
        if (this.#listeners.size === 0) break;
        this.#idle = new AbortController();
        if (!(await watch.changed(this.#idle.signal))) {
          ended = false;
          break;
        }
      }
    } catch (error) {
      ended = isClosedStore(error) ? false : { error };
    } finally {
      this.#running = false;
      this.#idle = undefined;
      // Ended by the store or a failure, not by the last listener leaving: every listener
      // learns it.
      if (ended !== true) {
        for (const set of [...this.#listeners.values()]) {
          for (const settle of [...set]) settle(ended);
        }
      }
      await watch?.close();
    }
  }
}

/** Whether `error` says the `Deno.Kv` handle was closed (before or during the operation). */
function isClosedStore(error: unknown): boolean {
  return error instanceof Deno.errors.BadResource ||
    (error instanceof TypeError && /database is closed/i.test(error.message));
}

/**
 * Commits `op`, retrying while SQLite reports the database locked: two handles on one local
 * file (in one process or several) that write at the same moment get that error at once.
 */
async function commit(op: Deno.AtomicOperation): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op.commit();
    } catch (error) {
      if (attempt >= 20 || !(error instanceof Error) || !/database is locked/.test(error.message)) {
        throw error;
      }
      const backoff = Math.min(2 ** attempt, 100) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, backoff));
    }
  }
}

/**
 * Wakes a waiter when watched keys change, when `pollMs` passes (other processes' writes), or
 * when a signal aborts. It keeps one watch read outstanding across waits, with one callback
 * that hands its result to whoever waits then, so a change that arrives between two waits still
 * wakes the second, and a long wait of many polls holds nothing per poll.
 */
class KeyWatch {
  readonly #reader: ReadableStreamDefaultReader<unknown>;
  readonly #pollMs: number;
  #reading = false;
  /** A change reported while nobody waited, for the next wait. */
  #changed = false;
  /** Set once the watch has ended: the store was closed, or the read failed. */
  #ended = false;
  #error: unknown;
  /** The wait in progress, if any. */
  #waiter?: (again: boolean) => void;
  #closed = false;

  readonly #clock: Clock;

  constructor(kv: Deno.Kv, keys: Deno.KvKey[], pollMs: number, clock: Clock) {
    this.#reader = kv.watch(keys).getReader();
    this.#pollMs = pollMs;
    this.#clock = clock;
  }

  /** Resolves `true` to look again, `false` once the watch has ended (the store was closed). */
  changed(signal: AbortSignal): Promise<boolean> {
    if (this.#changed) {
      this.#changed = false;
      return Promise.resolve(true);
    }
    this.#pull();
    return new Promise<boolean>((resolve, reject) => {
      const settle = (again: boolean) => {
        if (this.#waiter !== settle) return;
        this.#waiter = undefined;
        cancelTimer();
        signal.removeEventListener("abort", onAbort);
        if (this.#error !== undefined) reject(this.#error);
        else resolve(again && !this.#ended);
      };
      const onAbort = () => settle(true);
      this.#waiter = settle;
      const cancelTimer = Number.isFinite(this.#pollMs)
        ? this.#clock.setTimer(() => settle(true), this.#pollMs)
        : () => {};
      if (this.#ended || signal.aborted) return settle(true);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Ends the watch stream. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader.cancel();
  }

  /** Starts a read unless one is outstanding or the watch has ended. */
  #pull(): void {
    if (this.#reading || this.#ended) return;
    this.#reading = true;
    this.#reader.read().then(
      (result) => this.#report(!result.done),
      (error) => {
        this.#error = error;
        this.#report(false);
      },
    );
  }

  #report(changed: boolean): void {
    this.#reading = false;
    if (!changed) this.#ended = true;
    if (this.#waiter) this.#waiter(changed);
    else if (changed) this.#changed = true;
  }
}
