import type { Sql } from "postgres";
import type { UrlCache } from "../../mod.ts";
import type { CachedPage } from "../../src/fetch/mod.ts";
import { checkCacheKey, checkCacheWrite } from "../../src/fetch/url_cache.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import { sha256 } from "../../src/sha256.ts";
import { checkClient, spaceOption, tableMaker } from "./tables.ts";
import { againIfLost } from "./lost_connection.ts";

/**
 * Options of {@linkcode PostgresUrlCache}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import postgres from "postgres";
 * import { PostgresUrlCache, type PostgresUrlCacheOptions } from "@outpost/agent-tools/postgres";
 * const options: PostgresUrlCacheOptions = { space: "team-a" };
 * // No connection is made until the cache is used.
 * const cache = new PostgresUrlCache(postgres("postgres://outpost@127.0.0.1/outpost"), options);
 * assert.equal(typeof cache.get, "function");
 * ```
 */
export interface PostgresUrlCacheOptions {
  /**
   * Which entries are this cache's (default `"default"`): caches on one database with different
   * spaces share nothing. At most 200 characters.
   */
  space?: string;
  /** The clock a TTL runs on (default the system's). */
  clock?: Clock;
}

const TABLES = [
  `CREATE TABLE IF NOT EXISTS outpost_url_cache (
    space text NOT NULL,
    key_hash bytea NOT NULL,
    key_json text NOT NULL,
    stored_at double precision NOT NULL,
    page text NOT NULL,
    expires_at bigint,
    PRIMARY KEY (space, key_hash)
  )`,
  `CREATE INDEX IF NOT EXISTS outpost_url_cache_expiry
    ON outpost_url_cache (expires_at) WHERE expires_at IS NOT NULL`,
];

/** Expired rows one write deletes at most, so that a write's cost stays small. */
const SWEEP = 100;

/**
 * The {@linkcode UrlCache} on PostgreSQL, for `HttpReader`: every replica of a deployment that
 * uses the same database (and `space`) shares the pages it read. An entry is one row, written
 * whole by one statement, so readers never see half of one, and of concurrent writes to a URL
 * the last to commit wins. Keys are any strings, kept exactly (rows are found by the key's SHA-256,
 * so URLs of any length fit). An entry whose `ttlMs` has passed on the cache's clock is not served, and
 * each write deletes up to 100 expired rows. A read or write that meets a connection the server
 * dropped runs again (both are safe to repeat), so a restart of the server is not seen. The table
 * `outpost_url_cache` is created on first use. The client, `sql` from the `postgres` package, stays yours to end.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a PostgreSQL server (tests/postgres_url_cache_test.ts runs it on one).
 * import postgres from "postgres";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { PostgresUrlCache } from "@outpost/agent-tools/postgres";
 * const sql = postgres("postgres://outpost@127.0.0.1/outpost");
 * const tool = webFetch(new HttpReader({ cache: new PostgresUrlCache(sql) }));
 * ```
 */
export class PostgresUrlCache implements UrlCache {
  readonly #sql: Sql;
  readonly #space: string;
  readonly #clock: Clock;
  readonly #tables: () => Promise<void>;

  /** Uses `sql`; throws `SetupError` for a bad client or option. Connects on first use. */
  constructor(sql: Sql, options: PostgresUrlCacheOptions = {}) {
    const { space = "default", clock = systemClock } = options;
    this.#sql = checkClient(sql, "PostgresUrlCache");
    this.#space = spaceOption(space);
    this.#clock = clock;
    this.#tables = tableMaker(
      this.#sql,
      ["outpost_url_cache", "outpost_url_cache_expiry"],
      TABLES,
    );
  }

  /** The entry stored under `key`, or `undefined` when there is none or its TTL has passed. */
  async get(key: string): Promise<CachedPage | undefined> {
    checkCacheKey(key);
    await this.#tables();
    const json = JSON.stringify(key);
    const hash = await sha256(json);
    const [row] = await againIfLost(
      this.#sql,
      () =>
        this.#sql<{ key_json: string; stored_at: number; page: string }[]>`
        SELECT key_json, stored_at, page FROM outpost_url_cache
        WHERE space = ${this.#space} AND key_hash = ${hash}
          AND (expires_at IS NULL OR expires_at > ${this.#clock.now()})`,
    );
    if (!row || row.key_json !== json) return undefined;
    return { storedAt: row.stored_at, page: JSON.parse(row.page) };
  }

  /**
   * Stores `entry` under `key`, replacing what was there, for `ttlMs` (default: until deleted).
   * Rejects with `SetupError`, writing nothing, for a bad key, entry or TTL.
   */
  async set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    checkCacheWrite(key, entry, ttlMs);
    // JSON as text: a text column refuses U+0000, jsonb too, and UTF-8 cannot carry a lone
    // surrogate; JSON escapes both, so any key and page round-trip exactly.
    const json = JSON.stringify(key);
    const page = JSON.stringify(entry.page);
    const now = this.#clock.now();
    const expiresAt = ttlMs === undefined || now + ttlMs > Number.MAX_SAFE_INTEGER
      ? null
      : Math.ceil(now + ttlMs);
    const hash = await sha256(json);
    await this.#tables();
    // Both statements leave the same rows however often they run: safe to run again.
    await againIfLost(this.#sql, () =>
      this.#sql`
        INSERT INTO outpost_url_cache (space, key_hash, key_json, stored_at, page, expires_at)
        VALUES (${this.#space}, ${hash}, ${json}, ${entry.storedAt}, ${page}, ${expiresAt})
        ON CONFLICT (space, key_hash) DO UPDATE SET key_json = EXCLUDED.key_json,
          stored_at = EXCLUDED.stored_at, page = EXCLUDED.page, expires_at = EXCLUDED.expires_at`);
    await againIfLost(this.#sql, () =>
      this.#sql`
        DELETE FROM outpost_url_cache WHERE ctid IN (
          SELECT ctid FROM outpost_url_cache WHERE expires_at <= ${now} LIMIT ${SWEEP})`);
  }
}
