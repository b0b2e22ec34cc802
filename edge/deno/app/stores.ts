// The stores `deno task start` and `deno task mcp` keep their questions and pages in: one Deno
// KV file for a single process, or PostgreSQL (OUTPOST_DATABASE_URL) shared by replicas.
import type { QuestionChannel, UrlCache } from "../../../mod.ts";
import { DEFAULT_TENANT } from "../../service/tenants.ts";
import { connectPostgres, redact } from "../../postgres/connect.ts";
import { PostgresQuestionChannel } from "../../postgres/question_channel.ts";
import { PostgresUrlCache } from "../../postgres/url_cache.ts";
import { DenoKvQuestionChannel } from "../question_channel.ts";
import { DenoKvUrlCache } from "../url_cache.ts";

/** Where the service keeps its questions and pages, and how it lets go of them. */
export interface Stores {
  cache: UrlCache;
  /** A channel of the tenant's own, sharing nothing with another tenant's. */
  channelFor(tenant: string): QuestionChannel;
  /** Names the store in the start-up banner, without any password. */
  label: string;
  /** Closes the store once the channel is closed. */
  close(): Promise<void>;
}

/** The variable naming the PostgreSQL database, on every Deno entry. */
export const DATABASE_URL_VARIABLE = "OUTPOST_DATABASE_URL";

/** Where the stores are: the database the environment names, else the Deno KV directory. */
export interface StoresPlace {
  /** The environment, where `OUTPOST_DATABASE_URL` (blank counts as unset) wins. */
  env: Record<string, string | undefined>;
  /** Where the Deno KV file is, without a database. */
  dataDir?: string;
}

/**
 * The stores `place` chooses: PostgreSQL when the environment names a database (one that cannot
 * be reached is a `SetupError` naming the variable), else Deno KV in `dataDir`, else none.
 */
export function openStores(place: StoresPlace & { dataDir: string }): Promise<Stores>;
export function openStores(place: StoresPlace): Promise<Stores | undefined>;
export async function openStores(place: StoresPlace): Promise<Stores | undefined> {
  const databaseUrl = place.env[DATABASE_URL_VARIABLE]?.trim();
  if (databaseUrl) return await postgresStores(databaseUrl);
  return place.dataDir === undefined ? undefined : await kvStores(place.dataDir);
}

/** The stores on PostgreSQL. */
async function postgresStores(url: string): Promise<Stores> {
  const sql = await connectPostgres(url, { setting: DATABASE_URL_VARIABLE });
  return {
    cache: new PostgresUrlCache(sql),
    channelFor: (tenant) => new PostgresQuestionChannel(sql, { space: tenant }),
    label: `PostgreSQL ${redact(url)}`,
    close: () => sql.end({ timeout: 5 }),
  };
}

/** The stores on one Deno KV file under `dataDir`, for a single process. */
async function kvStores(dataDir: string): Promise<Stores> {
  await Deno.mkdir(dataDir, { recursive: true });
  const path = `${dataDir}/outpost.sqlite3`;
  const kv = await Deno.openKv(path);
  return {
    cache: new DenoKvUrlCache(kv),
    channelFor: (tenant) =>
      new DenoKvQuestionChannel(
        kv,
        tenant === DEFAULT_TENANT ? {} : { prefix: ["outpost", "tenant", tenant] },
      ),
    label: path,
    close: () => Promise.resolve(kv.close()),
  };
}
