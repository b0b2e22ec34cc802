import { timeLimit } from "../clock.ts";
import { quoteText, showUrl } from "../fence.ts";
import { ToolError } from "../errors.ts";
import { checkOption, nonNegativeNumber } from "../option_checks.ts";
import { policyRefusal } from "../url_policy.ts";
import { guardUrl } from "./address_guard.ts";
import {
  type BrowserReaderOptions,
  type BrowserSettings,
  browserSettings,
  RENDER,
} from "./browser_reader_options.ts";
import { renderPage } from "./browser_render.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import { CACHE_CHARS, HttpReader } from "./http_reader.ts";
import type { Page, PageReader, ReadOptions } from "./page.ts";
import type { PageForm } from "./page_body.ts";
import { PageStore } from "./page_store.ts";
import { parseHttpUrl } from "./read_errors.ts";
import { requestSpan } from "./request_span.ts";
import { Slots } from "./slots.ts";
import { HTML_TYPE } from "./sniff.ts";
import { MemoryUrlCache } from "./url_cache.ts";

export type { BrowserReaderOptions };

/**
 * A {@linkcode PageReader} that runs pages' scripts in a real browser, driven over the Chrome
 * DevTools Protocol on a standard `WebSocket` (Deno, Node and Workers alike). It reads with a
 * plain reader first and renders only pages built by scripts, unless told to (`render`). Each
 * render gets a fresh browser context and one tab, closed after; every request the page makes
 * is checked against the address guard (and the URL policy, for the page itself) before the
 * browser sends it. That check cannot see WebSockets, nor requests of service workers, and
 * names can rebind after it: put the browser behind a checking proxy as well, as
 * `launchChromium` from `@outpost/agent-tools/deno` does.
 *
 * @example
 * ```ts
 * // Not asserted: it needs a browser (see BrowserReaderOptions for a checked read without one).
 * import { webFetch } from "@outpost/agent-tools";
 * import { BrowserReader } from "@outpost/agent-tools/fetch";
 * // A browser service's DevTools endpoint; see launchChromium for a local one.
 * const reader = new BrowserReader({ browser: "wss://browser.example/devtools?token=…" });
 * const tool = webFetch(reader);
 * ```
 */
export class BrowserReader implements PageReader {
  /** This reader runs scripts: `web_fetch` offers the model its `render` choice. */
  readonly renders = true;
  readonly #settings: BrowserSettings;
  readonly #http: PageReader;
  readonly #slots: Slots;
  readonly #store: PageStore | undefined;

  /** Checks the options; throws `SetupError` for a bad one. */
  constructor(options: BrowserReaderOptions) {
    const settings = this.#settings = browserSettings(options);
    const { http, guard, resolveHost, clock, cache, cacheTtlMs } = settings;
    this.#store = cacheTtlMs === 0
      ? undefined
      : new PageStore(cache ?? new MemoryUrlCache({ maxChars: CACHE_CHARS }), cacheTtlMs, clock);
    this.#http = http ?? new HttpReader({ allowPrivateNetwork: !guard, resolveHost, clock });
    this.#slots = new Slots(settings.maxPages);
  }

  /**
   * Reads `url` with the plain reader, then, for an HTML page, in the browser when the page is
   * built by scripts (`render: "auto"`) or always (`"always"`). Anything else is the plain read.
   */
  async read(url: string, options: ReadOptions = {}): Promise<Page> {
    const {
      render = this.#settings.render,
      content = this.#settings.content,
      inlineImages = this.#settings.inlineImages,
      links = false,
    } = options;
    options.signal?.throwIfAborted();
    checkOption("render", render, RENDER);
    checkOption("content", content, CONTENT);
    checkOption("inlineImages", inlineImages, INLINE_IMAGES);
    if (options.maxAgeMs !== undefined) {
      checkOption("maxAgeMs", options.maxAgeMs, nonNegativeNumber);
    }
    const target = parseHttpUrl(url);
    const plain = { ...options, content, inlineImages, links };
    // The plain read comes first even when rendering: it applies robots.txt, the guard and the
    // policy to the redirect chain, and tells a PDF from a page without opening a browser.
    const page = await this.#http.read(target.href, plain);
    if (render === "never" || !HTML_TYPE.test(page.mediaType)) return page;
    if (render === "auto" && !builtByScripts(page)) return page;
    // Guarded renders and unguarded ones keep apart, as HttpReader's pages do.
    const key = `rendered ${content} ${inlineImages} ${links ? "links " : ""}${
      this.#settings.guard ? "guarded " : ""
    }${target.href}`;
    let rendered: Page | undefined = await this.#store?.get(key, options.maxAgeMs);
    if (rendered && options.policy && !options.policy.permits(rendered.url)) {
      throw policyRefusal(rendered.url, rendered.url === target.href ? undefined : target.href);
    }
    if (!rendered) {
      try {
        rendered = await this.#rendered(target, options, { content, inlineImages, links });
      } catch (error) {
        // Unasked for, a render that fails leaves the plain read, which says what it lacks.
        if (render === "auto" && error instanceof ToolError && !options.signal?.aborted) {
          return page;
        }
        throw error;
      }
      if (!rendered) return page;
      await this.#store?.set(key, rendered);
    } else rendered = { ...rendered, bytesRead: 0 };
    // The plain read's bytes are this read's too.
    const bytesRead = (page.bytesRead ?? 0) + (rendered.bytesRead ?? 0);
    return { ...rendered, bytesRead, ...(options.images ? {} : { images: [] }) };
  }

  /** The page as the browser renders it, or `undefined` when the document is not HTML. */
  async #rendered(
    target: URL,
    options: ReadOptions,
    form: PageForm,
  ): Promise<Page | undefined> {
    const { signal: callerSignal, policy } = options;
    const limit = timeLimit(this.#settings.timeoutMs, {
      signal: callerSignal,
      clock: this.#settings.clock,
    });
    const { signal } = limit;
    try {
      if (policy && !policy.permits(target.href)) throw policyRefusal(target.href);
      if (this.#settings.guard) await guardUrl(target, this.#settings.resolveHost, signal);
      await this.#slots.take(signal);
      try {
        // The browser's load of the page is an outbound request like the plain read's.
        return await requestSpan(options.tracer, target, async (span) => {
          const page = await renderPage(
            this.#settings,
            target,
            signal,
            policy,
            form,
          );
          if (page) span?.setAttribute("http.response.status_code", page.status);
          return page;
        });
      } finally {
        this.#slots.give();
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (limit.expired) {
        throw new ToolError(
          `Timed out after ${this.#settings.timeoutMs / 1000} s rendering ${
            showUrl(target.href, 300)
          }.`,
          {
            hint: "The page is slow to build; try again later or try another source.",
            code: "timeout",
          },
        );
      }
      if (error instanceof ToolError) throw error;
      throw new ToolError(
        `Rendering ${showUrl(target.href, 300)} in the browser failed: ${
          quoteText(error instanceof Error ? error.message : String(error))
        }.`,
        { hint: "Try again later, or read the page with render set to never.", cause: error },
      );
    } finally {
      limit.release();
    }
  }
}

/** Whether a plain read found a page that only its scripts fill. */
function builtByScripts(page: Page): boolean {
  return page.status < 400 && HTML_TYPE.test(page.mediaType) &&
    (page.scripted === true || page.text.trim() === "");
}
