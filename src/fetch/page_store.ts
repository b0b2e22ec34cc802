import type { Clock } from "../clock.ts";
import type { Page } from "./page.ts";
import type { UrlCache } from "./url_cache.ts";

/**
 * A reader's pages in its {@linkcode UrlCache}, fresh for `ttlMs` on `clock`. A cache that
 * fails is a miss, or a page not stored: it costs a refetch, never the read.
 */
export class PageStore {
  readonly #cache: UrlCache;
  readonly #ttlMs: number;
  readonly #clock: Clock;

  constructor(cache: UrlCache, ttlMs: number, clock: Clock) {
    this.#cache = cache;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  /** The page under `key`, if younger than the TTL and than `maxAgeMs` (`0`: never). */
  async get(key: string, maxAgeMs = Infinity): Promise<Page | undefined> {
    if (maxAgeMs === 0) return undefined;
    try {
      const entry = await this.#cache.get(key);
      const age = entry ? this.#clock.now() - entry.storedAt : Infinity;
      if (age < this.#ttlMs && age < maxAgeMs) return entry!.page;
    } catch {
      // A cache that fails to answer is a miss.
    }
    return undefined;
  }

  /** Stores `page` under `key`, unless it is a server error. */
  async set(key: string, page: Page): Promise<void> {
    // A server error is passing; caching it would hide the recovery for the whole TTL.
    if (page.status >= 500) return;
    try {
      await this.#cache.set(key, { storedAt: this.#clock.now(), page }, this.#ttlMs);
    } catch {
      // A cache that fails to store costs a refetch, never the read.
    }
  }
}

/**
 * The cache key of a read: readers that check less must not hand their pages to readers that
 * check more on a shared cache, so each guard setting has its own keys (a URL holds no space, so
 * none collide); the whole page and its main content, with images or without, are different
 * reads of one URL (the default read's key is the URL's own, whatever else the guard adds).
 */
export function pageKey(
  href: string,
  guard: { guard: boolean; resolveHost: unknown },
  content: "main" | "full",
  inlineImages: "markdown" | "alt" | "none",
  links: boolean,
): string {
  const prefix = !guard.guard ? "" : guard.resolveHost ? "guarded+dns " : "guarded ";
  return (content === "main" ? "" : "full ") + (links ? "links " : "") +
    (inlineImages === "none" ? "" : `${inlineImages} `) + prefix + href;
}
