import { checkOption, nonNegativeNumber, positiveInteger } from "../option_checks.ts";
import type { Page } from "./page.ts";

/**
 * One cached page with the time we stored it. Freshness is judged from `storedAt`, never from a
 * store's own expiry, because KV stores expire lazily.
 *
 * @example
 * ```ts
 * import type { CachedPage } from "@outpost/agent-tools/fetch";
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
 * reads one version. Readers with the address guard on prefix their keys with how they guard
 * (`guarded `, `guarded+dns `), so a page read with `allowPrivateNetwork` never reaches a
 * guarded reader that shares the cache. Implementations: `MemoryUrlCache`, and `DenoKvUrlCache`
 * (`@outpost/agent-tools/deno`); entries are plain data, so any key-value store fits.
 *
 * @example
 * ```ts
 * import type { CachedPage, UrlCache } from "@outpost/agent-tools/fetch";
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
 * import type { MemoryUrlCacheOptions } from "@outpost/agent-tools/fetch";
 * const options: MemoryUrlCacheOptions = { maxEntries: 64, ttlMs: 60_000 };
 * ```
 */
export interface MemoryUrlCacheOptions {
  /** The most entries kept; the least recently used go first (default 32). */
  maxEntries?: number;
  /**
   * The most characters kept across all entries (text, title, URLs and alts), so that memory
   * stays bounded however large the pages; the least recently used go first, and a page larger
   * than this is not kept at all (default 8 000 000, about 16 MB).
   */
  maxChars?: number;
  /**
   * How long an entry lives when `set` gives no `ttlMs` (default: until evicted). Freshness is
   * still the caller's call, from `storedAt`.
   */
  ttlMs?: number;
}

interface MemoryEntry {
  entry: CachedPage;
  expiresAt: number;
  chars: number;
}

/**
 * A {@linkcode UrlCache} in memory: least recently used entries are evicted beyond
 * `maxEntries` or `maxChars`, and expired ones are dropped when read. What `HttpReader` uses by default.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * const cache = new MemoryUrlCache({ maxEntries: 2 });
 * const page = { url: "https://a.example/", status: 200, mediaType: "text/plain", text: "a", images: [], sizeCapped: false };
 * await cache.set("https://a.example/", { storedAt: Date.now(), page }, 60_000);
 * assert.equal((await cache.get("https://a.example/"))?.page.text, "a");
 * ```
 */
export class MemoryUrlCache implements UrlCache {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #ttlMs: number;
  #chars = 0;

  /** Creates an empty cache. Throws `SetupError` for a size below 1 or a negative TTL. */
  constructor(options: MemoryUrlCacheOptions = {}) {
    const { maxEntries = 32, maxChars = 8_000_000, ttlMs = Infinity } = options;
    checkOption("maxEntries", maxEntries, positiveInteger);
    checkOption("maxChars", maxChars, positiveInteger);
    checkOption(
      "ttlMs",
      ttlMs,
      nonNegativeNumber,
      "Leave ttlMs out (or pass Infinity) to keep entries until they are evicted.",
    );
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#ttlMs = ttlMs;
  }

  /** The live entry under `key`, which becomes the most recently used; else `undefined`. */
  get(key: string): Promise<CachedPage | undefined> {
    const found = this.#entries.get(key);
    if (!found) return Promise.resolve(undefined);
    this.#entries.delete(key);
    if (Date.now() >= found.expiresAt) {
      this.#chars -= found.chars;
      return Promise.resolve(undefined);
    }
    this.#entries.set(key, found);
    return Promise.resolve(found.entry);
  }

  /** Stores `entry`, evicting the least recently used entries beyond `maxEntries` or `maxChars`. */
  set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    const ttl = ttlMs ?? this.#ttlMs;
    const entries = this.#entries;
    const previous = entries.get(key);
    if (previous) {
      entries.delete(key);
      this.#chars -= previous.chars;
    }
    const chars = sizeOf(key, entry.page);
    if (chars > this.#maxChars) return Promise.resolve();
    entries.set(key, { entry, expiresAt: entry.storedAt + ttl, chars });
    this.#chars += chars;
    for (const [oldest, stored] of entries) {
      if (entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      entries.delete(oldest);
      this.#chars -= stored.chars;
    }
    return Promise.resolve();
  }
}

/** What a cached page costs, in characters: its key, text, title and image URLs and alts. */
function sizeOf(key: string, page: Page): number {
  let chars = key.length + page.url.length + page.text.length + (page.title?.length ?? 0);
  for (const image of page.images) chars += image.url.length + image.alt.length;
  return chars;
}
