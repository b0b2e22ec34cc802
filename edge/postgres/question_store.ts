import type { PostgresError, Sql, TransactionSql } from "postgres";
import type {
  QuestionStore,
  QuestionTransaction,
  StoredQuestion,
} from "../../src/human/question_store.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import { checkOption, positiveInteger } from "../../src/option_checks.ts";
import { sha256 } from "../../src/sha256.ts";
import { MAX_QUESTION_ID_LENGTH } from "../../src/human/question_support.ts";
import { checkClient, spaceOption, tableMaker } from "./tables.ts";
import { againIfLost, connectionLost, lostConnectionsTolerated } from "./lost_connection.ts";
import { CHANNEL, notifications } from "./notifications.ts";

/**
 * Options of {@linkcode PostgresQuestionStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import postgres from "postgres";
 * import { PostgresQuestionStore, type PostgresQuestionStoreOptions } from "@outpost/agent-tools/postgres";
 * const options: PostgresQuestionStoreOptions = { space: "team-a", retainMs: 24 * 60 * 60_000 };
 * // No connection is made until the store is used.
 * const store = new PostgresQuestionStore(postgres("postgres://outpost@127.0.0.1/outpost"), options);
 * assert.equal(store.lateBy, 0);
 * ```
 */
export interface PostgresQuestionStoreOptions {
  /**
   * Whose questions these are (default `"default"`): stores on one database with different
   * spaces share nothing, not even their notifications' wake-ups. At most 200 letters, digits
   * or `. _ : @ -`.
   */
  space?: string;
  /**
   * How long a resolved question is kept, for `get`, the history and re-attaching a retried
   * call, before a later write deletes it (default 7 days). Pending ones are never deleted.
   */
  retainMs?: number;
  /** The clock retention runs on: the channel's (default the system's). */
  clock?: Clock;
}

/** NOTIFY refuses payloads of 8000 bytes or more; a change of more ids wakes with "anything". */
const MAX_PAYLOAD = 7_900;
/** Rows one insert deletes at most once their retention has passed. */
const SWEEP = 100;
const DAY = 24 * 60 * 60_000;

const TABLES = [
  "CREATE SEQUENCE IF NOT EXISTS outpost_question_seq",
  `CREATE TABLE IF NOT EXISTS outpost_questions (
    space text NOT NULL,
    id text NOT NULL,
    seq bigint NOT NULL,
    key_hash bytea,
    key_json text,
    session_json text NOT NULL,
    pending boolean NOT NULL,
    resolved_ms double precision,
    data text NOT NULL,
    PRIMARY KEY (space, id)
  )`,
  `CREATE INDEX IF NOT EXISTS outpost_questions_pending
    ON outpost_questions (space, seq) WHERE pending`,
  `CREATE INDEX IF NOT EXISTS outpost_questions_sessions
    ON outpost_questions (space, session_json) WHERE pending`,
  `CREATE INDEX IF NOT EXISTS outpost_questions_resolved
    ON outpost_questions (space, resolved_ms DESC, seq DESC) WHERE NOT pending`,
  `CREATE INDEX IF NOT EXISTS outpost_questions_keys
    ON outpost_questions (space, key_hash, seq DESC) WHERE key_hash IS NOT NULL`,
];

/** What `TABLES` makes. */
const RELATIONS = [
  "outpost_question_seq",
  "outpost_questions",
  "outpost_questions_pending",
  "outpost_questions_sessions",
  "outpost_questions_resolved",
  "outpost_questions_keys",
];

/** A row as the queries select it. */
interface Row {
  seq: string;
  data: string;
}

/** How far a transaction got: its id and result once every write was sent, before COMMIT. */
interface RunState<T> {
  written?: { xid: string; result: T };
}

/** Errors after which a transaction is run again: a serialization failure, a deadlock. */
const RETRIED = new Set(["40001", "40P01"]);

/**
 * A {@linkcode QuestionStore} on PostgreSQL: the questions of every replica of a deployment on
 * one database (and `space`), so that an operator on any replica sees and answers every
 * question, and a retried call re-attaches wherever it lands.
 *
 * - `transact` runs in one database transaction (READ COMMITTED): reading a question locks its
 *   row (`FOR UPDATE`) and reading a key takes an advisory lock on it, so that two replicas
 *   resolving one question, or asking under one key, go one after the other and the second
 *   sees what the first wrote. Writes are applied when the function returns, with the
 *   transaction; a deadlock runs the function again. Counts are read without locks, as the
 *   interface allows.
 * - New questions take their `seq` from a sequence under a per-space lock held to the commit,
 *   so that ask order is commit order and `lateBy` is 0.
 * - Each transaction that inserts or resolves questions sends one `NOTIFY outpost_questions`
 *   with their ids, delivered when it commits; `watch` LISTENs (one LISTEN per client, shared
 *   by every watch on it), so waiting asks and console streams on every replica wake at once,
 *   without polling.
 * - A connection the server dropped (a restart, a failover, `pg_terminate_backend`, an idle
 *   timeout) fails the first query on it: reads and transactions then run again, up to once per
 *   pooled connection. A transaction whose connection was lost while it committed is looked up
 *   by its id (`txid_status`): if it committed, its result stands and it is not run again, so no
 *   question is inserted twice and no answer applied twice. SQL errors are never retried.
 * - Records are kept as JSON text (a question or answer with U+0000 in it round-trips).
 *
 * The tables `outpost_questions` and the sequence `outpost_question_seq` are created on first
 * use. The client, `sql` from the `postgres` package, stays yours to end.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a PostgreSQL server (tests/postgres_question_channel_test.ts).
 * import postgres from "postgres";
 * import { StoreQuestionChannel } from "@outpost/agent-tools/human";
 * import { PostgresQuestionStore } from "@outpost/agent-tools/postgres";
 * const store = new PostgresQuestionStore(postgres("postgres://outpost@127.0.0.1/outpost"));
 * // What PostgresQuestionChannel is, with leases for replicas that may die:
 * const channel = new StoreQuestionChannel(store, { leaseMs: 30_000, expireMs: 60 * 60_000 });
 * ```
 */
export class PostgresQuestionStore implements QuestionStore {
  readonly #sql: Sql;
  readonly #space: string;
  readonly #retainMs: number;
  readonly #clock: Clock;
  readonly #tables: () => Promise<void>;

  /** Ask order is commit order here: nothing is committed behind a question already listed. */
  readonly lateBy = 0;

  /** Uses `sql`; throws `SetupError` for a bad client or option. Connects on first use. */
  constructor(sql: Sql, options: PostgresQuestionStoreOptions = {}) {
    const { space = "default", retainMs = 7 * DAY, clock = systemClock } = options;
    this.#sql = checkClient(sql, "PostgresQuestionStore");
    this.#space = spaceOption(space);
    this.#retainMs = checkOption("retainMs", retainMs, positiveInteger);
    this.#clock = clock;
    this.#tables = tableMaker(this.#sql, RELATIONS, TABLES);
  }

  /**
   * Runs `fn` in one transaction, its writes applied together when it returns; runs it again
   * after a deadlock or serialization failure, and after a lost connection unless the
   * transaction committed: one whose connection was lost while it committed is looked up by its
   * id, so that what committed is never applied twice (nor a question inserted twice), and what
   * did not is applied once.
   */
  async transact<T>(fn: (tx: QuestionTransaction) => T | Promise<T>): Promise<T> {
    await this.#tables();
    for (let attempt = 1, lost = 0;; attempt++) {
      const run: RunState<T> = {};
      try {
        return await this.#sql.begin((sql) => this.#run(sql, fn, run)) as T;
      } catch (error) {
        if (RETRIED.has((error as PostgresError)?.code)) {
          if (attempt >= 20) throw error;
          continue;
        }
        if (!connectionLost(error) || lost++ >= lostConnectionsTolerated(this.#sql)) throw error;
        // Lost after every write was sent: the COMMIT may have been applied.
        if (run.written) {
          // A server that cannot say leaves the outcome unknown: the caller hears of the loss.
          const status = await this.#statusOf(run.written.xid).catch(() => undefined);
          if (status === "committed") return run.written.result;
          if (status !== "aborted") throw error;
        }
      }
    }
  }

  /**
   * Whether transaction `xid` committed, once the server has finished it (a session ended by the
   * server ends its transaction at once, but not within the same instant): `undefined` when the
   * server still does not say after a few seconds, or no longer knows.
   */
  async #statusOf(xid: string): Promise<"committed" | "aborted" | undefined> {
    for (let waitMs = 5; waitMs <= 2_560; waitMs *= 2) {
      const [{ status }] = await againIfLost(
        this.#sql,
        () => this.#sql<{ status: string | null }[]>`SELECT txid_status(${xid}) AS status`,
      );
      if (status === "committed" || status === "aborted") return status;
      if (status !== "in progress") return undefined;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    return undefined;
  }

  async #run<T>(
    sql: TransactionSql,
    fn: (tx: QuestionTransaction) => T | Promise<T>,
    run: RunState<T>,
  ): Promise<T> {
    const space = this.#space;
    const inserts: Omit<StoredQuestion, "seq">[] = [];
    const updates = new Map<string, StoredQuestion>();
    /** Whether each question read was pending, to tell which updates resolve one. */
    const wasPending = new Map<string, boolean>();
    const read = (row: Row | undefined) => {
      if (!row) return undefined;
      const stored = parse(row);
      wasPending.set(stored.record.question.id, stored.record.status === "pending");
      return stored;
    };
    const tx: QuestionTransaction = {
      get: async (id) => {
        if (!storable(id)) return undefined;
        const [row] = await sql<Row[]>`
          SELECT seq, data FROM outpost_questions WHERE space = ${space} AND id = ${id}
          FOR UPDATE`;
        return read(row);
      },
      byKey: async (key) => {
        const json = JSON.stringify(key);
        // Asks under one key go one at a time, even when there is no row yet to lock.
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${space}\n${json}`}, 0))`;
        const [row] = await sql<Row[]>`
          SELECT seq, data FROM outpost_questions
          WHERE space = ${space} AND key_hash = ${await sha256(json)} AND key_json = ${json}
          ORDER BY seq DESC LIMIT 1 FOR UPDATE`;
        return read(row);
      },
      counts: async (sessionId) => {
        const [row] = await sql<{ pending: number; in_session: number }[]>`
          SELECT count(*)::int AS pending,
            (count(*) FILTER (WHERE session_json = ${sessionJson(sessionId)}))::int AS in_session
          FROM outpost_questions WHERE space = ${space} AND pending`;
        return { pending: row.pending, inSession: row.in_session };
      },
      insert: (question) => void inserts.push(question),
      update: (stored) => void updates.set(stored.record.question.id, stored),
    };
    const result = await fn(tx);
    const changed: string[] = [];
    for (const stored of updates.values()) {
      const { id } = stored.record.question;
      const pending = stored.record.status === "pending";
      await sql`
        UPDATE outpost_questions SET pending = ${pending}, resolved_ms = ${resolvedMs(stored)},
          data = ${JSON.stringify(withoutSeq(stored))}
        WHERE space = ${space} AND id = ${id} AND seq = ${stored.seq}`;
      if (wasPending.get(id) !== pending) changed.push(id);
    }
    if (inserts.length > 0) {
      // Held to the commit: questions of this space get their seq in commit order.
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`seq\n${space}`}, 0))`;
      for (const question of inserts) {
        const { id, sessionId } = question.record.question;
        const keyJson = question.key === undefined ? null : JSON.stringify(question.key);
        await sql`
          INSERT INTO outpost_questions
            (space, id, seq, key_hash, key_json, session_json, pending, resolved_ms, data)
          VALUES (${space}, ${id}, nextval('outpost_question_seq'),
            ${keyJson === null ? null : await sha256(keyJson)}, ${keyJson},
            ${sessionJson(sessionId)}, ${question.record.status === "pending"},
            ${resolvedMs(question)}, ${JSON.stringify(question)})`;
        changed.push(id);
      }
      await sql`
        DELETE FROM outpost_questions WHERE space = ${space} AND id IN (
          SELECT id FROM outpost_questions WHERE space = ${space} AND NOT pending
            AND resolved_ms < ${this.#clock.now() - this.#retainMs} LIMIT ${SWEEP})`;
    }
    if (updates.size === 0 && inserts.length === 0) return result;
    // The transaction's id, to tell whether it committed if the connection is lost meanwhile;
    // taken with the notification, in the same round trip.
    let notify = sql`NULL`;
    if (changed.length > 0) {
      const payload = JSON.stringify({ space, ids: changed });
      const fits = new TextEncoder().encode(payload).length <= MAX_PAYLOAD;
      notify = sql`pg_notify(${CHANNEL}, ${fits ? payload : JSON.stringify({ space })})`;
    }
    const [{ xid }] = await sql<{ xid: string }[]>`
      SELECT ${notify}, txid_current()::text AS xid`;
    run.written = { xid, result };
    return result;
  }

  /** The question `id`, as last committed. */
  async get(id: string): Promise<StoredQuestion | undefined> {
    if (!storable(id)) return undefined;
    await this.#tables();
    const [row] = await againIfLost(this.#sql, () =>
      this.#sql<Row[]>`
        SELECT seq, data FROM outpost_questions WHERE space = ${this.#space} AND id = ${id}`);
    return row && parse(row);
  }

  /** The pending questions in ask order, after `after`, at most `limit`. */
  async pending(options: { after?: number; limit?: number } = {}): Promise<StoredQuestion[]> {
    const { after = 0, limit } = options;
    await this.#tables();
    const rows = await againIfLost(this.#sql, () =>
      this.#sql<Row[]>`
        SELECT seq, data FROM outpost_questions
        WHERE space = ${this.#space} AND pending AND seq > ${after}
        ORDER BY seq ${limit === undefined ? this.#sql`` : this.#sql`LIMIT ${limit}`}`);
    return rows.map(parse);
  }

  /** The resolved questions still kept, most recently resolved first, at most `limit`. */
  async resolved(limit: number): Promise<StoredQuestion[]> {
    await this.#tables();
    const rows = await againIfLost(this.#sql, () =>
      this.#sql<Row[]>`
        SELECT seq, data FROM outpost_questions WHERE space = ${this.#space} AND NOT pending
        ORDER BY resolved_ms DESC, seq DESC LIMIT ${limit}`);
    return rows.map(parse);
  }

  /**
   * LISTENs for the notifications of this space: yields once listening, then the ids each
   * committed change inserted or resolved (folded together while the consumer is busy), and
   * `undefined` after the listening connection was lost and the client LISTENed again (it does
   * so by itself, retrying while the server is down), since changes may have been missed
   * meanwhile: the consumer reads again. Ends when `signal` aborts.
   */
  async *watch(stop: AbortSignal): AsyncIterable<readonly string[] | undefined> {
    if (stop.aborted) return;
    await this.#tables();
    /** Ids changed since the last yield; `null` when anything may have changed. */
    let changed: Set<string> | null | undefined;
    let wake = () => {};
    const note = (ids: readonly string[] | null) => {
      if (changed === null) return;
      if (ids === null) changed = null;
      else for (const id of ids) (changed ??= new Set()).add(id);
      wake();
    };
    const unsubscribe = await notifications(this.#sql).subscribe((change) => {
      if (change === null) note(null);
      else if (change.space === this.#space) note(change.ids ?? null);
    });
    const onStop = () => wake();
    stop.addEventListener("abort", onStop, { once: true });
    try {
      yield [];
      while (!stop.aborted) {
        if (changed === undefined) {
          await new Promise<void>((resolve) => wake = resolve);
          continue;
        }
        const ids = changed === null ? undefined : [...changed];
        changed = undefined;
        yield ids;
      }
    } finally {
      stop.removeEventListener("abort", onStop);
      unsubscribe();
    }
  }
}

/** Whether `id` could have been stored: a text column takes no U+0000 nor a lone surrogate. */
function storable(id: string): boolean {
  return id.length <= MAX_QUESTION_ID_LENGTH && !id.includes("\u0000") && id.isWellFormed();
}

function parse(row: Row): StoredQuestion {
  return { ...JSON.parse(row.data), seq: Number(row.seq) };
}

function withoutSeq(stored: StoredQuestion): Omit<StoredQuestion, "seq"> {
  const { seq: _, ...rest } = stored;
  return rest;
}

function sessionJson(sessionId: string | undefined): string {
  return JSON.stringify(sessionId ?? null);
}

function resolvedMs(stored: Omit<StoredQuestion, "seq">): number | null {
  return stored.record.status === "pending" ? null : Date.parse(stored.record.resolvedAt);
}
