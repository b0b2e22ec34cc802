import { type Clock, MAX_TIMER_MS, systemClock } from "../clock.ts";
import {
  aFunction,
  checkOption,
  delayMs,
  flag,
  implementing,
  nonEmptyString,
  nonNegativeNumber,
  positiveInteger,
  positiveNumber,
  timeoutMs as timeLimitMs,
} from "../option_checks.ts";
import { USER_AGENT } from "../version.ts";
import type { ResolveHost } from "./address_guard.ts";
import { type BodyDecoder, checkDecoders } from "./body_decoder.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import type { UrlCache } from "./url_cache.ts";

/**
 * Options of {@linkcode HttpReader}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, type HttpReaderOptions } from "@outpost/agent-tools/fetch";
 * const options: HttpReaderOptions = { timeoutMs: 10_000, maxBytes: 1_000, allowPrivateNetwork: true };
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response("x".repeat(5_000), { headers: { "content-type": "text/plain" } }));
 * const page = await new HttpReader(options).read(`http://127.0.0.1:${server.addr.port}/`);
 * assert.equal(page.sizeCapped, true); // read up to maxBytes, and says so
 * assert.equal(page.text.length, 1_000);
 * ```
 */
export interface HttpReaderOptions {
  /** The whole read, redirects and body included, must finish within this (default 30 000 ms). */
  timeoutMs?: number;
  /** Bodies are read up to this many bytes, after decompression (default 1 000 000). */
  maxBytes?: number;
  /** How long a page read stays fresh for later reads of the same URL; 0 disables (default 300 000 ms). */
  cacheTtlMs?: number;
  /** Entries in the default in-memory cache (default 32). Ignored when `cache` is given. */
  cacheSize?: number;
  /** Where pages are cached, e.g. a KV-backed cache on the edge (default: a `MemoryUrlCache`). */
  cache?: UrlCache;
  /** The `User-Agent` header (default names Outpost, its version and its home page). */
  userAgent?: string;
  /**
   * The `fetch` to use (default: the global one). It is called with `redirect: "manual"` and
   * must honour it: hand back a redirect as it came, never follow it, since the reader checks
   * every hop against the guard and the policy. An answer that reports `redirected`, or a `url`
   * other than the one requested, is refused. A fetch that sends the request elsewhere (a proxy,
   * a test double) answers with `new Response(body, response)`, whose `url` is empty.
   */
  fetch?: typeof fetch;
  /** Turn the SSRF guard off, e.g. to read an intranet (default `false`). */
  allowPrivateNetwork?: boolean;
  /** Also refuse names that resolve into private ranges (default: only literal addresses and local names are checked). */
  resolveHost?: ResolveHost;
  /** Readers for bodies the reader does not read itself, e.g. `pdfDecoder()` from `@outpost/agent-tools/pdf`. */
  decoders?: readonly BodyDecoder[];
  /** The pause before the first retry of a failed connection or 502/503/504, doubling after (default 250 ms). */
  retryDelayMs?: number;
  /**
   * Honour robots.txt (default `false`): each origin's `/robots.txt` is read (through the same
   * address guard, at most 512 KB within 5 s) and kept for an hour, and a page that the group
   * for `outpost-agent-tools` (else `*`) disallows, before or after redirects, is refused with a
   * `ToolError` naming the rule. A robots.txt that cannot be read (5xx, no answer) disallows
   * the site for a minute, as RFC 9309 asks; a missing one (4xx) allows everything.
   */
  respectRobots?: boolean;
  /** HTML pages: their main content, without menus and other furniture (`"main"`, the default), or the whole page (`"full"`). */
  content?: "main" | "full";
  /**
   * The time and timers the reader uses for its timeout, retry pauses, `Retry-After`, and the
   * freshness of cached pages and robots.txt files (default {@linkcode systemClock}); tests pass
   * a fake one to decide those windows without waiting.
   */
  clock?: Clock;
  /**
   * HTML pages: images left out of the Markdown (`"none"`, the default; a caption stays); as
   * their alt text only (`"alt"`); or as `![alt](url)` (`"markdown"`), which a host that renders
   * the answer loads by itself. The image list (`images: true`) has them either way.
   */
  inlineImages?: "markdown" | "alt" | "none";
}

/** {@linkcode HttpReaderOptions} checked, with their defaults filled in. */
export interface ReaderSettings {
  timeoutMs: number;
  maxBytes: number;
  cacheTtlMs: number;
  cacheSize: number;
  cache: UrlCache | undefined;
  userAgent: string;
  fetch: typeof fetch;
  guard: boolean;
  resolveHost: ResolveHost | undefined;
  decoders: readonly BodyDecoder[];
  retryDelayMs: number;
  respectRobots: boolean;
  content: "main" | "full";
  clock: Clock;
  inlineImages: "markdown" | "alt" | "none";
}

/** Checks a reader's options and fills in the defaults; throws `SetupError` for a bad one. */
export function readerSettings(options: HttpReaderOptions): ReaderSettings {
  const {
    timeoutMs = 30_000,
    maxBytes = 1_000_000,
    cacheTtlMs = 300_000,
    cacheSize = 32,
    cache,
    userAgent = USER_AGENT,
    fetch: fetchImpl,
    allowPrivateNetwork = false,
    resolveHost,
    decoders = [],
    retryDelayMs = 250,
    respectRobots = false,
    content = "main",
    clock = systemClock,
    inlineImages = "none",
  } = options;
  checkOption("content", content, CONTENT);
  checkOption("inlineImages", inlineImages, INLINE_IMAGES);
  checkOption(
    "timeoutMs",
    timeoutMs,
    timeLimitMs(),
    `setTimeout takes no delay longer than ${MAX_TIMER_MS} ms (about 24.8 days).`,
  );
  checkOption("maxBytes", maxBytes, positiveNumber);
  checkOption("retryDelayMs", retryDelayMs, delayMs);
  if (cache === undefined) {
    checkOption("cacheSize", cacheSize, positiveInteger, "Pass cacheTtlMs: 0 to turn caching off.");
  }
  checkOption("cacheTtlMs", cacheTtlMs, nonNegativeNumber, "Pass 0 to turn caching off.");
  checkOption("userAgent", userAgent, nonEmptyString);
  if (fetchImpl !== undefined) {
    checkOption("fetch", fetchImpl, aFunction("with the signature of the global fetch"));
  }
  if (resolveHost !== undefined) {
    checkOption("resolveHost", resolveHost, aFunction("from a host name to its addresses"));
  }
  if (cache !== undefined) {
    checkOption(
      "cache",
      cache,
      implementing("UrlCache", ["get", "set"], "async get(key) and set(key, entry)"),
    );
  }
  const checkedDecoders = checkDecoders(decoders);
  checkOption(
    "clock",
    clock,
    implementing("Clock", ["now", "setTimer"], "now() and setTimer(callback, ms)"),
  );
  checkOption("respectRobots", respectRobots, flag);
  return {
    timeoutMs,
    maxBytes,
    cacheTtlMs,
    cacheSize,
    cache,
    userAgent,
    fetch: fetchImpl ?? ((input, init) => fetch(input, init)),
    guard: !allowPrivateNetwork,
    resolveHost,
    decoders: checkedDecoders,
    retryDelayMs,
    respectRobots,
    content,
    clock,
    inlineImages,
  };
}
