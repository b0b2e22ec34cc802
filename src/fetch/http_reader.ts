import { type Clock, MAX_TIMER_MS, systemClock, timeLimit } from "../clock.ts";
import { clipLine, quoteText, quoteValue, showUrl } from "../fence.ts";
import { fetchWithRetry, rateLimited, retryAfterMs } from "../retry.ts";
import { InvalidInputError, ToolError, UserError } from "../errors.ts";
import { showHost } from "../shown_host.ts";
import { policyRefusal, type UrlPolicy } from "../url_policy.ts";
import { USER_AGENT } from "../version.ts";
import { guardUrl, type ResolveHost } from "./address_guard.ts";
import { type BodyDecoder, checkDecoders, runDecoder, UNTYPED } from "./body_decoder.ts";
import { Coalescer } from "./coalesce.ts";
import { RobotsGate } from "./robots.ts";
import { decodeBody, dropPartialTail, encodingOf } from "./charset.ts";
import { htmlToMarkdown } from "./html_to_markdown/mod.ts";
import type { Page, PageReader, ReadOptions } from "./page.ts";
import { MemoryUrlCache, type UrlCache } from "./url_cache.ts";

/**
 * Options of {@linkcode HttpReader}.
 *
 * @example
 * ```ts
 * import type { HttpReaderOptions } from "@outpost/agent-tools";
 * const options: HttpReaderOptions = { timeoutMs: 10_000, maxBytes: 2_000_000 };
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
   * HTML pages: images in the Markdown as `![alt](url)` (`"markdown"`, the default), which a host
   * that renders the answer loads by itself; as their alt text only (`"alt"`); or left out
   * (`"none"`). The image list (`images: true`) has them either way.
   */
  inlineImages?: "markdown" | "alt" | "none";
}

const ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5";
const MAX_REDIRECTS = 10;
const RETRY_STATUSES = new Set([502, 503, 504]);
const SNIFF_BYTES = 1_024;
const BINARY_TYPE =
  /^(?:image\/(?!svg\+xml)|audio\/|video\/|font\/|model\/|application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|x-bzip2|java-archive|wasm|vnd\.ms-|msword|vnd\.openxmlformats|x-shockwave-flash|font-))/;
const HTML_TYPE = /^(?:text\/html|application\/xhtml\+xml)$/;
/** A media type as RFC 6838 spells it, in any case: a header that says anything else declares no type. */
const MEDIA_TYPE = /^[a-z0-9][\w!#$&^.+-]{0,63}\/[a-z0-9][\w!#$&^.+-]{0,63}$/i;
/** The tags the WHATWG MIME sniffing rules look for (plus the head's own tags). */
const HTML_OPENING =
  /^<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|meta|link|base)[\s/>]/i;
/** Control characters that plain text does not contain (tab, line breaks and form feed do). */
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const NOT_TEXT = /[\x00-\x08\x0b\x0e-\x1f\ufffd]/;
/** Characters the default in-memory cache holds across its pages (about 16 MB). */
const CACHE_CHARS = 8_000_000;
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json$|^text\/json$/;
/** The longest URL quoted in an error, in characters. */
const MAX_URL_SHOWN = 300;
/** RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt. */
const ROBOTS_MAX_BYTES = 512_000;
const ROBOTS_TIMEOUT_MS = 5_000;

/**
 * The default {@linkcode PageReader}: one streamed GET with redirects followed by hand, a byte
 * cap, a timeout, charset sniffing, HTML turned into Markdown, a cache so that paging reads one
 * version, retries for flaky servers, and an SSRF guard that is on unless you turn it off.
 *
 * @example
 * ```ts
 * import { HttpReader, webFetch } from "@outpost/agent-tools";
 * const reader = new HttpReader({ timeoutMs: 10_000, maxBytes: 2_000_000 });
 * const tool = webFetch(reader);
 * ```
 */
export class HttpReader implements PageReader {
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #cacheTtlMs: number;
  readonly #cache: UrlCache | undefined;
  readonly #userAgent: string;
  readonly #fetch: typeof fetch;
  readonly #guard: boolean;
  readonly #resolveHost: ResolveHost | undefined;
  readonly #decoders: readonly BodyDecoder[];
  readonly #keyPrefix: string;
  readonly #retryDelayMs: number;
  readonly #flights = new Coalescer<Page>();
  readonly #robots: RobotsGate | undefined;
  readonly #policyIds = new WeakMap<UrlPolicy, number>();
  #policyCount = 0;
  readonly #content: "main" | "full";
  readonly #clock: Clock;
  readonly #inlineImages: "markdown" | "alt" | "none";

  /** Checks the options; throws `UserError` for a bad one. */
  constructor(options: HttpReaderOptions = {}) {
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
      inlineImages = "markdown",
    } = options;
    checkContent(content);
    checkInlineImages(inlineImages);
    positive("timeoutMs", timeoutMs);
    if (timeoutMs > MAX_TIMER_MS) {
      throw new UserError(
        `timeoutMs must be at most ${MAX_TIMER_MS} (about 24.8 days), not ${timeoutMs}.`,
        { hint: "setTimeout takes no longer delay; pass a shorter timeout." },
      );
    }
    positive("maxBytes", maxBytes);
    if (typeof retryDelayMs !== "number" || !(retryDelayMs >= 0 && retryDelayMs <= MAX_TIMER_MS)) {
      throw new UserError(
        `retryDelayMs must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, not ${retryDelayMs}.`,
      );
    }
    if (cache === undefined && (!Number.isInteger(cacheSize) || cacheSize < 1)) {
      throw new UserError(`cacheSize must be a positive integer, not ${cacheSize}.`, {
        hint: "Pass cacheTtlMs: 0 to turn caching off.",
      });
    }
    if (typeof cacheTtlMs !== "number" || !(cacheTtlMs >= 0)) {
      throw new UserError(`cacheTtlMs must be a number ≥ 0, not ${cacheTtlMs}.`, {
        hint: "Pass 0 to turn caching off.",
      });
    }
    if (typeof userAgent !== "string" || userAgent.trim() === "") {
      throw new UserError("userAgent must be a non-empty string.");
    }
    if (fetchImpl !== undefined && typeof fetchImpl !== "function") {
      throw new UserError("fetch must be a function with the signature of the global fetch.");
    }
    if (resolveHost !== undefined && typeof resolveHost !== "function") {
      throw new UserError("resolveHost must be a function from a host name to its addresses.");
    }
    if (
      cache !== undefined && (typeof cache?.get !== "function" || typeof cache.set !== "function")
    ) {
      throw new UserError("cache must implement UrlCache: async get(key) and set(key, entry).");
    }
    this.#timeoutMs = timeoutMs;
    this.#maxBytes = maxBytes;
    this.#cacheTtlMs = cacheTtlMs;
    this.#cache = cacheTtlMs === 0
      ? undefined
      : cache ?? new MemoryUrlCache({ maxEntries: cacheSize, maxChars: CACHE_CHARS });
    this.#userAgent = userAgent;
    this.#fetch = fetchImpl ?? ((input, init) => fetch(input, init));
    this.#guard = !allowPrivateNetwork;
    this.#resolveHost = resolveHost;
    this.#decoders = checkDecoders(decoders);
    // Readers that check less must not hand their pages to readers that check more on a shared
    // cache: each guard setting has its own keys (a URL holds no space, so none collide).
    this.#keyPrefix = !this.#guard ? "" : resolveHost ? "guarded+dns " : "guarded ";
    this.#retryDelayMs = retryDelayMs;
    if (typeof clock?.now !== "function" || typeof clock.setTimer !== "function") {
      throw new UserError("clock must implement Clock: now() and setTimer(callback, ms).");
    }
    this.#clock = clock;
    if (typeof respectRobots !== "boolean") {
      throw new UserError(`respectRobots must be true or false, not ${respectRobots}.`);
    }
    this.#robots = respectRobots
      ? new RobotsGate(
        new HttpReader({
          ...options,
          respectRobots: false,
          maxBytes: ROBOTS_MAX_BYTES,
          timeoutMs: Math.min(timeoutMs, ROBOTS_TIMEOUT_MS),
          cacheTtlMs: 0,
        }),
        clock,
      )
      : undefined;
    this.#content = content;
    this.#inlineImages = inlineImages;
  }

  /**
   * Reads `url` and returns its whole readable body. Failures the model can act on (bad URL,
   * refused address, unreachable host, timeout, too many redirects, policy refusal) are
   * `ToolError`s; aborting `signal` rejects with its reason.
   */
  async read(url: string, options: ReadOptions = {}): Promise<Page> {
    const {
      images = false,
      signal,
      policy,
      onProgress,
      content = this.#content,
      inlineImages = this.#inlineImages,
    } = options;
    signal?.throwIfAborted();
    checkContent(content);
    checkInlineImages(inlineImages);
    const target = parseHttpUrl(url);
    await this.#robots?.check(target, signal);
    // Concurrent reads of one URL under one policy share one request and its result (and the
    // first reader's progress reports).
    const flight = `${this.#policyId(policy)} ${content} ${inlineImages} ${target.href}`;
    const page = await this.#flights.run(
      flight,
      signal,
      (shared) => this.#load(target, shared, policy, content, inlineImages, onProgress),
    );
    // Where redirects led is held to its own site's robots.txt as well.
    if (page.url !== target.href) await this.#robots?.check(new URL(page.url), signal);
    return images ? page : { ...page, images: [] };
  }

  /** A number per policy object, so that only reads under the same policy share a request. */
  #policyId(policy: UrlPolicy | undefined): number {
    if (!policy) return 0;
    let id = this.#policyIds.get(policy);
    if (id === undefined) this.#policyIds.set(policy, id = ++this.#policyCount);
    return id;
  }

  /** The page from the cache, or read and cached. */
  async #load(
    target: URL,
    signal: AbortSignal,
    policy: UrlPolicy | undefined,
    content: "main" | "full",
    inlineImages: "markdown" | "alt" | "none",
    onProgress: ReadOptions["onProgress"],
  ): Promise<Page> {
    // The whole page and its main content, with images or without, are different reads of one
    // URL (the default's keys are as they always were).
    const key = (content === "main" ? "" : "full ") +
      (inlineImages === "markdown" ? "" : `${inlineImages} `) + this.#keyPrefix + target.href;
    const cached = await this.#cached(key);
    if (cached) {
      if (policy && !policy.permits(cached.url)) {
        throw policyRefusal(cached.url, cached.url === target.href ? undefined : target.href);
      }
      return cached;
    }
    const page = await this.#fetchPage(target, signal, policy, content, inlineImages, onProgress);
    // A server error is passing; caching it would hide the recovery for the whole TTL.
    if (this.#cache && page.status < 500) {
      try {
        await this.#cache.set(key, { storedAt: this.#clock.now(), page }, this.#cacheTtlMs);
      } catch {
        // A cache that fails to store costs a refetch, never the read.
      }
    }
    return page;
  }

  async #cached(key: string): Promise<Page | undefined> {
    if (!this.#cache) return undefined;
    try {
      const entry = await this.#cache.get(key);
      if (entry && this.#clock.now() - entry.storedAt < this.#cacheTtlMs) return entry.page;
    } catch {
      // A cache that fails to answer is a miss.
    }
    return undefined;
  }

  async #fetchPage(
    target: URL,
    callerSignal: AbortSignal | undefined,
    policy: UrlPolicy | undefined,
    content: "main" | "full",
    inlineImages: "markdown" | "alt" | "none",
    onProgress?: ReadOptions["onProgress"],
  ): Promise<Page> {
    const limit = timeLimit(this.#timeoutMs, { signal: callerSignal, clock: this.#clock });
    const { signal } = limit;
    try {
      let current = target;
      for (let hop = 0;; hop++) {
        if (policy && !policy.permits(current.href)) {
          throw policyRefusal(current.href, current === target ? undefined : target.href);
        }
        if (this.#guard) await guardUrl(current, this.#resolveHost, signal);
        const response = await this.#send(current, signal);
        await refuseFollowed(response, current, target);
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location !== null) {
          await response.body?.cancel();
          if (hop === MAX_REDIRECTS) {
            throw new ToolError(
              `Too many redirects: ${
                showUrl(target.href, MAX_URL_SHOWN)
              } redirected more than ${MAX_REDIRECTS} times.`,
              {
                hint: "The site may be in a redirect loop; try another URL for the same content.",
              },
            );
          }
          current = parseRedirect(location, current, target);
          continue;
        }
        return await this.#toPage(current, response, signal, content, inlineImages, onProgress);
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (limit.expired) {
        throw new ToolError(
          `Timed out after ${this.#timeoutMs / 1000} s reading ${
            showUrl(target.href, MAX_URL_SHOWN)
          }.`,
          {
            hint: "The server is slow or not answering; try again later or try another source.",
            code: "timeout",
          },
        );
      }
      if (error instanceof ToolError) throw error;
      throw new ToolError(
        `Reading ${showUrl(target.href, MAX_URL_SHOWN)} failed: ${quoteText(describe(error))}.`,
        {
          hint: "The connection broke off; try again later.",
          cause: error,
        },
      );
    } finally {
      limit.release();
    }
  }

  /**
   * One GET, retried twice with backoff on connection failures and 502/503/504. A 429, or a 503
   * that says when to come back, is a `ToolError` saying when, not a page.
   */
  async #send(url: URL, signal: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await fetchWithRetry(
        () =>
          this.#fetch(url.href, {
            method: "GET",
            headers: { "accept": ACCEPT, "user-agent": this.#userAgent },
            redirect: "manual",
            signal,
          }),
        {
          delayMs: this.#retryDelayMs,
          signal,
          retryOn: (status) => RETRY_STATUSES.has(status),
          clock: this.#clock,
        },
      );
    } catch (cause) {
      // A ToolError from the fetch itself (a pinning proxy's refusal) reaches the model in its
      // own words.
      if (signal.aborted || cause instanceof ToolError) throw cause;
      throw unreachable(url, cause);
    }
    const now = this.#clock.now();
    const wait = retryAfterMs(response.headers, now);
    if (response.status === 429 || (response.status === 503 && wait !== undefined)) {
      await response.body?.cancel().catch(() => {});
      throw rateLimited(url.host, response.status, wait, undefined, now);
    }
    return response;
  }

  async #toPage(
    url: URL,
    response: Response,
    signal: AbortSignal,
    content: "main" | "full",
    inlineImages: "markdown" | "alt" | "none",
    onProgress?: ReadOptions["onProgress"],
  ): Promise<Page> {
    const contentType = response.headers.get("content-type");
    let mediaType = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (!MEDIA_TYPE.test(mediaType)) mediaType = "";
    const base = { url: url.href, status: response.status, images: [] };
    const typed = this.#decoders.find((decoder) => decoder.mediaTypes.includes(mediaType));
    // An untyped body is downloaded (within the cap) when a decoder might recognise it.
    const sniffable = UNTYPED.has(mediaType) && this.#decoders.some((decoder) => decoder.sniff);
    if (BINARY_TYPE.test(mediaType) && !typed && !sniffable) {
      const declared = Number(response.headers.get("content-length") ?? NaN);
      if (Number.isSafeInteger(declared) && declared >= 0) {
        await response.body?.cancel();
        return { ...base, mediaType, text: binaryNote(mediaType, declared), sizeCapped: false };
      }
    }
    const read = await readCapped(
      response.body,
      typed?.maxBytes ?? this.#maxBytes,
      signal,
      onProgress,
    );
    const capped = read.capped;
    const decoder = typed ??
      (UNTYPED.has(mediaType)
        ? this.#decoders.find((d) => d.sniff?.(read.bytes.subarray(0, SNIFF_BYTES)))
        : undefined);
    if (decoder) {
      const context = { url: url.href, mediaType, sizeCapped: capped, signal };
      const { text, title } = await runDecoder(decoder, read.bytes, context);
      const type = typed ? mediaType : decoder.mediaTypes[0] ?? "application/octet-stream";
      return { ...base, mediaType: type, text, sizeCapped: capped, ...(title ? { title } : {}) };
    }
    const encoding = encodingOf(read.bytes, contentType);
    // A cap can cut a character in half; its first bytes would decode as U+FFFD.
    const bytes = capped ? dropPartialTail(read.bytes, encoding) : read.bytes;
    const head = bytes.subarray(0, SNIFF_BYTES);
    const utf16 = encoding.startsWith("utf-16");
    if (BINARY_TYPE.test(mediaType) || (!utf16 && head.includes(0))) {
      const type = mediaType || "application/octet-stream";
      return {
        ...base,
        mediaType: type,
        text: binaryNote(type, bytes.length, capped),
        sizeCapped: capped,
      };
    }
    const text = decodeBody(bytes, encoding);
    if (mediaType === "") {
      const start = text.slice(0, SNIFF_BYTES);
      if (looksHtml(start)) {
        mediaType = "text/html";
      } else if (NOT_TEXT.test(start)) {
        return {
          ...base,
          mediaType: "",
          text: binaryNote("unknown type", bytes.length, capped),
          sizeCapped: capped,
        };
      } else {
        mediaType = "text/plain";
      }
    }
    if (HTML_TYPE.test(mediaType)) {
      const result = htmlToMarkdown(text, {
        baseUrl: url.href,
        images: true,
        content,
        inlineImages,
      });
      const page: Page = {
        ...base,
        mediaType,
        text: result.markdown,
        images: result.images,
        sizeCapped: capped,
      };
      if (result.title) page.title = result.title;
      if (result.omitted > 0) page.omitted = result.omitted;
      if (result.scripted) page.scripted = true;
      return page;
    }
    return {
      ...base,
      mediaType,
      text: JSON_TYPE.test(mediaType) ? compactJson(text) : text,
      sizeCapped: capped,
    };
  }
}

/**
 * Whether an untyped body is HTML: after whitespace and comments, it opens with one of the
 * {@linkcode HTML_OPENING} tags. Comments are skipped by hand, each ending at its first `-->`
 * as in a browser: a pattern `(?:\s|<!--[\s\S]*?-->)*` tries every way of grouping a run of
 * comments, exponential in their number.
 */
function looksHtml(text: string): boolean {
  let at = 0;
  while (true) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (!text.startsWith("<!--", at)) break;
    const end = text.indexOf("-->", at + 4);
    if (end < 0) return false;
    at = end + 3;
  }
  return HTML_OPENING.test(text.slice(at));
}

function checkContent(content: unknown): void {
  if (content !== "main" && content !== "full") {
    throw new UserError(`content must be "main" or "full", not ${JSON.stringify(content)}.`);
  }
}

function checkInlineImages(inlineImages: unknown): void {
  if (inlineImages !== "markdown" && inlineImages !== "alt" && inlineImages !== "none") {
    throw new UserError(
      `inlineImages must be "markdown", "alt" or "none", not ${JSON.stringify(inlineImages)}.`,
    );
  }
}

function positive(name: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new UserError(`${name} must be a positive number, not ${value}.`);
  }
}

/** Parses a URL the model gave; only absolute http(s) URLs pass. */
export function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new InvalidInputError(`Malformed URL: ${quoteValue(url)}.`, {
      hint: "Pass an absolute URL such as https://example.com/page.",
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidInputError(
      `Unsupported URL scheme ${quoteValue(parsed.protocol, 40)} in ${
        showUrl(parsed.href, MAX_URL_SHOWN)
      }.`,
      {
        hint: "Only http:// and https:// URLs can be fetched.",
      },
    );
  }
  return parsed;
}

/**
 * Where a redirect from `from` leads. Its refusals name the URL the model asked for (`target`)
 * and hosts only: the `Location` and every hop after the first are the site's words.
 */
function parseRedirect(location: string, from: URL, target: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ToolError(
      `Reading ${showUrl(target.href, MAX_URL_SHOWN)}: ${
        showHost(from)
      } redirected to a malformed URL.`,
    );
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new ToolError(
      `Reading ${showUrl(target.href, MAX_URL_SHOWN)}: ${
        showHost(from)
      } redirected to a URL that is not http(s).`,
    );
  }
  return next;
}

/**
 * Refuses an answer that is not the one for `url`: a `fetch` that followed a redirect itself
 * (despite `redirect: "manual"`) would have skipped the guard and the policy on that hop.
 */
async function refuseFollowed(response: Response, url: URL, target: URL): Promise<void> {
  const moved = response.redirected || (response.url !== "" && !sameDocument(response.url, url));
  if (!moved && response.type !== "opaqueredirect") return;
  await response.body?.cancel().catch(() => {});
  // The model's own URL, and hosts: the hop and where the fetch went are the site's choice.
  const shown = showUrl(target.href, MAX_URL_SHOWN);
  throw new ToolError(
    response.type === "opaqueredirect"
      ? `Reading ${shown}: ${showHost(url)} redirected, and this runtime's fetch hides where to.`
      : `Reading ${shown}: the fetch answered a request to ${showHost(url)} from ${
        response.url ? showHost(response.url) : "another URL"
      }: it followed a redirect itself, which the reader must check hop by hop.`,
    {
      hint: "This is a fault of the reader's set-up, not of the URL; try another source.",
    },
  );
}

/** Whether two URLs name the same document: fetch drops the fragment from `response.url`. */
function sameDocument(url: string, current: URL): boolean {
  const hash = current.href.indexOf("#");
  return url === (hash < 0 ? current.href : current.href.slice(0, hash));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unreachable(url: URL, cause: unknown): ToolError {
  const message = describe(cause);
  const reason = /dns|lookup|resolve|getaddrinfo|name or service|nodename/i.test(message)
    ? "the name does not resolve"
    : /refused/i.test(message)
    ? "the connection was refused"
    : /certificate|tls|ssl|handshake/i.test(message)
    ? "the secure connection failed"
    : /reset|closed|broken pipe|eof/i.test(message)
    ? "the connection was dropped"
    : "the connection failed";
  return new ToolError(`Could not reach ${clipLine(url.host, MAX_URL_SHOWN)}: ${reason}.`, {
    hint: "Check the URL for typos, or try again later; the site may be down.",
    code: "unreachable",
    cause,
  });
}

function binaryNote(type: string, bytes: number, capped = false): string {
  return `(binary content not shown: ${type}, ${capped ? "more than " : ""}${bytes} bytes)`;
}

function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * Reads a body up to `maxBytes` and cancels the rest, so memory stays bounded whatever the
 * server sends. Aborting `signal` cancels the read too, even with a `fetch` that ignores it.
 */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal: AbortSignal,
  onProgress?: (received: number, maxBytes: number) => void,
): Promise<{ bytes: Uint8Array; capped: boolean }> {
  if (!body) return { bytes: new Uint8Array(0), capped: false };
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let capped = false;
  try {
    // A fetch that ignores the signal can answer after the abort, which no listener will hear.
    signal.throwIfAborted();
    while (true) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      if (total + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        capped = true;
        break;
      }
      chunks.push(value);
      total += value.length;
      onProgress?.(total, maxBytes);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (capped || signal.aborted) await reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, capped };
}
