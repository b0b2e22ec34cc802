import { UserError } from "../tool.ts";
import type { Page } from "./page.ts";

/**
 * One cached page with the time we stored it. Freshness is judged from `storedAt`, never from a
 * store's own expiry, because KV stores expire lazily.
 *
 * @example
 * ```ts
 * import type { CachedPage } from "@outpost/agent-tools";
 * const entry: CachedPage = {
 *   storedAt: Date.now(),
 *   page: { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false },
 * };
 * ```
 */
export interface CachedPage {
  /** Milliseconds since the epoch when the entry was stored. */
  storedAt: number;
  /** The page as read. Plain data, so any store can serialise it. */
  page: Page;
}

/**
 * Where `HttpReader` keeps pages it read, keyed by URL, so that paging through a long page
 * reads one version. Implementations: `MemoryUrlCache`, and on the edge `DenoKvUrlCache`
 * (`@outpost/agent-tools/deno`) and `KvUrlCache` (`@outpost/agent-tools/cloudflare`).
 *
 * @example
 * ```ts
 * import type { CachedPage, UrlCache } from "@outpost/agent-tools";
 * const map = new Map<string, CachedPage>();
 * const cache: UrlCache = {
 *   get: (key) => Promise.resolve(map.get(key)),
 *   set: (key, entry) => Promise.resolve(void map.set(key, entry)),
 * };
 * ```
 */
export interface UrlCache {
  /** The entry stored under `key`, or `undefined`. May return a stale entry; callers check `storedAt`. */
  get(key: string): Promise<CachedPage | undefined>;
  /** Stores `entry` under `key`. `ttlMs` is a hint for stores that can expire entries themselves. */
  set(key: string, entry: CachedPage, ttlMs?: number): Promise<void>;
}

/**
 * Options of {@linkcode MemoryUrlCache}.
 *
 * @example
 * ```ts
 * import type { MemoryUrlCacheOptions } from "@outpost/agent-tools";
 * const options: MemoryUrlCacheOptions = { maxEntries: 64, ttlMs: 60_000 };
 * ```
 */
export interface MemoryUrlCacheOptions {
  /** The most entries kept; the least recently used go first (default 32). */
  maxEntries?: number;
  /**
   * How long an entry lives when `set` gives no `ttlMs` (default: until evicted). Freshness is
   * still the caller's call, from `storedAt`.
   */
  ttlMs?: number;
}

interface MemoryEntry {
  entry: CachedPage;
  expiresAt: number;
}

/**
 * A {@linkcode UrlCache} in memory: least recently used entries are evicted beyond
 * `maxEntries`, and expired ones are dropped when read. What `HttpReader` uses by default.
 *
 * @example
 * ```ts
 * import { MemoryUrlCache } from "@outpost/agent-tools";
 * const cache = new MemoryUrlCache({ maxEntries: 2 });
 * const page = { url: "https://a.example/", status: 200, mediaType: "text/plain", text: "a", images: [], sizeCapped: false };
 * await cache.set("https://a.example/", { storedAt: Date.now(), page }, 60_000);
 * (await cache.get("https://a.example/"))?.page.text; // "a"
 * ```
 */
export class MemoryUrlCache implements UrlCache {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;

  /** Creates an empty cache. Throws `UserError` for a size below 1 or a negative TTL. */
  constructor(options: MemoryUrlCacheOptions = {}) {
    const { maxEntries = 32, ttlMs = Infinity } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new UserError(`maxEntries must be a positive integer, got ${maxEntries}.`);
    }
    if (typeof ttlMs !== "number" || Number.isNaN(ttlMs) || ttlMs < 0) {
      throw new UserError(`ttlMs must be a number of milliseconds ≥ 0, got ${ttlMs}.`);
    }
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
  }

  /** The live entry under `key`, which becomes the most recently used; else `undefined`. */
  get(key: string): Promise<CachedPage | undefined> {
    const found = this.#entries.get(key);
    if (!found) return Promise.resolve(undefined);
    this.#entries.delete(key);
    if (Date.now() >= found.expiresAt) return Promise.resolve(undefined);
    this.#entries.set(key, found);
    return Promise.resolve(found.entry);
  }

  /** Stores `entry`, evicting the least recently used entries beyond `maxEntries`. */
  set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    const ttl = ttlMs ?? this.#ttlMs;
    this.#entries.delete(key);
    this.#entries.set(key, { entry, expiresAt: entry.storedAt + ttl });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
    return Promise.resolve();
  }
}
