import { SetupError, type UrlCache } from "../../mod.ts";
import type { CachedPage } from "../../src/fetch/mod.ts";
import { checkCacheKey, checkCacheWrite } from "../../src/fetch/url_cache.ts";
import { sha256 } from "../../src/sha256.ts";

/**
 * Options of {@linkcode DenoKvUrlCache}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DenoKvUrlCache, type DenoKvUrlCacheOptions } from "@outpost/agent-tools/deno";
 * const options: DenoKvUrlCacheOptions = { prefix: ["my-app", "pages"] };
 * const kv = await Deno.openKv(":memory:");
 * const page = { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false };
 * await new DenoKvUrlCache(kv, options).set(page.url, { storedAt: Date.now(), page });
 * // Everything it stored is under the prefix:
 * const keys = (await Array.fromAsync(kv.list({ prefix: [] }))).map((entry) => entry.key);
 * assert.ok(keys.length > 0 && keys.every(([app, kind]) => app === "my-app" && kind === "pages"));
 * kv.close();
 * ```
 */
export interface DenoKvUrlCacheOptions {
  /** The key prefix the cache writes under (default `["outpost", "url_cache"]`). */
  prefix?: Deno.KvKey;
}

/** What the cache stores under `[...prefix, hash]`; the page itself lives in chunks beside it. */
interface Head {
  key: string;
  storedAt: number;
  version: string;
  chunks: number;
}

/** Deno KV refuses values over 64 KiB; a page is split into chunks below that. */
const CHUNK_BYTES = 60_000;
/** Chunks written per atomic operation, well inside KV's per-operation size limit. */
const CHUNKS_PER_WRITE = 8;
/** `getMany` reads at most ten keys. */
const KEYS_PER_READ = 10;
/**
 * KV refuses an `expireIn` far ahead (10^15 ms passes, 2^53 does not); a longer TTL, like
 * `Infinity`, stores the entry without one.
 */
const MAX_EXPIRE_IN_MS = 1e15;

/**
 * The {@linkcode UrlCache} on Deno KV, for `HttpReader`. Entries survive restarts and are shared
 * by every process using the same database. Pages larger than a KV value are stored in chunks
 * and published by a final write, so readers never see half an entry. Freshness is judged by
 * the caller from `storedAt`; the TTL hint only lets KV drop old entries on its own. When writers
 * race on one URL, the first to publish wins: a write that finds the entry changed since it
 * looked drops its own chunks and keeps the other (both are fresh copies of the same page).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DenoKvUrlCache } from "@outpost/agent-tools/deno";
 * const kv = await Deno.openKv(":memory:");
 * const cache = new DenoKvUrlCache(kv);
 * await cache.set("https://example.com/", {
 *   storedAt: Date.now(),
 *   page: { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false },
 * });
 * assert.equal((await cache.get("https://example.com/"))?.page.text, "hi");
 * kv.close();
 * ```
 */
export class DenoKvUrlCache implements UrlCache {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;

  /** Uses `kv`, which the caller opens and closes. */
  constructor(kv: Deno.Kv, options: DenoKvUrlCacheOptions = {}) {
    if (!kv || typeof kv.atomic !== "function") {
      throw new SetupError("DenoKvUrlCache needs an open Deno.Kv.", {
        hint: "Pass the result of `await Deno.openKv()`.",
      });
    }
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["outpost", "url_cache"];
  }

  /** The entry stored under `key`, or `undefined` when there is none or it has expired. */
  async get(key: string): Promise<CachedPage | undefined> {
    checkCacheKey(key);
    // URLs can exceed KV's 2 KiB key limit; their SHA-256 cannot.
    const id = await sha256(key);
    const head = (await this.#kv.get<Head>([...this.#prefix, id])).value;
    if (!head || head.key !== key) return undefined;
    const keys = Array.from({ length: head.chunks }, (_, i) => this.#chunkKey(id, head.version, i));
    const parts: Uint8Array[] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
      for (const entry of await this.#kv.getMany<Uint8Array[]>(keys.slice(i, i + KEYS_PER_READ))) {
        // A chunk expired before its head: treat the entry as gone.
        if (!(entry.value instanceof Uint8Array)) return undefined;
        parts.push(entry.value);
      }
    }
    const page = JSON.parse(new TextDecoder().decode(concat(parts))) as CachedPage["page"];
    return { storedAt: head.storedAt, page };
  }

  /**
   * Stores `entry` under `key`, replacing what was there; `ttlMs` lets KV expire it. Rejects
   * with `SetupError`, writing nothing, for a bad key, entry or TTL.
   */
  async set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    checkCacheWrite(key, entry, ttlMs);
    const id = await sha256(key);
    const headKey = [...this.#prefix, id];
    const previous = await this.#kv.get<Head>(headKey);
    const expiry = ttlMs !== undefined && ttlMs <= MAX_EXPIRE_IN_MS
      ? { expireIn: Math.ceil(ttlMs) }
      : undefined;
    const bytes = new TextEncoder().encode(JSON.stringify(entry.page));
    const version = crypto.randomUUID();
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    for (let first = 0; first < chunks; first += CHUNKS_PER_WRITE) {
      const op = this.#kv.atomic();
      for (let i = first; i < Math.min(chunks, first + CHUNKS_PER_WRITE); i++) {
        const chunk = bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES);
        op.set(this.#chunkKey(id, version, i), chunk, expiry);
      }
      await op.commit();
    }
    const head: Head = { key, storedAt: entry.storedAt, version, chunks };
    const result = await this.#kv.atomic().check(previous).set(headKey, head, expiry).commit();
    // On a lost race the other write stands and our chunks are the stale ones.
    const stale = result.ok ? previous.value : head;
    if (stale) await this.#deleteChunks(id, stale);
  }

  async #deleteChunks(id: Uint8Array, head: Head): Promise<void> {
    for (let first = 0; first < head.chunks; first += CHUNKS_PER_WRITE) {
      const op = this.#kv.atomic();
      for (let i = first; i < Math.min(head.chunks, first + CHUNKS_PER_WRITE); i++) {
        op.delete(this.#chunkKey(id, head.version, i));
      }
      await op.commit();
    }
  }

  #chunkKey(id: Uint8Array, version: string, index: number): Deno.KvKey {
    return [...this.#prefix, id, version, index];
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
