import postgres, { type Sql } from "postgres";
import { SetupError } from "../../src/errors.ts";

/**
 * Options of {@linkcode connectPostgres}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectPostgres, type ConnectPostgresOptions } from "@outpost/agent-tools/postgres";
 * const options: ConnectPostgresOptions = { setting: "DATABASE_URL", timeoutMs: 1_000 };
 * await assert.rejects(connectPostgres("mysql://db/app", options), /DATABASE_URL must be/);
 * ```
 */
export interface ConnectPostgresOptions {
  /** Names where the URL came from in errors (default `"OUTPOST_DATABASE_URL"`). */
  setting?: string;
  /** How long connecting may take, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The most connections the client opens at once (default 10). */
  max?: number;
}

/**
 * Opens a client of the `postgres` package on `url` (`postgres://user:password@host:port/db`,
 * or `postgresql://`) and checks that it reaches the database, so that a deployment with a
 * wrong URL, a database that is down or a refused login fails at start, not at its first
 * question. Rejects with a `SetupError` that names the setting and the server, and shows the
 * URL with its password replaced by `***`: never the password. The client is yours to `end()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectPostgres } from "@outpost/agent-tools/postgres";
 * // Nothing listens on port 1: the error says so, without the password.
 * const error = await connectPostgres("postgres://app:s3cret@127.0.0.1:1/app").catch((e) => e);
 * assert.match(error.message, /Cannot connect to the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app/);
 * assert.doesNotMatch(`${error.message} ${error.hint}`, /s3cret/);
 * ```
 */
export async function connectPostgres(
  url: string,
  options: ConnectPostgresOptions = {},
): Promise<Sql> {
  const { setting = "OUTPOST_DATABASE_URL", timeoutMs = 10_000, max = 10 } = options;
  const shown = redact(url);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Refused below.
  }
  if (!parsed || !/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname) {
    throw new SetupError(`${setting} must be a postgres:// URL, not ${shown}.`, {
      hint: "Write it as postgres://user:password@host:5432/database.",
    });
  }
  const sql = postgres(url, {
    max,
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    // The server's notices (a table that already exists) are no news to an operator.
    onnotice: () => {},
  });
  try {
    await sql`SELECT 1`;
    return sql;
  } catch (error) {
    await sql.end({ timeout: 0 }).catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    const reason = parsed.password ? message.replaceAll(parsed.password, "***") : message;
    throw new SetupError(`Cannot connect to the database at ${shown} (${setting}): ${reason}.`, {
      hint: "Check that PostgreSQL runs there and takes this user, password and database.",
    });
  }
}

/** `url` with its password, if any, replaced by `***`, for messages and logs. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    // Not a URL: show none of it, in case a password is in there somewhere.
    return "(not a URL)";
  }
}
