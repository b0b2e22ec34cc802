import { newQuestion, outcomeOf, withdrawalReason } from "../../src/human/human_channel.ts";
import type {
  HumanQuestion,
  QuestionChannel,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "../../src/human/question_channel.ts";
import { UserError } from "../../src/tool.ts";

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
   * How often a waiting ask or `questions()` re-reads the store (default 1000 ms). `kv.watch`
   * reports changes made in this process at once, but a local SQLite store does not report
   * other processes' writes, which this poll picks up. `Infinity` turns polling off, for stores
   * whose watch sees every writer (Deno Deploy).
   */
  pollMs?: number;
}

/** What the channel keeps under `[...prefix, "q", id]`. */
interface Stored {
  /** Ask order across every process: the `[...prefix, "pending", seq]` index entry. */
  seq: number;
  key?: string;
  record: QuestionRecord;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * A durable {@linkcode QuestionChannel} on Deno KV: questions and answers survive restarts and
 * are shared by every process that opens the same store with the same prefix.
 *
 * - A question is written before its ask starts waiting; an answer is written, atomically and
 *   only if the question is still pending (the first answer wins), before `answer` resolves.
 * - A waiting ask learns of the outcome through `kv.watch`, and by polling every `pollMs`
 *   for writes from other processes, which a local store's watch does not see.
 * - An ask whose `key` (with `askHuman`, the tool call's id) already has a question waits on
 *   that question, or returns its outcome at once: a restarted agent that re-runs the same tool
 *   call gets the operator's answer, and nothing is asked twice.
 * - `questions()` delivers questions asked by any process, in the order their asks committed.
 * - `close()` closes this channel object only: its waiting asks resolve `{ status: "closed" }`
 *   and its iterators end, but stored questions stay pending for a restarted process to
 *   re-attach to (cancel them to withdraw them). It does not close `kv`, which stays yours.
 *
 * Keys under the prefix: `seq` (the ask counter), `q/<id>`, `key/<key>` and `pending/<seq>`.
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
  readonly #pollMs: number;
  /** Aborted by `close()`: wakes every wait and iterator of this object. */
  readonly #closer = new AbortController();
  /** Local asks waiting per question id: a question is withdrawn only when its last one aborts. */
  readonly #waiting = new Map<string, number>();
  /** Waits and iterator steps in flight, which `close()` lets finish. */
  readonly #active = new Set<Promise<unknown>>();
  #closedReason = "channel closed";

  /** Opens the channel on `kv`; throws {@linkcode UserError} for bad options. */
  constructor(kv: Deno.Kv, options: DenoKvHumanChannelOptions = {}) {
    const { prefix = ["outpost", "human"], retainMs = 7 * DAY, pollMs = 1000 } = options;
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
    if (!(pollMs > 0)) {
      throw new UserError(`pollMs must be a positive number of milliseconds, not ${pollMs}.`, {
        hint: "Pass Infinity to rely on kv.watch alone.",
      });
    }
    this.#kv = kv;
    this.#prefix = [...prefix];
    this.#retainMs = retainMs;
    this.#pollMs = pollMs;
  }

  /**
   * Asks a question, or re-attaches to the question already asked under `request.key`, and
   * waits for its outcome. Aborting `signal` withdraws the question (once no other ask of this
   * object waits on it) and rejects with the signal's reason after the withdrawal is stored.
   */
  async ask(
    request: QuestionRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<QuestionOutcome> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#closer.signal.aborted) return { status: "closed", reason: this.#closedReason };
    const stored = await this.#findOrAsk(request);
    if (stored.record.status !== "pending") return outcomeOf(stored.record);
    return await this.#track(this.#wait(stored.record.question.id, signal));
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
          if (entry.value?.record.status === "pending") questions.push(entry.value.record.question);
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
    let cursor = 0;
    let finished = false;
    let watch: KeyWatch | undefined;
    const stop = new AbortController();
    const wake = AbortSignal.any([stop.signal, this.#closer.signal]);
    const done = { value: undefined, done: true } as const;
    const finish = async () => {
      finished = true;
      stop.abort();
      await watch?.close();
    };
    const step = async (): Promise<IteratorResult<HumanQuestion>> => {
      try {
        while (!finished && !wake.aborted) {
          // Watch before listing, so that an ask committed in between still wakes us.
          watch ??= new KeyWatch(this.#kv, [this.#key("seq")], this.#pollMs);
          const next = await this.#pendingAfter(cursor);
          if (next && !finished) {
            cursor = next.seq;
            return { value: next.record.question, done: false };
          }
          if (!(await watch.changed(wake))) break;
        }
      } catch (error) {
        if (!isClosedStore(error)) {
          await finish();
          throw error;
        }
      }
      await finish();
      return done;
    };
    const iterator: AsyncIterableIterator<HumanQuestion> = {
      next: () => this.#track(step()),
      return: async () => {
        await finish();
        return done;
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** What the store holds for `id`, or `undefined` for an unknown or expired id. */
  async get(id: string): Promise<QuestionRecord | undefined> {
    return (await this.#kv.get<Stored>(this.#key("q", id))).value?.record;
  }

  /** Stores the answer if the question is still pending; `true` when this call resolved it. */
  answer(id: string, text: string): Promise<boolean> {
    return this.#resolve(id, { status: "answered", answer: text });
  }

  /** Cancels the question if it is still pending; `true` when this call resolved it. */
  cancel(id: string, reason = "cancelled"): Promise<boolean> {
    return this.#resolve(id, { status: "cancelled", reason });
  }

  /**
   * Closes this channel object: waiting asks resolve `{ status: "closed", reason }`, iterators
   * end, later asks resolve closed at once. Stored questions stay pending, so a restarted process
   * can re-attach to them. Resolves once this object's waits have ended. Idempotent.
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

  /** Returns the question already asked under `request.key`, or stores a new one. */
  async #findOrAsk(request: QuestionRequest): Promise<Stored> {
    const indexKey = request.key === undefined ? undefined : this.#key("key", request.key);
    for (;;) {
      let index: Deno.KvEntryMaybe<string> | undefined;
      if (indexKey) {
        index = await this.#kv.get<string>(indexKey);
        if (index.value !== null) {
          const existing = await this.#kv.get<Stored>(this.#key("q", index.value));
          if (existing.value) return existing.value;
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
      if ((await commit(op)).ok) return stored;
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
          if (this.#waiting.get(id) === 1) {
            await this.#resolve(id, {
              status: "cancelled",
              reason: withdrawalReason(signal.reason),
            });
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
      const stored = (await this.#kv.get<Stored>(this.#key("q", entry.value))).value;
      if (stored?.record.status === "pending") return stored;
    }
    return undefined;
  }

  /** Resolves question `id` if it is still pending; `true` when this call did. */
  async #resolve(id: string, outcome: QuestionOutcome): Promise<boolean> {
    const key = this.#key("q", id);
    for (;;) {
      const entry = await this.#kv.get<Stored>(key);
      const stored = entry.value;
      if (!stored || stored.record.status !== "pending") return false;
      const { question } = stored.record;
      const resolvedAt = new Date().toISOString();
      const record: QuestionRecord = outcome.status === "answered"
        ? { status: "answered", question, answer: outcome.answer, resolvedAt }
        : { status: "cancelled", question, reason: outcome.reason, resolvedAt };
      const expireIn = this.#retainMs;
      const op = this.#kv.atomic()
        .check(entry)
        .set(key, { ...stored, record }, { expireIn })
        .delete(this.#key("pending", stored.seq));
      if (stored.key !== undefined) op.set(this.#key("key", stored.key), id, { expireIn });
      if ((await commit(op)).ok) return true;
    }
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
 * when a signal aborts. It keeps one watch read outstanding across waits, so a change that
 * arrives between two waits still wakes the second.
 */
class KeyWatch {
  readonly #reader: ReadableStreamDefaultReader<unknown>;
  readonly #pollMs: number;
  /** The outstanding read: `true` for a change, `false` once the watch ended. */
  #read?: Promise<boolean>;
  #error: unknown;
  #closed = false;

  constructor(kv: Deno.Kv, keys: Deno.KvKey[], pollMs: number) {
    this.#reader = kv.watch(keys).getReader();
    this.#pollMs = pollMs;
  }

  /** Resolves `true` to look again, `false` once the watch has ended (the store was closed). */
  changed(signal: AbortSignal): Promise<boolean> {
    const read = this.#read ??= this.#reader.read().then(
      (result) => !result.done,
      (error) => {
        this.#error = error;
        return false;
      },
    );
    return new Promise<boolean>((resolve, reject) => {
      let settled = false;
      const settle = (again: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (this.#error !== undefined) reject(this.#error);
        else resolve(again);
      };
      const onAbort = () => settle(true);
      const timer = Number.isFinite(this.#pollMs)
        ? setTimeout(() => settle(true), this.#pollMs)
        : undefined;
      if (signal.aborted) return settle(true);
      signal.addEventListener("abort", onAbort, { once: true });
      read.then((changed) => {
        if (settled) return;
        // This wait consumes the change; an ended watch stays ended.
        if (changed && this.#read === read) this.#read = undefined;
        settle(changed);
      });
    });
  }

  /** Ends the watch stream. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader.cancel();
  }
}
