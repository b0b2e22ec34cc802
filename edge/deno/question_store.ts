import type { Clock } from "../../src/clock.ts";
import type {
  MaybePromise,
  QuestionStore,
  QuestionTransaction,
  StoredQuestion,
} from "../../src/human/question_store.ts";
import { sha256 } from "../../src/sha256.ts";
import { KeyWatch } from "./key_watch.ts";

/**
 * How far back the indexes are read again for entries committed late: an entry is ordered by
 * the time its writer read before committing, so one may land behind entries already read.
 */
const LATE_COMMIT_MS = 60_000;
/** Asks per millisecond one store object orders apart: `seq` is the ask time times this. */
const PER_MS = 1024;
/** Subtracts one from a Deno KV sum counter (which wraps around at 2^64). */
const MINUS_ONE = 0xffff_ffff_ffff_ffffn;

/** Options of {@linkcode DenoKvQuestionStore}, checked by the channel. */
export interface DenoKvQuestionStoreOptions {
  prefix: Deno.KvKey;
  retainMs: number;
  pollMs: number;
  clock: Clock;
}

/**
 * The `QuestionStore` of `DenoKvQuestionChannel`, on Deno KV. Keys under the prefix: `q/<id>`
 * (the stored question), `key/<SHA-256 of the key>`, `pending/<seq>/<id>`,
 * `resolved/<resolution time in ms>/<id>` (expiring with the question after `retainMs`),
 * `count` and `count/session/<SHA-256>` (sum counters no ask checks, so that concurrent asks
 * commit side by side), and `changed/any`, the marker every insert and resolution sets.
 *
 * `seq` is the ask time by the store's clock, with the object's own ask count below it: no
 * shared counter, so a question may commit up to a minute behind a later one (`lateBy`).
 * Transactions are optimistic: every record and key index read is checked at commit, and the
 * function runs again after a conflict.
 */
export class DenoKvQuestionStore implements QuestionStore {
  readonly lateBy = LATE_COMMIT_MS * PER_MS;
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #retainMs: number;
  readonly #pollMs: number;
  readonly #clock: Clock;
  /** How many transactions this object began: orders its asks within one millisecond. */
  #began = 0;

  constructor(kv: Deno.Kv, options: DenoKvQuestionStoreOptions) {
    this.#kv = kv;
    this.#prefix = options.prefix;
    this.#retainMs = options.retainMs;
    this.#pollMs = options.pollMs;
    this.#clock = options.clock;
  }

  /** Runs `fn` until its writes commit with none of its reads changed meanwhile. */
  async transact<T>(fn: (tx: QuestionTransaction) => MaybePromise<T>): Promise<T> {
    // Its place in ask order, taken at the call: asks of one object keep the order they came in.
    const seq = this.#clock.now() * PER_MS + (this.#began++ % PER_MS);
    for (;;) {
      const tx = new KvTransaction(this.#kv, this.#prefix, this.#retainMs, this.#clock, seq);
      const result = await fn(tx);
      if (await tx.commit()) return result;
    }
  }

  /** The question `id`, if kept. */
  async get(id: string): Promise<StoredQuestion | undefined> {
    return (await this.#kv.get<StoredQuestion>(this.#key("q", id))).value ?? undefined;
  }

  /** The pending questions in ask order, after `after`, at most `limit`. */
  async pending(options: { after?: number; limit?: number } = {}): Promise<StoredQuestion[]> {
    const prefix = this.#key("pending");
    // Entries of one seq sort by id; the first after `after` starts at the next seq.
    const selector = options.after === undefined
      ? { prefix }
      : { prefix, start: [...prefix, Math.floor(options.after) + 1] };
    const ids: string[] = [];
    for await (const entry of this.#kv.list<string>(selector, { limit: options.limit })) {
      ids.push(entry.value);
    }
    return (await this.#records(ids)).filter((stored) => stored.record.status === "pending");
  }

  /** The resolved questions kept, most recently resolved first, at most `limit`. */
  async resolved(limit: number): Promise<StoredQuestion[]> {
    const ids: string[] = [];
    const list = this.#kv.list<string>({ prefix: this.#key("resolved") }, { reverse: true, limit });
    for await (const entry of list) ids.push(entry.value);
    // An index entry may outlive its record by a moment: both expire, not together.
    return (await this.#records(ids)).filter((stored) => stored.record.status !== "pending");
  }

  /**
   * Yields `[]` once it watches, then the ids asked or resolved since, read from the indexes
   * whenever the marker changed: `kv.watch` reports this process's writes at once, and a read of
   * the marker every `pollMs` those of other processes, which a local store's watch misses.
   * Ends when `signal` aborts or the store is closed.
   */
  async *watch(signal: AbortSignal): AsyncIterable<readonly string[]> {
    const marker = this.#key("changed", "any");
    const watch = new KeyWatch(this.#kv, [marker], this.#pollMs, this.#clock);
    try {
      let seen = (await this.#kv.get(marker)).versionstamp;
      let since = this.#clock.now();
      yield [];
      while (!signal.aborted && await watch.changed(signal) && !signal.aborted) {
        const { versionstamp } = await this.#kv.get(marker);
        if (versionstamp === seen) continue;
        seen = versionstamp;
        const now = this.#clock.now();
        const from = since - LATE_COMMIT_MS;
        const ids: string[] = [];
        for (const [index, start] of [["pending", from * PER_MS], ["resolved", from]] as const) {
          const prefix = this.#key(index);
          for await (const entry of this.#kv.list<string>({ prefix, start: [...prefix, start] })) {
            ids.push(entry.value);
          }
        }
        since = now;
        yield ids;
      }
    } catch (error) {
      if (!isClosedStore(error)) throw error;
    } finally {
      await watch.close();
    }
  }

  async #records(ids: string[]): Promise<StoredQuestion[]> {
    const records: StoredQuestion[] = [];
    // getMany takes at most 10 keys.
    for (let i = 0; i < ids.length; i += 10) {
      const batch = ids.slice(i, i + 10).map((id) => this.#key("q", id));
      for (const entry of await this.#kv.getMany<StoredQuestion[]>(batch)) {
        if (entry.value) records.push(entry.value);
      }
    }
    return records;
  }

  #key(...parts: Deno.KvKeyPart[]): Deno.KvKey {
    return [...this.#prefix, ...parts];
  }
}

/** One run of a transaction's function: its checked reads and its writes. */
class KvTransaction implements QuestionTransaction {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #retainMs: number;
  readonly #clock: Clock;
  readonly #seq: number;
  readonly #checks: Deno.KvEntryMaybe<unknown>[] = [];
  /** The questions as read, by id, to tell what an update changes. */
  readonly #read = new Map<string, StoredQuestion>();
  readonly #writes: { stored: StoredQuestion; fresh: boolean }[] = [];

  constructor(kv: Deno.Kv, prefix: Deno.KvKey, retainMs: number, clock: Clock, seq: number) {
    this.#kv = kv;
    this.#prefix = prefix;
    this.#retainMs = retainMs;
    this.#clock = clock;
    this.#seq = seq;
  }

  async get(id: string): Promise<StoredQuestion | undefined> {
    const entry = await this.#kv.get<StoredQuestion>(this.#key("q", id));
    this.#checks.push(entry);
    if (entry.value) this.#read.set(id, entry.value);
    return entry.value ?? undefined;
  }

  async byKey(key: string): Promise<StoredQuestion | undefined> {
    const entry = await this.#kv.get<string>(await this.#indexKey(key));
    this.#checks.push(entry);
    return entry.value === null ? undefined : await this.get(entry.value);
  }

  async counts(sessionId: string | undefined): Promise<{ pending: number; inSession: number }> {
    const [total, session] = await this.#kv.getMany<[Deno.KvU64, Deno.KvU64]>(
      await this.#countKeys(sessionId),
    );
    return { pending: counted(total.value), inSession: counted(session.value) };
  }

  insert(question: Omit<StoredQuestion, "seq">): void {
    this.#writes.push({ stored: { ...question, seq: this.#seq }, fresh: true });
  }

  update(stored: StoredQuestion): void {
    this.#writes.push({ stored, fresh: false });
  }

  /** Commits the writes if no read changed meanwhile; `false` to run the function again. */
  async commit(): Promise<boolean> {
    if (this.#writes.length === 0) return true;
    const op = this.#kv.atomic();
    for (const entry of this.#checks) op.check(entry);
    const marker = this.#key("changed", "any");
    for (const { stored, fresh } of this.#writes) {
      const { id, sessionId } = stored.record.question;
      const q = this.#key("q", id);
      const pendingKey = this.#key("pending", stored.seq, id);
      if (fresh) {
        op.set(q, stored).set(pendingKey, id).set(marker, id);
        for (const key of await this.#countKeys(sessionId)) op.sum(key, 1n);
        if (stored.key !== undefined) op.set(await this.#indexKey(stored.key), id);
        continue;
      }
      if (stored.record.status === "pending") {
        op.set(q, stored);
        continue;
      }
      const expireIn = this.#retainMs;
      op.set(q, stored, { expireIn });
      if (this.#read.get(id)?.record.status !== "pending") continue;
      op.delete(pendingKey)
        .set(this.#key("resolved", this.#clock.now(), id), id, { expireIn })
        .set(marker, id);
      for (const key of await this.#countKeys(sessionId)) op.sum(key, MINUS_ONE);
      if (stored.key !== undefined) {
        // The key expires with its question, unless it points to a newer question by now.
        const indexKey = await this.#indexKey(stored.key);
        const index = await this.#kv.get<string>(indexKey);
        if (index.value === id) op.check(index).set(indexKey, id, { expireIn });
      }
    }
    return (await commit(op)).ok;
  }

  #key(...parts: Deno.KvKeyPart[]): Deno.KvKey {
    return [...this.#prefix, ...parts];
  }

  /** Where the id of the question asked under `key` is kept (hashed: long keys fit). */
  async #indexKey(key: string): Promise<Deno.KvKey> {
    return this.#key("key", await sha256(key));
  }

  /** The counters a question counts in: the store's, and its session's. */
  async #countKeys(sessionId: string | undefined): Promise<[Deno.KvKey, Deno.KvKey]> {
    return [
      this.#key("count"),
      this.#key("count", "session", await sha256(JSON.stringify(sessionId ?? null))),
    ];
  }
}

/** A sum counter's value as a count; one that wrapped below zero counts as none. */
function counted(value: Deno.KvU64 | null): number {
  if (value === null || value.value >= 2n ** 63n) return 0;
  return Number(value.value);
}

/** Whether `error` says the `Deno.Kv` handle was closed (before or during the operation). */
export function isClosedStore(error: unknown): boolean {
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
