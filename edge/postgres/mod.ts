/**
 * PostgreSQL stores for Outpost, so that two or more replicas of a deployment (the Deno service
 * behind a load balancer, or a Node server) share what one process would keep alone:
 * `PostgresUrlCache`, `web_fetch`'s cache, and `PostgresQuestionChannel`, a durable question
 * channel for `ask_human` whose waiting asks and watchers are woken by `LISTEN`/`NOTIFY`. Both
 * take a client of the `postgres` npm package, which connects over TCP (`node:net`), so they run
 * on Deno and Node but not in a Worker. `deno task start` and `deno task mcp` use them when
 * `OUTPOST_DATABASE_URL` is set.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a PostgreSQL server (tests/postgres_*_test.ts run these on one).
 * import postgres from "postgres";
 * import { askHuman } from "@outpost/agent-tools/human";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { PostgresQuestionChannel, PostgresUrlCache } from "@outpost/agent-tools/postgres";
 *
 * const sql = postgres("postgres://outpost@127.0.0.1/outpost");
 * const tools = [
 *   webFetch(new HttpReader({ cache: new PostgresUrlCache(sql) })),
 *   askHuman(new PostgresQuestionChannel(sql)),
 * ];
 * ```
 *
 * @module
 */
export { PostgresUrlCache, type PostgresUrlCacheOptions } from "./url_cache.ts";
export { connectPostgres, type ConnectPostgresOptions } from "./connect.ts";
export {
  PostgresQuestionChannel,
  type PostgresQuestionChannelOptions,
} from "./question_channel.ts";
export { PostgresQuestionStore, type PostgresQuestionStoreOptions } from "./question_store.ts";
