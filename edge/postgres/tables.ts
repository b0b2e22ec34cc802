import type { Sql } from "postgres";
import { SetupError } from "../../src/errors.ts";
import { checkOption, type OptionKind } from "../../src/option_checks.ts";
import { againIfLost } from "./lost_connection.ts";

// What the PostgreSQL stores share: the check that `sql` is a client, the `space` their rows
// are kept under, and the creation of their tables.

/** The most characters of a `space`: it travels in every NOTIFY payload (at most 8000 bytes). */
export const MAX_SPACE_LENGTH = 200;

const SPACE = new RegExp(`^[\\w.:@-]{1,${MAX_SPACE_LENGTH}}$`);

const spaceKind: OptionKind<string> = {
  accepts: (value): value is string => typeof value === "string" && SPACE.test(value),
  expected: `1 to ${MAX_SPACE_LENGTH} letters, digits or . _ : @ -`,
};

/** `space` checked: 1 to {@linkcode MAX_SPACE_LENGTH} letters, digits or `. _ : @ -`. */
export function spaceOption(space: unknown): string {
  return checkOption("space", space, spaceKind);
}

/** Refuses what is not a client of the `postgres` package, naming the store that needs one. */
export function checkClient(sql: unknown, store: string): Sql {
  if (typeof sql !== "function" || typeof (sql as Partial<Sql>).begin !== "function") {
    throw new SetupError(`${store} needs a client of the \`postgres\` package.`, {
      hint: 'Pass `postgres("postgres://user:password@host/database")` from npm:postgres.',
    });
  }
  return sql as Sql;
}

/**
 * Creates what a store needs once per store object: the relations `names` (tables, indexes,
 * sequences) by `statements` (each idempotent: `IF NOT EXISTS`), unless they all exist already,
 * so that a user who may not create tables runs on tables made for it. The creation holds an
 * advisory lock, since concurrent `CREATE TABLE IF NOT EXISTS` in two processes can still
 * collide. A failure is not remembered: the next call tries again.
 */
export function tableMaker(
  sql: Sql,
  names: readonly string[],
  statements: readonly string[],
): () => Promise<void> {
  let made: Promise<void> | undefined;
  // Each statement is idempotent: safe to run again after a lost connection.
  const make = () =>
    againIfLost(sql, async () => {
      const [{ missing }] = await sql<{ missing: number }[]>`
      SELECT count(*)::int AS missing FROM unnest(${names}::text[]) AS name
      WHERE to_regclass(name) IS NULL`;
      if (missing === 0) return;
      await sql.begin(async (tx) => {
        await tx`SET LOCAL client_min_messages = warning`;
        await tx`SELECT pg_advisory_xact_lock(hashtext('outpost tables'))`;
        for (const statement of statements) await tx.unsafe(statement);
      });
    });
  return () =>
    made ??= make().catch((error) => {
      made = undefined;
      throw error;
    });
}
