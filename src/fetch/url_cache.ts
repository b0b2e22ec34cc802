import { type Clock, systemClock } from "../clock.ts";
import {
  checkOption,
  implementing,
  nonNegativeNumber,
  type OptionKind,
  positiveInteger,
} from "../option_checks.ts";
import type { Page } from "./page.ts";

/**
 * One cached page with the time we stored it. Freshness is judged from `storedAt`, never from a
 * store's own expiry, because KV stores expire lazily.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CachedPage, MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * const entry: CachedPage = {
 *   storedAt: Date.now(),
 *   page: { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false },
 * };
 * const cache = new MemoryUrlCache();
 * await cache.set("https://example.com/", entry, 60_000);
 * assert.deepEqual(await cache.get("https://example.com/"), entry);
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
 * guarded reader that shares the cache. Implementations: `MemoryUrlCache`, `DenoKvUrlCache`
 * (`@outpost/agent-tools/deno`) and `WorkersKvUrlCache` (`@outpost/agent-tools/cloudflare`);
 * entries are plain data, so any key-value store fits.
 *
 * The contract, which `urlCacheContract` (`@outpost/agent-tools/testing`) checks:
 * - A key is any string, compared exactly: keys that differ only by a prefix, by case or in
 *   length (URLs longer than a store's key limit included) hold separate entries.
 * - `get` gives back what `set` stored, field for field (`storedAt` as given, however old),
 *   or `undefined`; never another key's entry, a half-written one, or one shared with the
 *   caller (changing an object after `set`, or one `get` returned, changes nothing stored).
 * - A later `set` replaces the entry; of concurrent writes to one key, one wins whole.
 * - `ttlMs` (a number > 0, `Infinity` for none) is a hint: a store may drop the entry once it
 *   has passed, or evict entries to stay within its limits, but serves an entry it keeps.
 * - A key that is not a string, an entry that is not a `CachedPage` or a bad `ttlMs` rejects
 *   with an error naming it, and changes nothing stored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CachedPage, UrlCache } from "@outpost/agent-tools/fetch";
 * const map = new Map<string, string>();
 * // Entries kept as JSON: what is stored is a copy, never the caller's object.
 * const cache: UrlCache = {
 *   get: (key) => Promise.resolve(map.has(key) ? JSON.parse(map.get(key)!) : undefined),
 *   set: (key, entry) => Promise.resolve(void map.set(key, JSON.stringify(entry))),
 * };
 * const page = { url: "https://a.example/", status: 200, mediaType: "text/plain", text: "a", images: [], sizeCapped: false };
 * await cache.set("https://a.example/", { storedAt: 1, page });
 * assert.deepEqual(await cache.get("https://a.example/"), { storedAt: 1, page } satisfies CachedPage);
 * ```
 */
export interface UrlCache {
  /** The entry stored under `key`, or `undefined`. May return a stale entry; callers check `storedAt`. */
  get(key: string): Promise<CachedPage | undefined>;
  /** Stores `entry` under `key`. `ttlMs` is a hint for stores that can expire entries themselves. */
  set(key: string, entry: CachedPage, ttlMs?: number): Promise<void>;
}

/** A `UrlCache` key: any string. */
const cacheKey: OptionKind<string> = {
  accepts: (value): value is string => typeof value === "string",
  expected: "a string",
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A `CachedPage` as plain data: a finite `storedAt` and a page with its url, text and images. */
const cachedPage: OptionKind<unknown> = {
  accepts: (value): value is unknown =>
    isObject(value) && Number.isFinite(value.storedAt) && isObject(value.page) &&
    typeof value.page.url === "string" && typeof value.page.text === "string" &&
    Array.isArray(value.page.images),
  expected: "a CachedPage, { storedAt, page }",
};

/** A time to live: above 0, `Infinity` for none. */
const cacheTtl: OptionKind<number> = {
  accepts: (value): value is number => typeof value === "number" && value > 0,
  expected: "a number of milliseconds > 0",
};

/**
 * Refuses a `UrlCache` key that is not a string, as every implementation does.
 *
 * @internal
 */
export function checkCacheKey(key: unknown): void {
  checkOption("key", key, cacheKey);
}

/**
 * Refuses what `UrlCache.set` must not store, before anything is written: a key that is not a
 * string, an entry that is not a `CachedPage`, a `ttlMs` that is not a number > 0.
 *
 * @internal
 */
export function checkCacheWrite(key: unknown, entry: unknown, ttlMs: unknown): void {
  checkCacheKey(key);
  checkOption("entry", entry, cachedPage);
  if (ttlMs !== undefined) {
    checkOption(
      "ttlMs",
      ttlMs,
      cacheTtl,
      "Leave ttlMs out, or pass Infinity, to keep the entry until it is evicted.",
    );
  }
}

/**
 * Options of {@linkcode MemoryUrlCache}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache, type MemoryUrlCacheOptions } from "@outpost/agent-tools/fetch";
 * const options: MemoryUrlCacheOptions = { maxEntries: 1, ttlMs: 60_000 };
 * const cache = new MemoryUrlCache(options);
 * const page = (url: string) => ({ url, status: 200, mediaType: "text/plain", text: "…", images: [], sizeCapped: false });
 * await cache.set("https://a.example/", { storedAt: Date.now(), page: page("https://a.example/") }, 60_000);
 * await cache.set("https://b.example/", { storedAt: Date.now(), page: page("https://b.example/") }, 60_000);
 * assert.equal(await cache.get("https://a.example/"), undefined); // the least recently used went
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
  /** The clock entries expire by (default {@linkcode systemClock}); `HttpReader` passes its own. */
  clock?: Clock;
}

interface MemoryEntry {
  entry: CachedPage;
  expiresAt: number;
  chars: number;
}

/**
 * A {@linkcode UrlCache} in memory: least recently used entries are evicted beyond
 * `maxEntries` or `maxChars`, and expired ones are dropped when read. Entries are copied in and
 * out, as a store that serialises them would. What `HttpReader` uses by default.
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
  readonly #clock: Clock;
  #chars = 0;

  /** Creates an empty cache. Throws `SetupError` for a size below 1 or a negative TTL. */
  constructor(options: MemoryUrlCacheOptions = {}) {
    const { maxEntries = 32, maxChars = 8_000_000, ttlMs = Infinity, clock = systemClock } =
      options;
    checkOption("maxEntries", maxEntries, positiveInteger);
    checkOption("maxChars", maxChars, positiveInteger);
    checkOption(
      "ttlMs",
      ttlMs,
      nonNegativeNumber,
      "Leave ttlMs out (or pass Infinity) to keep entries until they are evicted.",
    );
    checkOption(
      "clock",
      clock,
      implementing("Clock", ["now", "setTimer"], "now() and setTimer(callback, ms)"),
    );
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  /** A copy of the live entry under `key`, which becomes the most recently used; else `undefined`. */
  // deno-lint-ignore require-await -- async, so that a bad key rejects rather than throws
  async get(key: string): Promise<CachedPage | undefined> {
    checkCacheKey(key);
    const found = this.#entries.get(key);
    if (!found) return undefined;
    this.#entries.delete(key);
    if (this.#clock.now() >= found.expiresAt) {
      this.#chars -= found.chars;
      return undefined;
    }
    this.#entries.set(key, found);
    return structuredClone(found.entry);
  }

  /**
   * Stores a copy of `entry`, evicting the least recently used entries beyond `maxEntries` or
   * `maxChars`; an entry larger than `maxChars` is not kept, and removes the one it replaces.
   */
  // deno-lint-ignore require-await -- async, so that bad input rejects rather than throws
  async set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    checkCacheWrite(key, entry, ttlMs);
    // Copied before anything changes: an entry that cannot be copied (a function in it) is refused.
    const copy = structuredClone(entry);
    const ttl = ttlMs ?? this.#ttlMs;
    const entries = this.#entries;
    const previous = entries.get(key);
    if (previous) {
      entries.delete(key);
      this.#chars -= previous.chars;
    }
    const chars = sizeOf(key, copy.page);
    if (chars > this.#maxChars) return;
    entries.set(key, { entry: copy, expiresAt: copy.storedAt + ttl, chars });
    this.#chars += chars;
    for (const [oldest, stored] of entries) {
      if (entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      entries.delete(oldest);
      this.#chars -= stored.chars;
    }
  }
}

/** What a cached page costs, in characters: its key, text, title and image URLs and alts. */
function sizeOf(key: string, page: Page): number {
  let chars = key.length + page.url.length + page.text.length + (page.title?.length ?? 0);
  for (const image of page.images) chars += image.url.length + image.alt.length;
  return chars;
}
