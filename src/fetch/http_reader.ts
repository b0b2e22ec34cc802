import { timeLimit } from "../clock.ts";
import { ToolError } from "../errors.ts";
import { policyRefusal, type UrlPolicy } from "../url_policy.ts";
import { guardUrl } from "./address_guard.ts";
import { Coalescer } from "./coalesce.ts";
import {
  type HttpReaderOptions,
  type ReaderSettings,
  readerSettings,
} from "./http_reader_options.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import { checkOption, nonNegativeNumber } from "../option_checks.ts";
import type { Page, PageReader, ReadOptions } from "./page.ts";
import { type PageForm, toPage } from "./page_body.ts";
import { sendGet } from "./page_request.ts";
import { pageKey, PageStore } from "./page_store.ts";
import { parseHttpUrl, readFailed, timedOut } from "./read_errors.ts";
import { redirectTarget, refuseFollowed } from "./redirects.ts";
import { RobotsGate } from "./robots.ts";
import { MemoryUrlCache } from "./url_cache.ts";
import { requestSpan } from "./request_span.ts";
import type { Tracer } from "../tracer.ts";

export type { HttpReaderOptions };

/** Characters the default in-memory cache holds across its pages (about 16 MB). */
export const CACHE_CHARS = 8_000_000;
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
 * import assert from "node:assert/strict";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * const reader = new HttpReader({ timeoutMs: 10_000, maxBytes: 2_000_000 });
 * const tool = webFetch(reader);
 *
 * // A page served on this machine, which only a reader that allows private addresses reads:
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response("<title>Hi</title><h1>Hello</h1>", { headers: { "content-type": "text/html" } }));
 * const url = `http://127.0.0.1:${server.addr.port}/`;
 * await assert.rejects(tool.execute({ url }), /private or local/);
 * const page = await new HttpReader({ allowPrivateNetwork: true }).read(url);
 * assert.deepEqual([page.status, page.title, page.text], [200, "Hi", "# Hello"]);
 * ```
 */
export class HttpReader implements PageReader {
  readonly #settings: ReaderSettings;
  readonly #store: PageStore | undefined;
  readonly #flights = new Coalescer<Page>();
  readonly #robots: RobotsGate | undefined;
  readonly #policyIds = new WeakMap<UrlPolicy, number>();
  #policyCount = 0;

  /** Checks the options; throws `SetupError` for a bad one. */
  constructor(options: HttpReaderOptions = {}) {
    const settings = this.#settings = readerSettings(options);
    const { cacheTtlMs, cache, cacheSize, clock } = settings;
    this.#store = cacheTtlMs === 0 ? undefined : new PageStore(
      cache ?? new MemoryUrlCache({ maxEntries: cacheSize, maxChars: CACHE_CHARS, clock }),
      cacheTtlMs,
      clock,
    );
    this.#robots = settings.respectRobots
      ? new RobotsGate(
        new HttpReader({
          ...options,
          respectRobots: false,
          maxBytes: ROBOTS_MAX_BYTES,
          timeoutMs: Math.min(settings.timeoutMs, ROBOTS_TIMEOUT_MS),
          cacheTtlMs: 0,
        }),
        clock,
      )
      : undefined;
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
      tracer,
      content = this.#settings.content,
      inlineImages = this.#settings.inlineImages,
      links = false,
      maxAgeMs,
    } = options;
    signal?.throwIfAborted();
    checkOption("content", content, CONTENT);
    checkOption("inlineImages", inlineImages, INLINE_IMAGES);
    if (maxAgeMs !== undefined) checkOption("maxAgeMs", maxAgeMs, nonNegativeNumber);
    const target = parseHttpUrl(url);
    const robotsBytes = await this.#robots?.check(target, signal, tracer) ?? 0;
    // Concurrent reads of one URL under one policy share one request and its result (and the
    // first reader's progress reports).
    // A read that bounds the cached copy's age shares only with reads bounding it alike.
    const flight = `${this.#policyId(policy)} ${content} ${inlineImages} ${links} ${
      maxAgeMs ?? ""
    } ${target.href}`;
    const page = await this.#flights.run(
      flight,
      signal,
      (shared) =>
        this.#load(
          target,
          shared,
          policy,
          { content, inlineImages, links },
          onProgress,
          maxAgeMs,
          tracer,
        ),
    );
    // Where redirects led is held to its own site's robots.txt as well.
    const moreBytes = page.url === target.href
      ? 0
      : await this.#robots?.check(new URL(page.url), signal, tracer) ?? 0;
    // The robots.txt fetches are this read's too (the page object may be shared: a copy).
    const bytesRead = (page.bytesRead ?? 0) + robotsBytes + moreBytes;
    return { ...page, bytesRead, ...(images ? {} : { images: [] }) };
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
    form: PageForm,
    onProgress: ReadOptions["onProgress"],
    maxAgeMs: number | undefined,
    tracer: Tracer | undefined,
  ): Promise<Page> {
    const key = pageKey(target.href, this.#settings, form.content, form.inlineImages, form.links);
    const cached = await this.#store?.get(key, maxAgeMs);
    if (cached) {
      if (policy && !policy.permits(cached.url)) {
        throw policyRefusal(cached.url, cached.url === target.href ? undefined : target.href);
      }
      return { ...cached, bytesRead: 0, cached: true };
    }
    const page = await this.#fetchPage(
      target,
      signal,
      policy,
      form,
      onProgress,
      tracer,
    );
    await this.#store?.set(key, page);
    return page;
  }

  /** The redirect walk, each hop checked by the policy and the guard, within the timeout. */
  async #fetchPage(
    target: URL,
    callerSignal: AbortSignal | undefined,
    policy: UrlPolicy | undefined,
    form: PageForm,
    onProgress: ReadOptions["onProgress"],
    tracer: Tracer | undefined,
  ): Promise<Page> {
    const settings = this.#settings;
    const limit = timeLimit(settings.timeoutMs, { signal: callerSignal, clock: settings.clock });
    const { signal } = limit;
    try {
      let current = target;
      for (let hop = 0;; hop++) {
        if (policy && !policy.permits(current.href)) {
          throw policyRefusal(current.href, current === target ? undefined : target.href);
        }
        if (settings.guard) await guardUrl(current, settings.resolveHost, signal);
        const from = current;
        // A span per request when the host traces: its headers, and the body of the last.
        const page = await requestSpan(tracer, from, async (span) => {
          const response = await sendGet(from, signal, settings);
          span?.setAttribute("http.response.status_code", response.status);
          await refuseFollowed(response, from, target);
          const next = await redirectTarget(response, from, target, hop);
          if (next) return next;
          let bytesRead = 0;
          const { decoders, maxBytes } = settings;
          const page = await toPage(from, response, signal, {
            decoders,
            maxBytes,
            ...form,
            onProgress: (received, max) => {
              bytesRead = received;
              onProgress?.(received, max);
            },
          });
          return { ...page, bytesRead };
        });
        if (page instanceof URL) {
          current = page;
          continue;
        }
        return page;
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (limit.expired) throw timedOut(target, settings.timeoutMs);
      if (error instanceof ToolError) throw error;
      throw readFailed(target, error);
    } finally {
      limit.release();
    }
  }
}
