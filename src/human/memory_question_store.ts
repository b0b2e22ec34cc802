import { SetupError } from "../errors.ts";
import type { QuestionStore, QuestionTransaction, StoredQuestion } from "./question_store.ts";
import type { MaybePromise } from "./question_store.ts";

/**
 * Options of {@linkcode MemoryQuestionStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionStore, type MemoryQuestionStoreOptions } from "@outpost/agent-tools/human";
 * const options: MemoryQuestionStoreOptions = { remember: 10 };
 * assert.deepEqual(new MemoryQuestionStore(options).pending(), []);
 * ```
 */
export interface MemoryQuestionStoreOptions {
  /**
   * How many resolved questions the store keeps (default 1000); the oldest resolution is
   * forgotten first, so a long-lived store stays bounded.
   */
  remember?: number;
}

/**
 * A {@linkcode QuestionStore} in memory, for one process: what `MemoryQuestionChannel` keeps its
 * questions in. It answers every call at once (no promises), so the channel over it stays
 * synchronous; its transactions apply their writes when their function returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionStore, StoreQuestionChannel } from "@outpost/agent-tools/human";
 * const store = new MemoryQuestionStore();
 * const channel = new StoreQuestionChannel(store);
 * const outcome = channel.ask({ question: "Go?", options: [], multiSelect: false });
 * const [stored] = store.pending();
 * assert.equal(stored.record.question.question, "Go?");
 * await channel.answer(stored.record.question.id, "Yes");
 * assert.deepEqual(await outcome, { status: "answered", answer: "Yes" });
 * ```
 */
export class MemoryQuestionStore implements QuestionStore {
  readonly #remember: number;
  /** Every question kept, pending ones and remembered resolved ones. */
  readonly #questions = new Map<string, StoredQuestion>();
  /** Pending questions, in ask order. */
  readonly #pending = new Map<string, StoredQuestion>();
  /** Resolved questions' ids, oldest resolution first, for forgetting in order. */
  readonly #resolved = new Set<string>();
  readonly #byKey = new Map<string, string>();
  /** Pending questions per session (`undefined` for those without one), for the caps. */
  readonly #perSession = new Map<string | undefined, number>();
  /** Told the ids of each transaction's changes. */
  readonly #watchers = new Set<(ids: readonly string[]) => void>();
  #seq = 0;

  /** Creates an empty store; throws `SetupError` for a bad `remember`. */
  constructor(options: MemoryQuestionStoreOptions = {}) {
    const { remember = 1000 } = options;
    if (!Number.isSafeInteger(remember) || remember < 0) {
      throw new SetupError(`remember must be a whole number of questions, not ${remember}.`);
    }
    this.#remember = remember;
  }

  /** Runs `fn`, then applies its writes together (none if it throws). */
  transact<T>(fn: (tx: QuestionTransaction) => MaybePromise<T>): MaybePromise<T> {
    const writes: StoredQuestion[] = [];
    const tx: QuestionTransaction = {
      get: (id) => this.#questions.get(id),
      byKey: (key) => {
        const id = this.#byKey.get(key);
        return id === undefined ? undefined : this.#questions.get(id);
      },
      counts: (sessionId) => ({
        pending: this.#pending.size,
        inSession: this.#perSession.get(sessionId) ?? 0,
      }),
      insert: (question) => writes.push({ ...question, seq: 0 }),
      update: (stored) => writes.push(stored),
    };
    const apply = (result: T) => {
      for (const stored of writes) this.#write(stored);
      const ids = writes.map((stored) => stored.record.question.id);
      if (ids.length > 0) { for (const watcher of [...this.#watchers]) watcher(ids); }
      return result;
    };
    const result = fn(tx);
    return result instanceof Promise ? result.then(apply) : apply(result);
  }

  /** The question `id`, if kept. */
  get(id: string): StoredQuestion | undefined {
    return this.#questions.get(id);
  }

  /** The pending questions in ask order, after `after`, at most `limit`. */
  pending(options: { after?: number; limit?: number } = {}): StoredQuestion[] {
    const { after = 0, limit = Infinity } = options;
    const found: StoredQuestion[] = [];
    for (const stored of this.#pending.values()) {
      if (found.length >= limit) break;
      if (stored.seq > after) found.push(stored);
    }
    return found;
  }

  /** The resolved questions kept, most recently resolved first, at most `limit`. */
  resolved(limit: number): StoredQuestion[] {
    const ids = [...this.#resolved];
    const found: StoredQuestion[] = [];
    for (let i = ids.length - 1; i >= 0 && found.length < limit; i--) {
      found.push(this.#questions.get(ids[i])!);
    }
    return found;
  }

  /** Yields `[]` at once, then the ids each transaction changed, until `signal` aborts. */
  async *watch(signal: AbortSignal): AsyncIterable<readonly string[]> {
    const changed = new Set<string>();
    let wake = () => {};
    const watcher = (ids: readonly string[]) => {
      for (const id of ids) changed.add(id);
      wake();
    };
    const onAbort = () => wake();
    this.#watchers.add(watcher);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      yield [];
      while (!signal.aborted) {
        if (changed.size === 0) {
          await new Promise<void>((resolve) => wake = resolve);
          continue;
        }
        const ids = [...changed];
        changed.clear();
        yield ids;
      }
    } finally {
      this.#watchers.delete(watcher);
      signal.removeEventListener("abort", onAbort);
    }
  }

  #write(stored: StoredQuestion): void {
    const { id, sessionId } = stored.record.question;
    // Frozen, because operators receive these very records and questions.
    const { question } = stored.record;
    for (const option of question.options) Object.freeze(option);
    Object.freeze(question.options);
    Object.freeze(question);
    Object.freeze(stored.record);
    const before = this.#questions.get(id);
    if (!before) {
      const entry = { ...stored, seq: ++this.#seq };
      this.#questions.set(id, entry);
      this.#pending.set(id, entry);
      this.#count(sessionId, 1);
      if (stored.key !== undefined) this.#byKey.set(stored.key, id);
      return;
    }
    const entry = { ...stored, seq: before.seq };
    this.#questions.set(id, entry);
    if (stored.record.status === "pending") {
      this.#pending.set(id, entry);
      return;
    }
    if (!this.#pending.delete(id)) return;
    this.#count(sessionId, -1);
    this.#resolved.add(id);
    for (const old of this.#resolved) {
      if (this.#resolved.size <= this.#remember) break;
      this.#resolved.delete(old);
      const forgotten = this.#questions.get(old)!;
      this.#questions.delete(old);
      // The key may point to a newer question by now, which stays known.
      if (forgotten.key !== undefined && this.#byKey.get(forgotten.key) === old) {
        this.#byKey.delete(forgotten.key);
      }
    }
  }

  #count(sessionId: string | undefined, by: number): void {
    const count = (this.#perSession.get(sessionId) ?? 0) + by;
    if (count === 0) this.#perSession.delete(sessionId);
    else this.#perSession.set(sessionId, count);
  }
}
