import { CallCounter, CALLS_URL } from "./call_limits.ts";
import type {
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "../../src/human/question_channel.ts";
import {
  newQuestion,
  reattaches,
  resolution,
  WITHDRAWN,
} from "../../src/human/question_lifecycle.ts";

// The Durable Object behind `DurableObjectQuestionChannel`: one object per channel name keeps that
// channel's questions in its SQLite storage. Requests to it are one operation each (see
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
  `CREATE TABLE IF NOT EXISTS questions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    key TEXT,
    status TEXT NOT NULL,
    withdrawn INTEGER NOT NULL DEFAULT 0,
    record TEXT NOT NULL,
    retain_ms INTEGER NOT NULL,
    expires_at INTEGER
  )`,
  "CREATE INDEX IF NOT EXISTS questions_by_key ON questions (key, seq)",
  "CREATE INDEX IF NOT EXISTS questions_by_status ON questions (status, seq)",
  "CREATE INDEX IF NOT EXISTS questions_by_expiry ON questions (expires_at)",
  // Resolution time is expiry less retention: an index on that expression serves the history
  // without a new column, so tables made before it need no migration.
  "CREATE INDEX IF NOT EXISTS questions_by_resolution ON questions (expires_at - retain_ms)",
  `CREATE TABLE IF NOT EXISTS leases (
    id TEXT NOT NULL,
    waiter TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    lease_ms INTEGER NOT NULL,
    PRIMARY KEY (id, waiter)
  )`,
];

interface Row {
  seq: number;
  id: string;
  key: string | null;
  status: string;
  withdrawn: number;
  record: string;
  retain_ms: number;
}

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
    let call: ChannelCall;
    try {
      call = await request.json();
    } catch {
      return Response.json({ error: "The body is not a channel operation." }, { status: 400 });
    }
    const result = await this.#run(call);
    return result === undefined
      ? Response.json({ error: "Unknown channel operation." }, { status: 400 })
      : Response.json(result);
  }

  /** Expires resolved questions, withdraws abandoned ones, and schedules the next run. */
  async alarm(): Promise<void> {
    const now = Date.now();
    const sql = this.#state.storage.sql;
    sql.exec(
      "DELETE FROM leases WHERE id IN (SELECT id FROM questions WHERE expires_at <= ?)",
      now,
    );
    sql.exec("DELETE FROM questions WHERE expires_at <= ?", now);
    // A keyed question's lease lasts `expireMs` longer: a retry of its call may re-attach.
    const abandoned = sql.exec(
      `SELECT id, key FROM questions q WHERE status = 'pending'
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = q.id AND l.expires_at > ?)`,
      now,
    ).toArray();
    for (const { id, key } of abandoned) {
      const reason = key === null ? WITHDRAWN.lapsed : WITHDRAWN.expired;
      this.#resolve(String(id), { status: "cancelled", reason }, true);
    }
    sql.exec("DELETE FROM leases WHERE expires_at <= ?", now);
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
    switch (call?.op) {
      case "open":
        return await this.#open(call);
      case "wait":
        return await this.#wait(
          call.id,
          call.waiter,
          call.sliceMs,
          call.leaseMs,
          call.expireMs ?? 0,
        );
      case "withdraw":
        return await this.#withdraw(call.id, call.waiter, call.reason);
      case "resolve": {
        const resolved = this.#resolve(call.id, call.outcome, false);
        if (resolved) await this.#schedule(Date.now());
        return { resolved };
      }
      case "get":
        return { record: this.#row(call.id)?.record ?? null };
      case "pending":
        return {
          questions: this.#rows("SELECT * FROM questions WHERE status = 'pending' ORDER BY seq")
            .map((row) => (row.record as { question: HumanQuestion }).question),
        };
      case "resolved":
        // Pending rows have no expiry: their key is NULL, which sorts last in a descending scan.
        return {
          records: this.#rows(
            `SELECT * FROM questions WHERE expires_at IS NOT NULL
              ORDER BY expires_at - retain_ms DESC LIMIT ?`,
            call.limit,
          ).map((row) => row.record),
        };
      case "after": {
        const [row] = this.#rows(
          "SELECT * FROM questions WHERE status = 'pending' AND seq > ? ORDER BY seq LIMIT 1",
          call.seq,
        );
        return { next: row ? { seq: row.seq, question: row.record.question } : null };
      }
    }
  }

  async #open(
    {
      request,
      waiter,
      leaseMs,
      retainMs,
      reattachMs,
      expireMs = 0,
      maxPending = Infinity,
      maxPendingPerSession = Infinity,
    }: Extract<ChannelCall, { op: "open" }>,
  ): Promise<{ record: QuestionRecord } | { full: { what: string; max: number } }> {
    const sql = this.#state.storage.sql;
    if (request.key !== undefined) {
      const [latest] = this.#rows(
        "SELECT * FROM questions WHERE key = ? ORDER BY seq DESC LIMIT 1",
        request.key,
      );
      if (
        latest && reattaches(latest.record, latest.withdrawn === 1, request, reattachMs, Date.now())
      ) {
        if (latest.record.status === "pending") {
          await this.#lease(latest.id, waiter, leaseMs + expireMs);
        }
        return { record: latest.record };
      }
    }
    const [counts] = sql.exec(
      `SELECT count(*) AS total, sum(json_extract(record, '$.question.sessionId') IS ?) AS session
        FROM questions WHERE status = 'pending'`,
      request.sessionId ?? null,
    ).toArray();
    if (Number(counts.session ?? 0) >= maxPendingPerSession) {
      return { full: { what: "this session", max: maxPendingPerSession } };
    }
    if (Number(counts.total) >= maxPending) {
      return { full: { what: "the channel", max: maxPending } };
    }
    const question = newQuestion(request, Date.now());
    const record: QuestionRecord = { status: "pending", question };
    sql.exec(
      "INSERT INTO questions (id, key, status, record, retain_ms) VALUES (?, ?, 'pending', ?, ?)",
      question.id,
      request.key ?? null,
      JSON.stringify(record),
      retainMs,
    );
    await this.#lease(
      question.id,
      waiter,
      request.key === undefined ? leaseMs : leaseMs + expireMs,
    );
    this.#broadcast({ type: "asked", id: question.id });
    return { record };
  }

  async #wait(
    id: string,
    waiter: string,
    sliceMs: number,
    leaseMs: number,
    expireMs: number,
  ): Promise<{ record: QuestionRecord | null }> {
    const before = this.#row(id);
    if (!before || before.record.status !== "pending") return { record: before?.record ?? null };
    await this.#lease(id, waiter, before.key === null ? leaseMs : leaseMs + expireMs);
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

  async #withdraw(
    id: string,
    waiter: string,
    reason: string,
  ): Promise<{ withdrawn: boolean; record: QuestionRecord | null }> {
    const sql = this.#state.storage.sql;
    sql.exec("DELETE FROM leases WHERE id = ? AND waiter = ?", id, waiter);
    const [held] = sql.exec(
      "SELECT count(*) AS n FROM leases WHERE id = ? AND expires_at > ?",
      id,
      Date.now(),
    ).toArray();
    const withdrawn = Number(held.n) === 0 &&
      this.#resolve(id, { status: "cancelled", reason }, true);
    if (withdrawn) await this.#schedule(Date.now());
    return { withdrawn, record: this.#row(id)?.record ?? null };
  }

  /** Resolves question `id` if it is still pending; `true` when this call did. */
  #resolve(id: string, outcome: QuestionOutcome, withdrawn: boolean): boolean {
    const row = this.#row(id);
    if (!row || outcome.status === "closed") return false;
    const next = resolution(row.record, outcome, new Date().toISOString(), withdrawn);
    if ("done" in next) return next.done;
    const { record } = next;
    const sql = this.#state.storage.sql;
    sql.exec(
      `UPDATE questions SET status = ?, withdrawn = ?, record = ?, expires_at = ?
        WHERE id = ? AND status = 'pending'`,
      record.status,
      withdrawn ? 1 : 0,
      JSON.stringify(record),
      Date.now() + row.retain_ms,
      id,
    );
    sql.exec("DELETE FROM leases WHERE id = ?", id);
    for (const wake of [...(this.#waits.get(id) ?? [])]) wake();
    this.#broadcast({ type: record.status, id });
    return true;
  }

  /** Gives `waiter` a lease on `id` until `leaseMs` from now. */
  async #lease(id: string, waiter: string, leaseMs: number): Promise<void> {
    const expiresAt = Date.now() + leaseMs;
    this.#state.storage.sql.exec(
      `INSERT INTO leases (id, waiter, expires_at, lease_ms) VALUES (?, ?, ?, ?)
        ON CONFLICT (id, waiter) DO UPDATE SET expires_at = excluded.expires_at`,
      id,
      waiter,
      expiresAt,
      leaseMs,
    );
    await this.#schedule(Date.now());
  }

  /**
   * Sets the alarm for the next thing due: a resolved question to expire, or a lease of a
   * pending question to lapse (a keyed question's lasts `expireMs` longer), but then no sooner than a lease's length after `now`: askers
   * renew their leases at every slice, and should not wake the object as often. An asker that
   * died is thus found out within two lease lengths.
   */
  async #schedule(now: number): Promise<void> {
    const sql = this.#state.storage.sql;
    const [expiry] = sql.exec("SELECT min(expires_at) AS t FROM questions").toArray();
    const [lease] = sql.exec(
      `SELECT min(l.expires_at) AS t, min(l.lease_ms) AS ms FROM leases l
        JOIN questions q ON q.id = l.id WHERE q.status = 'pending'`,
    ).toArray();
    const times = [
      expiry.t === null ? Infinity : Number(expiry.t),
      lease.t === null ? Infinity : Math.max(Number(lease.t), now + Number(lease.ms)),
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

  #row(id: string): (Omit<Row, "record"> & { record: QuestionRecord }) | undefined {
    return this.#rows("SELECT * FROM questions WHERE id = ?", id)[0];
  }

  #rows(
    query: string,
    ...bindings: unknown[]
  ): (Omit<Row, "record"> & { record: QuestionRecord })[] {
    return this.#state.storage.sql.exec(query, ...bindings).toArray().map((raw) => {
      const row = raw as unknown as Row;
      return { ...row, record: JSON.parse(row.record) as QuestionRecord };
    });
  }
}
