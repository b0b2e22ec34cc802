import type { Sql } from "postgres";

// A connection the server dropped (a restart, `pg_terminate_backend`, an idle timeout) stays in
// the client's pool until the client notices, and the first query on it fails; the next one
// opens a fresh connection. What is safe to run again is run again, so that the stores recover
// without their callers seeing the drop.

/**
 * The codes of a lost connection, not of a failed statement: the socket's, the client's, and the
 * server's own when it ends a session (connection exceptions; an administrator's, a shutdown's or
 * a crash's termination; an idle session's timeout).
 */
const LOST = new Set([
  "ECONNRESET",
  "EPIPE",
  "CONNECTION_CLOSED",
  "08000",
  "08003",
  "08006",
  "57P01",
  "57P02",
  "57P05",
]);

/** Whether `error` says that the connection was lost (not the database refusing a statement). */
export function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && LOST.has(code);
}

/**
 * How many lost connections one operation on `sql` may meet before it fails: each pooled
 * connection the server dropped fails one query at most, and then the pool opens a new one.
 */
export function lostConnectionsTolerated(sql: Sql): number {
  return sql.options.max;
}

/**
 * Runs `operation`, which must be safe to run again (a read, or a write that leaves the same
 * state however often it runs), and again after each lost connection, at most once more per
 * pooled connection of `sql` (so that the last run has a connection opened anew); other errors
 * are thrown at once.
 */
export async function againIfLost<T>(sql: Sql, operation: () => Promise<T>): Promise<T> {
  for (let lost = 0;; lost++) {
    try {
      return await operation();
    } catch (error) {
      if (!connectionLost(error) || lost >= lostConnectionsTolerated(sql)) throw error;
    }
  }
}
