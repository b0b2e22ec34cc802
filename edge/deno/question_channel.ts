import {
  type ApprovalDecision,
  type HumanQuestion,
  type QuestionChannel,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
  REATTACH_WINDOW_MS,
  UserError,
} from "../../mod.ts";
import { questionFeed } from "../../src/human/question_feed.ts";
import {
  alreadyResolved,
  answerOutcome,
  checkLength,
  MAX_QUESTION_ID_LENGTH,
  newQuestion,
  outcomeOf,
  reattaches,
  reattachOption,
  resolvedLimit,
  resolvedRecord,
  withdrawalReason,
} from "../../src/human/question_support.ts";
import { MAX_TIMER_MS } from "../../src/retry.ts";
import { sha256 } from "../../src/sha256.ts";

/**
 * Options of {@linkcode DenoKvHumanChannel}.
 *
 * @example
 * ```ts
 * import { DenoKvHumanChannel, type DenoKvHumanChannelOptions } from "@outpost/agent-tools/deno";
 * const options: DenoKvHumanChannelOptions = { prefix: ["my-agent", "questions"] };
 * const channel = new DenoKvHumanChannel(await Deno.openKv(":memory:"), options);
 * ```
 */
export interface DenoKvHumanChannelOptions {
  /**
   * The key prefix the channel keeps its data under (default `["outpost", "human"]`). Channels
   * on the same store and prefix, in any number of processes, share their questions.
   */
  prefix?: Deno.KvKey;
  /**
   * How long answered and cancelled questions are kept, for `get` and for re-attaching a re-run
   * tool call, before they expire (default 7 days). Pending questions never expire.
   */
  retainMs?: number;
  /**
   * How long after a question was resolved an ask with its key still re-attaches to it and gets
   * its outcome, in milliseconds (default `REATTACH_WINDOW_MS`: 10 minutes); later, the same ask
   * is asked afresh. At most `retainMs`, since an expired record cannot be re-attached to.
   */
  reattachMs?: number;
  /**
   * How often a waiting ask or `questions()` re-reads the store (default 1000 ms). `kv.watch`
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
}

/** What the channel keeps under `[...prefix, "q", id]`. */
interface Stored {
  /** Ask order across every process: the `[...prefix, "pending", seq]` index entry. */
  seq: number;
  key?: string;
  /** Set when the question was withdrawn because its ask went away; its key then asks afresh. */
  withdrawn?: true;
  record: QuestionRecord;
}

const DAY = 24 * 60 * 60 * 1000;
/** Why an unkeyed question is withdrawn when its asker's lease ran out. */
const ASKER_GONE = "withdrawn: the asking process went away";

/**
 * A durable {@linkcode QuestionChannel} on Deno KV: questions and answers survive restarts and
 * are shared by every process that opens the same store with the same prefix.
 *
 * - A question is written before its ask starts waiting; an answer is written, atomically and
 *   only if the question is still pending (the first answer wins), before `answer` resolves.
 * - A waiting ask learns of the outcome through `kv.watch`, and by polling every `pollMs`
 *   for writes from other processes, which a local store's watch does not see.
 * - An ask whose `key` (with `askHuman`, the tool call's id in its session and run) already has
 *   the same question, with the same options, waits on that question or, if it was resolved
 *   within `reattachMs`, returns its outcome at once: a restarted agent that re-runs the same
 *   tool call gets the operator's answer, and nothing is asked twice. A question that was
 *   withdrawn or resolved longer ago, or a different question under the same key, is asked
 *   afresh and the key points to the new question.
 * - An answer or cancel reason longer than `MAX_ANSWER_LENGTH` is refused with a `RangeError`
 *   before anything is written, as by every channel; the limit keeps a record under Deno KV's
 *   64 KiB per value for any question `askHuman` lets through.
 * - `questions()` delivers questions asked by any process, in the order their asks committed.
 * - `close()` closes this channel object only: its waiting asks resolve `{ status: "closed" }`
 *   and its iterators end, but questions asked with a key stay pending for a restarted process
 *   to re-attach to (cancel them to withdraw them). Questions asked without a key, which nothing
 *   can re-attach to, are withdrawn. It does not close `kv`, which stays yours.
 * - A question asked without a key holds a lease its waiting ask renews; when the asking process
 *   dies without closing, the lease runs out after `leaseMs` and any channel on the store
 *   withdraws the question the next time it lists or reads it, or is asked to answer it (which
 *   then resolves `false`).
 *
 * Keys under the prefix: `seq` (the ask counter), `q/<id>`, `key/<SHA-256 of the key>` (so that
 * long keys fit Deno KV's key size limit), `pending/<seq>`,
 * `lease/<id>` and `resolved/<resolution time in ms>/<seq>` (the history `resolved` lists).
 *
 * @example
 * ```ts
 * import { askHuman } from "@outpost/agent-tools";
 * import { DenoKvHumanChannel } from "@outpost/agent-tools/deno";
 *
 * const kv = await Deno.openKv();
 * const channel = new DenoKvHumanChannel(kv, { prefix: ["outpost", "human"] });
 * const tools = [askHuman(channel, { timeoutMs: 30 * 60_000 })];
 * // Elsewhere, maybe in another process on the same store:
 * for (const q of await channel.pending) console.log(q.id, q.question);
 * await channel.close();
 * kv.close();
 * ```
 */
export class DenoKvHumanChannel implements QuestionChannel {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #retainMs: number;
  readonly #reattachMs: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  /** Ids of the questions without a key that asks of this object wait on. */
  readonly #unkeyed = new Set<string>();
  /** Aborted by `close()`: wakes every wait and iterator of this object. */
  readonly #closer = new AbortController();
  /** Local asks waiting per question id: a question is withdrawn only when its last one aborts. */
  readonly #waiting = new Map<string, number>();
  /** Waits and iterator steps in flight, which `close()` lets finish. */
  readonly #active = new Set<Promise<unknown>>();
  #closedReason = "channel closed";

  /** Opens the channel on `kv`; throws {@linkcode UserError} for bad options. */
  constructor(kv: Deno.Kv, options: DenoKvHumanChannelOptions = {}) {
    const {
      prefix = ["outpost", "human"],
      retainMs = 7 * DAY,
      pollMs = 1000,
      leaseMs = 30_000,
      reattachMs = REATTACH_WINDOW_MS,
    } = options;
    if (typeof kv?.atomic !== "function" || typeof kv.watch !== "function") {
      throw new UserError("DenoKvHumanChannel needs a Deno.Kv store.", {
        hint: "Pass `await Deno.openKv()`.",
      });
    }
    if (!Array.isArray(prefix)) {
      throw new UserError("prefix must be a Deno.KvKey, an array such as ['outpost', 'human'].");
    }
    if (!(Number.isSafeInteger(retainMs) && retainMs > 0)) {
      throw new UserError(
        `retainMs must be a positive whole number of milliseconds, not ${retainMs}.`,
      );
    }
    if (!(pollMs === Infinity || (pollMs > 0 && pollMs <= MAX_TIMER_MS))) {
      throw new UserError(
        `pollMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}, not ${pollMs}.`,
        { hint: "Pass Infinity to rely on kv.watch alone." },
      );
    }
    if (!(Number.isSafeInteger(leaseMs) && leaseMs > 0 && leaseMs <= MAX_TIMER_MS)) {
      throw new UserError(
        `leaseMs must be a positive whole number of milliseconds up to ${MAX_TIMER_MS}, not ${leaseMs}.`,
      );
    }
    this.#kv = kv;
    this.#leaseMs = leaseMs;
    this.#prefix = [...prefix];
    this.#retainMs = retainMs;
    this.#reattachMs = reattachOption(reattachMs);
    this.#pollMs = pollMs;
  }

  /**
   * Asks a question, or re-attaches to the same question already asked under `request.key`, and
   * waits for its outcome. Aborting `signal` withdraws the question (once no other ask of this
   * object waits on it) and rejects with the signal's reason after the withdrawal is stored; if
   * the question was answered or cancelled first, it resolves with that outcome instead.
   */
  async ask(
    request: QuestionRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<QuestionOutcome> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#closer.signal.aborted) return { status: "closed", reason: this.#closedReason };
    // Tracked from the start, so that `close()` also waits for an ask still storing its question.
    return await this.#track((async () => {
      const stored = await this.#findOrAsk(request);
      if (stored.record.status !== "pending") return outcomeOf(stored.record);
      const { id } = stored.record.question;
      return stored.key === undefined
        ? await this.#waitLeased(id, signal)
        : await this.#wait(id, signal);
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
    const feed = questionFeed({
      after: async (seq) => {
        if (closer.aborted) return undefined;
        try {
          // Watch before listing, so that an ask committed in between still wakes us.
          watch ??= new KeyWatch(this.#kv, [this.#key("seq")], this.#pollMs);
          const stored = await this.#pendingAfter(seq);
          return stored && { seq: stored.seq, question: stored.record.question };
        } catch (error) {
          if (isClosedStore(error)) return undefined;
          throw error;
        }
      },
      wait: async (signal) => {
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

  /**
   * Returns the question already asked under `request.key` if it asks the same and was not
   * withdrawn; otherwise stores a new one, and points the key to it.
   */
  async #findOrAsk(request: QuestionRequest): Promise<Stored> {
    const indexKey = request.key === undefined ? undefined : await this.#indexKey(request.key);
    for (;;) {
      let index: Deno.KvEntryMaybe<string> | undefined;
      if (indexKey) {
        index = await this.#kv.get<string>(indexKey);
        if (index.value !== null) {
          const existing = (await this.#kv.get<Stored>(this.#key("q", index.value))).value;
          if (
            existing &&
            reattaches(existing.record, existing.withdrawn === true, request, this.#reattachMs)
          ) return existing;
        }
      }
      const counter = await this.#kv.get<number>(this.#key("seq"));
      const question = newQuestion(request);
      const stored: Stored = {
        seq: (counter.value ?? 0) + 1,
        ...(request.key === undefined ? {} : { key: request.key }),
        record: { status: "pending", question },
      };
      // Checking the counter makes commit order and `seq` order the same across processes.
      const op = this.#kv.atomic()
        .check(counter)
        .set(this.#key("seq"), stored.seq)
        .set(this.#key("q", question.id), stored)
        .set(this.#key("pending", stored.seq), question.id);
      if (indexKey) op.check(index!).set(indexKey, question.id);
      else op.set(this.#key("lease", question.id), Date.now() + this.#leaseMs, this.#leaseOptions);
      if ((await commit(op)).ok) return stored;
    }
  }

  /**
   * Waits on a question asked without a key, which nothing can re-attach to: its lease says
   * that its asker still waits, and when this object closes it is withdrawn.
   */
  async #waitLeased(id: string, signal: AbortSignal | undefined): Promise<QuestionOutcome> {
    this.#unkeyed.add(id);
    const renew = setInterval(() => void this.#renewLease(id), this.#leaseMs / 3);
    try {
      return await this.#wait(id, signal);
    } finally {
      clearInterval(renew);
      if (this.#closer.signal.aborted) {
        const reason = `withdrawn: ${this.#closedReason}`;
        await this.#resolve(id, { status: "cancelled", reason }, true).catch(() => {
          // A closed store keeps it pending until the lease runs out and another channel reaps it.
        });
      }
      this.#unkeyed.delete(id);
    }
  }

  /** Waits until question `id` is resolved, this object closes, or `signal` aborts. */
  async #wait(id: string, signal: AbortSignal | undefined): Promise<QuestionOutcome> {
    this.#waiting.set(id, (this.#waiting.get(id) ?? 0) + 1);
    const wake = signal ? AbortSignal.any([signal, this.#closer.signal]) : this.#closer.signal;
    const key = this.#key("q", id);
    let watch: KeyWatch | undefined;
    try {
      watch = new KeyWatch(this.#kv, [key], this.#pollMs);
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
        const stored = (await this.#kv.get<Stored>(key)).value;
        if (!stored) return { status: "cancelled", reason: "the question is gone from the store" };
        if (stored.record.status !== "pending") return outcomeOf(stored.record);
        if (!(await watch.changed(wake))) break;
      }
    } catch (error) {
      if (!isClosedStore(error)) throw error;
    } finally {
      const count = this.#waiting.get(id)! - 1;
      if (count === 0) this.#waiting.delete(id);
      else this.#waiting.set(id, count);
      await watch?.close();
    }
    return { status: "closed", reason: "the Deno KV store was closed" };
  }

  /** The first pending question asked after `seq`. */
  async #pendingAfter(seq: number): Promise<Stored | undefined> {
    const pending = this.#key("pending");
    const list = this.#kv.list<string>({ prefix: pending, start: [...pending, seq + 1] });
    for await (const entry of list) {
      const found = (await this.#kv.get<Stored>(this.#key("q", entry.value))).value;
      const stored = found && await this.#reap(found);
      if (stored?.record.status === "pending") return stored;
    }
    return undefined;
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
      if (stored.record.status !== "pending") {
        return !withdrawn && alreadyResolved(stored.record, outcome);
      }
      // An unkeyed question another process asked is its asker's only while the lease holds.
      let lease: Deno.KvEntryMaybe<number> | undefined;
      if (stored.key === undefined && !this.#unkeyed.has(id)) {
        lease = await this.#kv.get<number>(this.#key("lease", id));
        const orphaned = lease.value === null || lease.value <= Date.now();
        if (orphaned !== onlyIfOrphaned) {
          // Nobody waits for an answer to an orphan: it is withdrawn instead, and refused.
          if (orphaned) {
            await this.#resolve(id, { status: "cancelled", reason: ASKER_GONE }, true, true);
          }
          return false;
        }
      } else if (onlyIfOrphaned) {
        return false;
      }
      const { question } = stored.record;
      const resolvedAt = new Date().toISOString();
      const record = resolvedRecord(question, outcome, resolvedAt, withdrawn);
      const expireIn = this.#retainMs;
      const op = this.#kv.atomic()
        .check(entry)
        .set(key, { ...stored, ...(withdrawn ? { withdrawn } : {}), record }, { expireIn })
        .delete(this.#key("pending", stored.seq))
        .delete(this.#key("lease", id))
        // The history index, in resolution order; it expires with the record.
        .set(this.#key("resolved", Date.parse(resolvedAt), stored.seq), id, { expireIn });
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

  /** Lease entries expire from the store a while after they run out; we judge by their value. */
  get #leaseOptions(): { expireIn: number } {
    return { expireIn: this.#leaseMs * 4 };
  }

  /** Extends the lease of unkeyed question `id`, which an ask of this object waits on. */
  async #renewLease(id: string): Promise<void> {
    try {
      await this.#kv.set(this.#key("lease", id), Date.now() + this.#leaseMs, this.#leaseOptions);
    } catch {
      // A closed store ends the wait anyway; a failed renewal is retried at the next tick.
    }
  }

  /**
   * `stored` as it stands once an unkeyed pending question whose asker's lease ran out is
   * withdrawn (a question from before leases has none, and its asker is gone too).
   */
  async #reap(stored: Stored): Promise<Stored> {
    if (stored.record.status !== "pending" || stored.key !== undefined) return stored;
    const { id } = stored.record.question;
    if (this.#unkeyed.has(id)) return stored;
    const lease = (await this.#kv.get<number>(this.#key("lease", id))).value;
    if (lease !== null && lease > Date.now()) return stored;
    await this.#resolve(id, { status: "cancelled", reason: ASKER_GONE }, true, true);
    return (await this.#kv.get<Stored>(this.#key("q", id))).value ?? stored;
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#active.add(work);
    const forget = () => this.#active.delete(work);
    work.then(forget, forget);
    return work;
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

  constructor(kv: Deno.Kv, keys: Deno.KvKey[], pollMs: number) {
    this.#reader = kv.watch(keys).getReader();
    this.#pollMs = pollMs;
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
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.#error !== undefined) reject(this.#error);
        else resolve(again && !this.#ended);
      };
      const onAbort = () => settle(true);
      this.#waiter = settle;
      const timer = Number.isFinite(this.#pollMs)
        ? setTimeout(() => settle(true), this.#pollMs)
        : undefined;
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
