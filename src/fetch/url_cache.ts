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
