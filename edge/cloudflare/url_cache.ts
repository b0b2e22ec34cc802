import {
  type CachedPage,
  checkCacheKey,
  checkCacheWrite,
  type UrlCache,
} from "../../src/fetch/url_cache.ts";
import { SetupError } from "../../src/errors.ts";
import { hex, sha256 } from "../../src/sha256.ts";

/**
 * The part of a Workers KV namespace binding that {@linkcode WorkersKvUrlCache} uses, so that the
 * cache needs no Workers type package: pass the binding (`env.OUTPOST_URL_CACHE`) as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type KvNamespaceLike, WorkersKvUrlCache } from "@outpost/agent-tools/cloudflare";
 * // An in-memory stand-in for a Workers KV binding:
 * const map = new Map<string, string>();
 * const kv: KvNamespaceLike = {
 *   get: (key) => Promise.resolve(map.get(key) ?? null),
 *   put: (key, value) => Promise.resolve(void map.set(key, value)),
 * };
 * const cache = new WorkersKvUrlCache(kv);
 * const page = { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false };
 * await cache.set(page.url, { storedAt: Date.now(), page }, 60_000);
 * assert.equal((await cache.get(page.url))?.page.text, "hi");
 * ```
 */
export interface KvNamespaceLike {
  /** The value under `key` as text, or `null`. */
  get(key: string, type: "text"): Promise<string | null>;
  /** Stores `value` under `key`; KV drops it `expirationTtl` seconds later (at least 60). */
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<unknown>;
}

/**
 * Options of {@linkcode WorkersKvUrlCache}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkersKvUrlCache, type WorkersKvUrlCacheOptions } from "@outpost/agent-tools/cloudflare";
 * const options: WorkersKvUrlCacheOptions = { prefix: "my-app:pages:", onError: console.warn };
 * const map = new Map<string, string>();
 * const kv = {
 *   get: (key: string) => Promise.resolve(map.get(key) ?? null),
 *   put: (key: string, value: string) => Promise.resolve(void map.set(key, value)),
 * };
 * const page = { url: "https://example.com/", status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false };
 * await new WorkersKvUrlCache(kv, options).set(page.url, { storedAt: Date.now(), page }, 60_000);
 * assert.ok([...map.keys()].every((key) => key.startsWith("my-app:pages:")));
 * ```
 */
export interface WorkersKvUrlCacheOptions {
  /** What every key starts with (default `"outpost:url_cache:"`); at most 128 bytes. */
  prefix?: string;
  /**
   * Receives a KV failure (a rate limit, an oversized value, an outage), which the cache turns
   * into a miss or a skipped write (default: ignored). `web_fetch` then reads the network.
   */
  onError?: (error: unknown) => void;
}

/** What the cache stores under one key: the URL it is for, so that a read can check it. */
interface Stored {
  key: string;
  storedAt: number;
  page: CachedPage["page"];
}

/** KV refuses an `expirationTtl` below 60 seconds. */
const MIN_TTL_SECONDS = 60;
/**
 * Nor one beyond a 32-bit count of seconds (about 68 years): a longer TTL, like `Infinity`,
 * stores the entry without one.
 */
const MAX_TTL_SECONDS = 2 ** 31 - 1;
/** KV keys are at most 512 bytes; the prefix and a 64-digit hash stay well inside that. */
const MAX_PREFIX_BYTES = 128;

/**
 * The {@linkcode UrlCache} on a Cloudflare Workers KV namespace, for `HttpReader`: pages are
 * shared by every instance of a Worker and survive restarts.
 *
 * - Keys are the prefix and the SHA-256 of the URL, since URLs can pass KV's 512-byte key
 *   limit; the value keeps the URL, and a read that finds another URL there is a miss.
 * - KV's own expiry is only a way to drop old entries, never below KV's 60-second minimum;
 *   freshness is judged by the caller from the stored `storedAt`, as KV is eventually consistent
 *   and expires lazily.
 * - A KV failure (one write per second per key, an outage) is a miss on read and a skipped
 *   write: the tool call reads the network instead, and never fails for the cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { type KvNamespaceLike, WorkersKvUrlCache } from "@outpost/agent-tools/cloudflare";
 *
 * const worker = {
 *   fetch(request: Request, env: { OUTPOST_URL_CACHE: KvNamespaceLike }): Response {
 *     const reader = new HttpReader({ cache: new WorkersKvUrlCache(env.OUTPOST_URL_CACHE) });
 *     const tools = [webFetch(reader)];
 *     return new Response(`${tools.length} tool(s) for ${new URL(request.url).pathname}`);
 *   },
 * };
 * // In your Worker's main module: export default worker;
 *
 * const kv = { get: () => Promise.resolve(null), put: () => Promise.resolve() };
 * const response = worker.fetch(new Request("https://outpost.example/tools"), { OUTPOST_URL_CACHE: kv });
 * assert.equal(await response.text(), "1 tool(s) for /tools");
 * ```
 */
export class WorkersKvUrlCache implements UrlCache {
  readonly #kv: KvNamespaceLike;
  readonly #prefix: string;
  readonly #onError: (error: unknown) => void;

  /** Uses the namespace `kv`; throws {@linkcode SetupError} for something else or a long prefix. */
  constructor(kv: KvNamespaceLike, options: WorkersKvUrlCacheOptions = {}) {
    if (typeof kv?.get !== "function" || typeof kv.put !== "function") {
      throw new SetupError("WorkersKvUrlCache needs a KV namespace binding.", {
        hint: 'Bind one in wrangler.jsonc ("kv_namespaces") and pass env.<BINDING>.',
      });
    }
    const { prefix = "outpost:url_cache:", onError = () => {} } = options;
    if (typeof prefix !== "string" || new TextEncoder().encode(prefix).length > MAX_PREFIX_BYTES) {
      throw new SetupError(`prefix must be a string of at most ${MAX_PREFIX_BYTES} bytes.`);
    }
    this.#kv = kv;
    this.#prefix = prefix;
    this.#onError = onError;
  }

  /** The entry stored for `key`, or `undefined` for none, another URL's, or a KV failure. */
  async get(key: string): Promise<CachedPage | undefined> {
    checkCacheKey(key);
    try {
      const text = await this.#kv.get(await this.#kvKey(key), "text");
      if (text === null) return undefined;
      const stored = JSON.parse(text) as Stored;
      if (stored?.key !== key || typeof stored.storedAt !== "number" || !stored.page) {
        return undefined;
      }
      return { storedAt: stored.storedAt, page: stored.page };
    } catch (error) {
      this.#onError(error);
      return undefined;
    }
  }

  /**
   * Stores `entry` for `key`; a KV failure skips the write. `ttlMs` lets KV drop it later. A bad
   * key, entry or TTL is no KV failure: it rejects with `SetupError`, writing nothing.
   */
  async set(key: string, entry: CachedPage, ttlMs?: number): Promise<void> {
    checkCacheWrite(key, entry, ttlMs);
    try {
      const stored: Stored = { key, storedAt: entry.storedAt, page: entry.page };
      const seconds = ttlMs === undefined ? Infinity : Math.ceil(ttlMs / 1000);
      const options = seconds <= MAX_TTL_SECONDS
        ? { expirationTtl: Math.max(MIN_TTL_SECONDS, seconds) }
        : undefined;
      await this.#kv.put(await this.#kvKey(key), JSON.stringify(stored), options);
    } catch (error) {
      this.#onError(error);
    }
  }

  async #kvKey(key: string): Promise<string> {
    return this.#prefix + hex(await sha256(key));
  }
}
