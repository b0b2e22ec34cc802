import type { Sql } from "postgres";
import { StoreQuestionChannel } from "../../src/human/store_question_channel.ts";
import type { StoreQuestionChannelOptions } from "../../src/human/store_question_channel_options.ts";
import { PostgresQuestionStore, type PostgresQuestionStoreOptions } from "./question_store.ts";

/**
 * Options of {@linkcode PostgresQuestionChannel}: those of its store and of the lifecycle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import postgres from "postgres";
 * import { PostgresQuestionChannel, type PostgresQuestionChannelOptions } from "@outpost/agent-tools/postgres";
 * const options: PostgresQuestionChannelOptions = { space: "team-a", expireMs: 10 * 60_000 };
 * // No connection is made until the channel is used.
 * const channel = new PostgresQuestionChannel(postgres("postgres://outpost@127.0.0.1/outpost"), options);
 * await channel.close();
 * assert.deepEqual(await channel.ask({ question: "Late?", options: [], multiSelect: false }), {
 *   status: "closed",
 *   reason: "channel closed",
 * });
 * ```
 */
export interface PostgresQuestionChannelOptions
  extends StoreQuestionChannelOptions, PostgresQuestionStoreOptions {}

/**
 * A durable {@linkcode StoreQuestionChannel} on PostgreSQL ({@linkcode PostgresQuestionStore}):
 * every process on the same database and `space` shares its questions, so replicas behind a
 * load balancer serve one set of questions. A question is committed before its ask waits, and an
 * answer (the first wins, in a transaction that locks the question's row) before `answer`
 * resolves; `LISTEN`/`NOTIFY` wakes the waiting asks, `questions()` iterators and `changes()`
 * watchers of every replica when one is asked or resolved. As on Deno KV, a question held by a
 * process that died is withdrawn once its lease lapses: `leaseMs` (default 30 s) for one asked
 * without a key, `expireMs` (default 1 hour) for a keyed one, which a retried call re-attaches to
 * meanwhile, from any replica. `close()` keeps keyed questions pending for such a retry. The
 * client stays yours to end, after `close()`.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a PostgreSQL server (tests/postgres_question_channel_test.ts runs the
 * // contract suite on one, with two channel objects as peers).
 * import postgres from "postgres";
 * import { askHuman } from "@outpost/agent-tools/human";
 * import { PostgresQuestionChannel } from "@outpost/agent-tools/postgres";
 * const sql = postgres("postgres://outpost@127.0.0.1/outpost");
 * const tool = askHuman(new PostgresQuestionChannel(sql), { timeoutMs: 30 * 60_000 });
 * ```
 */
export class PostgresQuestionChannel extends StoreQuestionChannel {
  /** Uses `sql`; throws `SetupError` for a bad client or option. Connects on first use. */
  constructor(sql: Sql, options: PostgresQuestionChannelOptions = {}) {
    const { leaseMs = 30_000, expireMs = 60 * 60_000 } = options;
    super(new PostgresQuestionStore(sql, options), { ...options, leaseMs, expireMs });
  }
}
