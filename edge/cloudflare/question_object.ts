import { CallCounter, CALLS_URL } from "./call_limits.ts";
import type { QuestionOutcome, QuestionRecord, QuestionRequest } from "../../src/human/question.ts";
import { systemClock } from "../../src/clock.ts";
import {
  current,
  leave,
  type LifecycleSettings,
  open,
  renew,
  resolve,
} from "../../src/human/question_operations.ts";
import type { QuestionTransaction, StoredQuestion } from "../../src/human/question_store.ts";
import { runNow, type Steps } from "../../src/human/steps.ts";

// The Durable Object behind `DurableObjectQuestionChannel`: one object per channel name keeps that
// channel's questions in its SQLite storage, and runs the lifecycle's operations
// (src/human/question_operations.ts) over it. Requests to it are one operation each (see
// `ChannelCall`); because an object runs one event at a time and SQL calls are synchronous,
// each operation is atomic without locks. Waiting is in bounded slices held open here, woken at
// once by an answer; what a Worker must keep between slices is only the question's id.

/**
 * The part of a Durable Object's `DurableObjectState` that {@linkcode QuestionChannelObject}
 * uses: SQLite storage, the alarm, and hibernatable WebSockets. The runtime passes the real one.
 *
 * @example
 * ```ts
 * // Not asserted: a Durable Object's state and SQL storage exist only inside workerd.
 * import type { DurableObjectStateLike } from "@outpost/agent-tools/cloudflare";
 * function rows(state: DurableObjectStateLike): number {
 *   return state.storage.sql.exec("SELECT count(*) AS n FROM questions").toArray().length;
 * }
 * ```
 */
export interface DurableObjectStateLike {
  /** The object's storage: its SQLite database and its alarm. */
  readonly storage: {
    /** Runs SQL on the object's own database, synchronously. */
    readonly sql: {
      /** Runs `query` with `bindings` for its `?` placeholders. */
      exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] };
    };
    /** When the alarm is set for, in milliseconds since the epoch, or `null`. */
    getAlarm(): Promise<number | null>;
    /** Sets the alarm, replacing any other. */
    setAlarm(scheduledTime: number): Promise<void>;
  };
  /** Accepts a WebSocket with the hibernation API: it stays open while the object sleeps. */
  acceptWebSocket(socket: WebSocket): void;
  /** The WebSockets accepted so far and still open. */
  getWebSockets(): WebSocket[];
}

/** One operation on a channel: the path names it, the JSON body carries its arguments. */
export type ChannelCall =
  | {
    op: "open";
    request: QuestionRequest;
    waiter: string;
    leaseMs: number;
    retainMs: number;
    reattachMs: number;
    /** How much longer than `leaseMs` a lease on a keyed question lasts (default 0). */
    expireMs?: number;
    /** The caps on pending questions (default none). */
    maxPending?: number;
    maxPendingPerSession?: number;
  }
  | {
    op: "wait";
    id: string;
    waiter: string;
    sliceMs: number;
    leaseMs: number;
    expireMs?: number;
  }
  | { op: "withdraw"; id: string; waiter: string; reason: string }
  | { op: "resolve"; id: string; outcome: QuestionOutcome }
  | { op: "get"; id: string }
  | { op: "pending" }
  | { op: "resolved"; limit: number }
  | { op: "after"; seq: number };

/** What the object pushes to every watching socket after a change. */
export interface ChannelChange {
  type: "asked" | "answered" | "cancelled";
  id: string;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS questions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, key TEXT, status TEXT NOT NULL, withdrawn INTEGER NOT NULL DEFAULT 0, record TEXT NOT NULL, retain_ms INTEGER NOT NULL, expires_at INTEGER, leases TEXT NOT NULL DEFAULT '{}')",
  "CREATE INDEX IF NOT EXISTS questions_by_key ON questions (key, seq)",
  "CREATE INDEX IF NOT EXISTS questions_by_status ON questions (status, seq)",
  "CREATE INDEX IF NOT EXISTS questions_by_expiry ON questions (expires_at)",
  // Resolution time is expiry less retention: an index on that expression serves the history
  // without a new column, so tables made before it need no migration.
  "CREATE INDEX IF NOT EXISTS questions_by_resolution ON questions (expires_at - retain_ms)",
];

/**
 * The Durable Object class of the question channels, to export from the Worker's main module
 * and bind in `wrangler.jsonc` with SQLite storage (`new_sqlite_classes`). Its requests come
 * from {@linkcode DurableObjectQuestionChannel} only.
 *
 * - `open` finds the question already asked under the request's key, if it may re-attach to it
 *   (the same question, not withdrawn, pending or resolved within the channel's `reattachMs`),
 *   or stores a new one, in one step; the asker then holds a lease on it.
 * - `wait` holds a request open for one slice, or until the question is resolved; each wait
 *   renews the asker's lease.
 * - `withdraw` gives up an asker's lease, and cancels the question only when no other asker
 *   holds a live lease on it.
 * - `resolve` answers or cancels a pending question (the first one wins), then wakes its waits
 *   and tells every watching socket.
 * - An alarm deletes resolved questions once their retention passes, and withdraws questions
 *   without a key whose leases lapsed (their asker is gone and nothing could re-attach).
 * - Watchers connect with a WebSocket, accepted with the hibernation API: an idle console costs
 *   no request, and the object can be evicted while they stay connected.
 *
 * @example
 * ```ts
 * // Not asserted: a Worker's main module, run by workerd.
 * // In the Worker's main module, which must export the class for the runtime to find it:
 * import { QuestionChannelObject } from "@outpost/agent-tools/cloudflare";
 * export { QuestionChannelObject };
 * ```
 */
export class QuestionChannelObject {
  readonly #state: DurableObjectStateLike;
  /** Wake-ups of the waits in progress, by question id. */
  readonly #waits = new Map<string, Set<() => void>>();
  /** The tenant's tool calls, counted against its limits (see call_limits.ts). */
  readonly #calls = new CallCounter();
  /** The askers' lease length, as their last call said (none since the object started: 0). */
  #leaseMs = 0;

  /** Called by the runtime; creates the tables on first use. */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.#state = state;
    for (const statement of SCHEMA) state.storage.sql.exec(statement);
  }

  /** Answers one {@linkcode ChannelCall}, or accepts a watching WebSocket. */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return this.#watch();
    if (request.url === CALLS_URL) {
      return Response.json(await this.#calls.count(await request.json()));
    }
    // A body that is not JSON, or names no operation, is no operation.
    const result = await this.#run(await request.json().catch(() => null));
    return result === undefined
      ? Response.json({ error: "Not a channel operation." }, { status: 400 })
      : Response.json(result);
  }

  /** Expires resolved questions, withdraws abandoned ones, and schedules the next run. */
  async alarm(): Promise<void> {
    const now = Date.now();
    const sql = this.#state.storage.sql;
    sql.exec("DELETE FROM questions WHERE expires_at <= ?", now);
    // A keyed question's hold lasts `expireMs` longer: a retry of its call may re-attach.
    const settings = lifecycle();
    for (const { record } of this.#rows("status = 'pending'")) {
      await this.#step((tx) => current(tx, record.question.id, settings));
    }
    await this.#schedule(now);
  }

  /** A watching socket sends nothing we need; the hibernation API requires the handler. */
  webSocketMessage(): void {}

  /** Completes the close handshake of a watcher that left. */
  webSocketClose(socket: WebSocket, code: number): void {
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code);
    } catch {
      // Already closed.
    }
  }

  async #run(call: ChannelCall): Promise<unknown> {
    if (call?.op === "open" || call?.op === "wait") this.#leaseMs = call.leaseMs;
    switch (call?.op) {
      case "open":
        return await this.#step((tx) => open(tx, call.request, call.waiter, lifecycle(call)), call);
      case "wait":
        return await this.#wait(call);
      case "withdraw":
        return await this.#step((tx) => leave(tx, call.id, call.waiter, call.reason, lifecycle()));
      case "resolve":
        // A closed channel's outcome is no operator's: nothing to record.
        return {
          resolved: call.outcome?.status !== "closed" &&
            await this.#step((tx) => resolve(tx, call.id, call.outcome, lifecycle())),
        };
      case "get":
        return { record: this.#row(call.id)?.record ?? null };
      case "pending":
        return {
          questions: this.#rows("status = 'pending' ORDER BY seq").map((row) =>
            row.record.question
          ),
        };
      case "resolved":
        // Pending rows have no expiry: their key is NULL, which sorts last in a descending scan.
        return {
          records: this.#rows(
            "expires_at IS NOT NULL ORDER BY expires_at - retain_ms DESC LIMIT ?",
            call.limit,
          ).map((row) => row.record),
        };
      case "after": {
        const [row] = this.#rows(
          "status = 'pending' AND seq > ? ORDER BY seq LIMIT 1",
          call.seq,
        );
        return { next: row ? { seq: row.seq, question: row.record.question } : null };
      }
    }
  }

  /** Renews the asker's hold, then holds the request open for a slice or until resolved. */
  async #wait(
    { id, waiter, sliceMs, leaseMs, expireMs }: Extract<ChannelCall, { op: "wait" }>,
  ): Promise<{ record: QuestionRecord | null }> {
    const before = await this.#step((tx) =>
      renew(tx, id, waiter, lifecycle({ leaseMs, expireMs }))
    );
    if (before?.status !== "pending") return { record: before ?? null };
    await new Promise<void>((resolve) => {
      let waits = this.#waits.get(id);
      if (!waits) this.#waits.set(id, waits = new Set());
      const wake = () => {
        clearTimeout(timer);
        waits.delete(wake);
        if (waits.size === 0 && this.#waits.get(id) === waits) this.#waits.delete(id);
        resolve();
      };
      // A timer, not only a promise: workerd cancels a request that waits on nothing else.
      const timer = setTimeout(wake, sliceMs);
      waits.add(wake);
    });
    return { record: this.#row(id)?.record ?? null };
  }

  /**
   * Runs one lifecycle operation over the storage, in one step (SQL calls are synchronous and
   * the operation awaits nothing else, so no other event comes in between), then wakes the waits
   * on what it resolved and tells every watching socket.
   */
  async #step<T>(
    operation: (tx: QuestionTransaction) => Steps<T>,
    { retainMs = 0 } = {},
  ): Promise<T> {
    const sql = this.#state.storage.sql;
    const changes: { type: "asked" | "answered" | "cancelled"; id: string }[] = [];
    const tx: QuestionTransaction = {
      get: (id) => this.#row(id),
      byKey: (key) => this.#rows("key = ? ORDER BY seq DESC LIMIT 1", key)[0],
      counts: (sessionId) => {
        const [counts] = sql.exec(
          "SELECT count(*) AS total, sum(json_extract(record, '$.question.sessionId') IS ?) AS session FROM questions WHERE status = 'pending'",
          sessionId ?? null,
        ).toArray();
        return { pending: Number(counts.total), inSession: Number(counts.session ?? 0) };
      },
      insert: ({ record, key, leases }) => {
        sql.exec(
          "INSERT INTO questions (id, key, status, record, retain_ms, leases) VALUES (?, ?, 'pending', ?, ?, ?)",
          record.question.id,
          key ?? null,
          JSON.stringify(record),
          retainMs,
          JSON.stringify(leases),
        );
        changes.push({ type: "asked", id: record.question.id });
      },
      update: ({ record, leases }) => {
        const { id } = record.question;
        // A resolved question is kept for its retention from now.
        sql.exec(
          "UPDATE questions SET status = ?1, record = ?2, leases = ?3, expires_at = iif(?1 = 'pending', NULL, ?4 + retain_ms) WHERE id = ?5",
          record.status,
          JSON.stringify(record),
          JSON.stringify(leases),
          Date.now(),
          id,
        );
        if (record.status !== "pending") changes.push({ type: record.status, id });
      },
    };
    const value = runNow(operation(tx));
    for (const change of changes) {
      for (const wake of [...(this.#waits.get(change.id) ?? [])]) wake();
      this.#broadcast(change);
    }
    await this.#schedule(Date.now());
    return value;
  }

  /**
   * Sets the alarm for the next thing due: a resolved question to expire, or a hold on a pending
   * question to lapse, but then no sooner than the askers' lease length after `now`: they renew
   * their holds at every slice, and should not wake the object as often. An asker that died is
   * thus found out within two lease lengths.
   */
  async #schedule(now: number): Promise<void> {
    const [due] = this.#state.storage.sql.exec(
      "SELECT (SELECT min(expires_at) FROM questions) AS t, min(j.value) AS l FROM questions, json_each(leases) j WHERE status = 'pending'",
    ).toArray();
    const times = [
      due.t === null ? Infinity : Number(due.t),
      due.l === null ? Infinity : Math.max(Number(due.l), now + this.#leaseMs),
    ];
    const next = Math.min(...times);
    if (next === Infinity) return;
    const current = await this.#state.storage.getAlarm();
    // An alarm already due sooner still runs and reschedules; a later one is brought forward.
    if (current === null || current > next) await this.#state.storage.setAlarm(next);
  }

  #watch(): Response {
    const Pair = (globalThis as unknown as { WebSocketPair: new () => [WebSocket, WebSocket] })
      .WebSocketPair;
    const [client, server] = Object.values(new Pair()) as [WebSocket, WebSocket];
    this.#state.acceptWebSocket(server);
    // A 101 with a socket is how workerd hands one over; the standard constructor refuses it.
    return new Response(null, { status: 101, webSocket: client } as ResponseInit);
  }

  #broadcast(change: ChannelChange): void {
    const text = JSON.stringify(change);
    for (const socket of this.#state.getWebSockets()) {
      try {
        socket.send(text);
      } catch {
        // A socket that is closing misses this change; its watcher re-reads on reconnect.
      }
    }
  }

  #row(id: string): StoredQuestion | undefined {
    return this.#rows("id = ?", id)[0];
  }

  /** The questions `where` selects, with their holds. */
  #rows(where: string, ...bindings: unknown[]): StoredQuestion[] {
    return this.#state.storage.sql.exec(
      `SELECT seq, key, record, leases FROM questions WHERE ${where}`,
      ...bindings,
    ).toArray().map(({ seq, key, record, leases }) => ({
      seq: seq as number,
      ...(key === null ? {} : { key: key as string }),
      record: JSON.parse(record as string),
      leases: JSON.parse(leases as string),
    }));
  }
}

/**
 * The lifecycle's settings for one call: a hold lasts `leaseMs`, a keyed question's `expireMs`
 * longer; the object reads its runtime's clock.
 */
function lifecycle(
  {
    reattachMs = 0,
    leaseMs = 0,
    expireMs = 0,
    maxPending = Infinity,
    maxPendingPerSession = Infinity,
  }: Partial<Omit<Extract<ChannelCall, { op: "open" }>, "request">> = {},
): LifecycleSettings {
  return {
    reattachMs,
    limits: { maxPending, maxPendingPerSession },
    leaseMs,
    expireMs: leaseMs + expireMs,
    clock: systemClock,
  };
}
