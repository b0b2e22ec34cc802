import { type Clock, systemClock, timeLimit } from "../clock.ts";
import { quoteText, showUrl } from "../fence.ts";
import { SetupError, ToolError } from "../errors.ts";
import {
  aFunction,
  checkOption,
  flag,
  implementing,
  nonNegativeNumber,
  oneOf,
  positiveInteger,
  positiveNumber,
  timeoutMs as timeoutKind,
} from "../option_checks.ts";
import { policyRefusal, type UrlPolicy } from "../url_policy.ts";
import { guardUrl, type ResolveHost } from "./address_guard.ts";
import { CdpConnection, type CdpEvent } from "./cdp.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import { CACHE_CHARS, HttpReader } from "./http_reader.ts";
import type { Page, PageReader, ReadOptions } from "./page.ts";
import { htmlPage } from "./page_body.ts";
import { PageStore } from "./page_store.ts";
import { parseHttpUrl } from "./read_errors.ts";
import { HTML_TYPE } from "./sniff.ts";
import { MemoryUrlCache, type UrlCache } from "./url_cache.ts";

/**
 * Options of {@linkcode BrowserReader}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BrowserReader, type BrowserReaderOptions, type Page } from "@outpost/agent-tools/fetch";
 * const options: BrowserReaderOptions = {
 *   browser: "ws://127.0.0.1:9222/devtools/browser/0b4a",
 *   render: "auto",
 *   maxPages: 2,
 * };
 * // With `render: "auto"`, a page that has its text without scripts needs no browser:
 * const text: Page = { url: "https://example.com/", status: 200, mediaType: "text/html", text: "# Hi", images: [], sizeCapped: false };
 * const reader = new BrowserReader({ ...options, http: { read: () => Promise.resolve(text) } });
 * assert.equal((await reader.read("https://example.com/")).text, "# Hi");
 * ```
 */
export interface BrowserReaderOptions {
  /**
   * The browser: its DevTools WebSocket URL (`ws://…/devtools/browser/…`, as a local Chromium
   * prints it or a browser service hands it out), or a function that opens a `WebSocket` to
   * it, for bindings such as Cloudflare's Browser Rendering. Each read opens its own connection.
   */
  browser: string | ((signal: AbortSignal) => Promise<WebSocket>);
  /** The reader asked first, and for everything that needs no browser (default a new `HttpReader`). */
  http?: PageReader;
  /**
   * When to render (default `"auto"`): only when the plain read finds a page built by scripts
   * (little or no text without them); `"always"`; or `"never"`. Each read may ask otherwise.
   */
  render?: "auto" | "always" | "never";
  /** A render must finish within this, the browser's start of the page included (default 30 000 ms). */
  timeoutMs?: number;
  /** After the page's load event, how long to wait at most for its network to go quiet (default 5 000 ms). */
  settleMs?: number;
  /** The most bytes one page may download, its scripts, images and data included (default 20 000 000). */
  maxBytes?: number;
  /** Pages rendered at once; further reads wait their turn (default 2). */
  maxPages?: number;
  /** Turn the address check on the browser's requests off, e.g. to read an intranet (default `false`). */
  allowPrivateNetwork?: boolean;
  /** Also refuse requests to names that resolve into private ranges. */
  resolveHost?: ResolveHost;
  /**
   * The credentials the browser's proxy asks for (a local Chromium launched behind Outpost's
   * checking proxy); answered only to the proxy, never to a site.
   */
  proxyCredentials?: { username: string; password: string };
  /** HTML pages: main content (`"main"`, the default) or the whole page (`"full"`). */
  content?: "main" | "full";
  /** HTML pages: images as `![alt](url)` (`"markdown"`, the default), alt text, or `"none"`. */
  inlineImages?: "markdown" | "alt" | "none";
  /** Times the render's deadline and settling, and the cache's freshness (default {@linkcode systemClock}). */
  clock?: Clock;
  /**
   * Where rendered pages are kept, so that reading on at an offset renders nothing again
   * (default: a `MemoryUrlCache` of 32 pages). Its keys differ from `HttpReader`'s.
   */
  cache?: UrlCache;
  /** How long a rendered page stays fresh; 0 keeps none (default 300 000 ms). */
  cacheTtlMs?: number;
}

/** The most characters of rendered HTML read back from the browser. */
const MAX_HTML_CHARS = 10_000_000;
/** Reads the rendered document, clipped, in one evaluation. */
const READ_HTML = `(() => {
  const html = document.documentElement ? document.documentElement.outerHTML : "";
  return { html: html.slice(0, ${MAX_HTML_CHARS}), capped: html.length > ${MAX_HTML_CHARS} };
})()`;
/** URL schemes a page may load: the network ones, checked below, and in-page data. */
const NETWORK_SCHEME = /^(?:https?|wss?):$/;
const LOCAL_SCHEME = /^(?:data|blob|about):$/;

/** When a read runs the browser. */
const RENDER = oneOf(["auto", "always", "never"]);

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
  readonly #browser: string | ((signal: AbortSignal) => Promise<WebSocket>);
  readonly #http: PageReader;
  readonly #render: "auto" | "always" | "never";
  readonly #timeoutMs: number;
  readonly #settleMs: number;
  readonly #maxBytes: number;
  readonly #slots: Slots;
  readonly #guard: boolean;
  readonly #resolveHost: ResolveHost | undefined;
  readonly #credentials: { username: string; password: string } | undefined;
  readonly #content: "main" | "full";
  readonly #inlineImages: "markdown" | "alt" | "none";
  readonly #clock: Clock;
  readonly #store: PageStore | undefined;

  /** Checks the options; throws `SetupError` for a bad one. */
  constructor(options: BrowserReaderOptions) {
    const {
      browser,
      http,
      render = "auto",
      timeoutMs = 30_000,
      settleMs = 5_000,
      maxBytes = 20_000_000,
      maxPages = 2,
      allowPrivateNetwork = false,
      resolveHost,
      proxyCredentials,
      content = "main",
      inlineImages = "markdown",
      clock = systemClock,
      cache,
      cacheTtlMs = 300_000,
    } = options ?? {};
    if (typeof browser === "string") {
      if (!URL.canParse(browser) || !/^wss?:$/.test(new URL(browser).protocol)) {
        throw new SetupError(`browser must be a ws:// or wss:// DevTools URL, not ${browser}.`);
      }
      if (typeof WebSocket !== "function") {
        throw new SetupError("This runtime has no global WebSocket to reach the browser with.", {
          hint: "On Node 20, run with --experimental-websocket (Node 22 has it), or pass " +
            "browser as a function that opens one, e.g. with the ws package.",
        });
      }
    } else if (typeof browser !== "function") {
      throw new SetupError("browser must be a DevTools WebSocket URL or a function opening one.");
    }
    if (http !== undefined) {
      checkOption("http", http, implementing("PageReader", ["read"], "read(url, options)"));
    }
    checkOption("render", render, RENDER);
    checkOption("content", content, CONTENT);
    checkOption("inlineImages", inlineImages, INLINE_IMAGES);
    checkOption("timeoutMs", timeoutMs, timeoutKind());
    checkOption("settleMs", settleMs, timeoutKind());
    checkOption("maxBytes", maxBytes, positiveNumber);
    checkOption("maxPages", maxPages, positiveInteger);
    checkOption("allowPrivateNetwork", allowPrivateNetwork, flag);
    if (resolveHost !== undefined) {
      checkOption("resolveHost", resolveHost, aFunction("from a host name to its addresses"));
    }
    if (
      proxyCredentials !== undefined &&
      (typeof proxyCredentials?.username !== "string" ||
        typeof proxyCredentials.password !== "string")
    ) {
      throw new SetupError("proxyCredentials must hold a username and a password.");
    }
    checkOption(
      "clock",
      clock,
      implementing("Clock", ["now", "setTimer"], "now() and setTimer(callback, ms)"),
    );
    checkOption("cacheTtlMs", cacheTtlMs, nonNegativeNumber, "Pass 0 to turn caching off.");
    if (cache !== undefined) {
      checkOption(
        "cache",
        cache,
        implementing("UrlCache", ["get", "set"], "async get(key) and set(key, entry)"),
      );
    }
    this.#store = cacheTtlMs === 0
      ? undefined
      : new PageStore(cache ?? new MemoryUrlCache({ maxChars: CACHE_CHARS }), cacheTtlMs, clock);
    this.#browser = browser;
    this.#http = http ?? new HttpReader({ allowPrivateNetwork, resolveHost, clock });
    this.#render = render;
    this.#timeoutMs = timeoutMs;
    this.#settleMs = settleMs;
    this.#maxBytes = maxBytes;
    this.#slots = new Slots(maxPages);
    this.#guard = !allowPrivateNetwork;
    this.#resolveHost = resolveHost;
    this.#credentials = proxyCredentials;
    this.#content = content;
    this.#inlineImages = inlineImages;
    this.#clock = clock;
  }

  /**
   * Reads `url` with the plain reader, then, for an HTML page, in the browser when the page is
   * built by scripts (`render: "auto"`) or always (`"always"`). Anything else is the plain read.
   */
  async read(url: string, options: ReadOptions = {}): Promise<Page> {
    const {
      render = this.#render,
      content = this.#content,
      inlineImages = this.#inlineImages,
    } = options;
    options.signal?.throwIfAborted();
    checkOption("render", render, RENDER);
    checkOption("content", content, CONTENT);
    checkOption("inlineImages", inlineImages, INLINE_IMAGES);
    if (options.maxAgeMs !== undefined) {
      checkOption("maxAgeMs", options.maxAgeMs, nonNegativeNumber);
    }
    const target = parseHttpUrl(url);
    const plain = { ...options, content, inlineImages };
    // The plain read comes first even when rendering: it applies robots.txt, the guard and the
    // policy to the redirect chain, and tells a PDF from a page without opening a browser.
    const page = await this.#http.read(target.href, plain);
    if (render === "never" || !HTML_TYPE.test(page.mediaType)) return page;
    if (render === "auto" && !builtByScripts(page)) return page;
    // Guarded renders and unguarded ones keep apart, as HttpReader's pages do.
    const key = `rendered ${content} ${inlineImages} ${
      this.#guard ? "guarded " : ""
    }${target.href}`;
    let rendered = await this.#store?.get(key, options.maxAgeMs);
    if (rendered && options.policy && !options.policy.permits(rendered.url)) {
      throw policyRefusal(rendered.url, rendered.url === target.href ? undefined : target.href);
    }
    if (!rendered) {
      try {
        rendered = await this.#rendered(target, options, content, inlineImages);
      } catch (error) {
        // Unasked for, a render that fails leaves the plain read, which says what it lacks.
        if (render === "auto" && error instanceof ToolError && !options.signal?.aborted) {
          return page;
        }
        throw error;
      }
      if (!rendered) return page;
      await this.#store?.set(key, rendered);
    }
    return options.images ? rendered : { ...rendered, images: [] };
  }

  /** The page as the browser renders it, or `undefined` when the document is not HTML. */
  async #rendered(
    target: URL,
    options: ReadOptions,
    content: "main" | "full",
    inlineImages: "markdown" | "alt" | "none",
  ): Promise<Page | undefined> {
    const { signal: callerSignal, policy } = options;
    const limit = timeLimit(this.#timeoutMs, { signal: callerSignal, clock: this.#clock });
    const { signal } = limit;
    try {
      if (policy && !policy.permits(target.href)) throw policyRefusal(target.href);
      if (this.#guard) await guardUrl(target, this.#resolveHost, signal);
      await this.#slots.take(signal);
      try {
        return await this.#renderIn(target, signal, policy, content, inlineImages);
      } finally {
        this.#slots.give();
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (limit.expired) {
        throw new ToolError(
          `Timed out after ${this.#timeoutMs / 1000} s rendering ${showUrl(target.href, 300)}.`,
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

  async #renderIn(
    target: URL,
    signal: AbortSignal,
    policy: UrlPolicy | undefined,
    content: "main" | "full",
    inlineImages: "markdown" | "alt" | "none",
  ): Promise<Page | undefined> {
    const socket = typeof this.#browser === "string"
      ? new WebSocket(this.#browser)
      : await this.#browser(signal);
    const cdp = await CdpConnection.open(socket, signal);
    const hangUp = () => cdp.close();
    signal.addEventListener("abort", hangUp, { once: true });
    // Not Promise.withResolvers: Node 20 lacks it.
    const settled = deferred();
    let cancelSettle = () => {};
    const state: RenderState = { bytes: 0, capped: false, lifecycle: [] };
    let stopListening = () => {};
    let contextId: string | undefined;
    let targetId: string | undefined;
    try {
      ({ browserContextId: contextId } = await cdp.send("Target.createBrowserContext", {
        disposeOnDetach: true,
      }));
      // A link to a file must not start a download into the browser's machine.
      await cdp.send("Browser.setDownloadBehavior", {
        behavior: "deny",
        browserContextId: contextId,
      }).catch(() => {});
      ({ targetId } = await cdp.send("Target.createTarget", {
        url: "about:blank",
        browserContextId: contextId,
      }));
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
      const page = { targetId: targetId!, sessionId: sessionId as string };
      const onLoad = () => {
        cancelSettle();
        cancelSettle = this.#clock.setTimer(() => settled.resolve(), this.#settleMs);
      };
      stopListening = cdp.on((event) =>
        this.#onEvent(cdp, event, page, state, target, policy, signal, {
          quiet: () => settled.resolve(),
          crashed: () => settled.reject(new Error("the page crashed")),
          load: onLoad,
        })
      );
      await this.#watch(cdp, sessionId);
      await cdp.send("Page.setLifecycleEventsEnabled", { enabled: true }, sessionId);
      const navigation = await cdp.send("Page.navigate", { url: target.href }, sessionId);
      state.loaderId = navigation.loaderId;
      // Lifecycle events may have come before the navigation's answer.
      for (const name of state.lifecycle.filter((e) => e.loaderId === state.loaderId)) {
        if (name.name === "networkIdle") settled.resolve();
        if (name.name === "load") onLoad();
      }
      if (state.refusal) throw state.refusal;
      const type = state.document?.mimeType?.toLowerCase() ?? "";
      if (state.document && !HTML_TYPE.test(type)) return undefined;
      if (navigation.errorText) {
        throw new ToolError(
          `Could not load ${showUrl(target.href, 300)} in the browser: ${
            quoteText(String(navigation.errorText))
          }.`,
          { hint: "Check the URL, or try again later; the site may be down.", code: "unreachable" },
        );
      }
      await Promise.race([settled.promise, aborted(signal)]);
      if (state.refusal) throw state.refusal;
      const { result, exceptionDetails } = await cdp.send(
        "Runtime.evaluate",
        { expression: READ_HTML, returnByValue: true },
        sessionId,
      );
      if (exceptionDetails || typeof result?.value?.html !== "string") {
        throw new Error("the rendered document could not be read");
      }
      const finalUrl = state.document?.url ?? target.href;
      const rendered = htmlPage(
        result.value.html,
        {
          url: URL.canParse(finalUrl) ? new URL(finalUrl).href : target.href,
          status: state.document?.status ?? 200,
          mediaType: HTML_TYPE.test(type) ? type : "text/html",
          sizeCapped: state.capped || result.value.capped === true,
        },
        content,
        inlineImages,
      );
      return { ...rendered, rendered: true };
    } finally {
      cancelSettle();
      stopListening();
      signal.removeEventListener("abort", hangUp);
      // Closing the connection disposes the context too (`disposeOnDetach`); asking first
      // closes the tab at once on browsers that keep detached contexts a while.
      await Promise.race([
        Promise.allSettled([
          targetId && cdp.send("Target.closeTarget", { targetId }),
          contextId && cdp.send("Target.disposeBrowserContext", { browserContextId: contextId }),
        ]),
        aborted(signal).catch(() => {}),
      ]);
      cdp.close();
    }
  }

  /** Turns on, for one target, what the reader watches: requests, responses, page events. */
  async #watch(cdp: CdpConnection, sessionId: string, frame = true): Promise<void> {
    await Promise.all([
      cdp.send(
        "Fetch.enable",
        { patterns: [{ urlPattern: "*" }], handleAuthRequests: true },
        sessionId,
      ),
      cdp.send("Network.enable", {}, sessionId),
      // Workers have no Page domain.
      frame && cdp.send("Page.enable", {}, sessionId),
      // Frames and workers in other processes are targets of their own: they start paused
      // until their requests are watched too.
      cdp.send(
        "Target.setAutoAttach",
        { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
        sessionId,
      ),
    ]);
  }

  #onEvent(
    cdp: CdpConnection,
    event: CdpEvent,
    page: { targetId: string; sessionId: string },
    state: RenderState,
    target: URL,
    policy: UrlPolicy | undefined,
    signal: AbortSignal,
    on: { quiet(): void; crashed(): void; load(): void },
  ): void {
    const { method, params, sessionId } = event;
    const ignore = () => {};
    switch (method) {
      case "Fetch.requestPaused":
        void this.#decide(cdp, event, page, state, target, policy, signal).catch(ignore);
        break;
      case "Fetch.authRequired": {
        // Only the proxy is answered: a site asking for credentials gets none.
        const proxy = params.authChallenge?.source === "Proxy" && this.#credentials;
        cdp.send("Fetch.continueWithAuth", {
          requestId: params.requestId,
          authChallengeResponse: proxy
            ? { response: "ProvideCredentials", ...this.#credentials }
            : { response: "CancelAuth" },
        }, sessionId).catch(ignore);
        break;
      }
      case "Network.responseReceived":
        if (
          sessionId === page.sessionId && params.type === "Document" &&
          params.frameId === page.targetId
        ) {
          const { url, status, mimeType } = params.response ?? {};
          state.document = { url: String(url), status: Number(status), mimeType: String(mimeType) };
        }
        break;
      case "Network.dataReceived":
        state.bytes += Math.max(
          Number(params.dataLength) || 0,
          Number(params.encodedDataLength) || 0,
        );
        if (state.bytes > this.#maxBytes && !state.capped) {
          state.capped = true;
          cdp.send("Page.stopLoading", {}, page.sessionId).catch(ignore);
          on.quiet();
        }
        break;
      case "Page.lifecycleEvent":
        if (sessionId !== page.sessionId || params.frameId !== page.targetId) break;
        if (state.loaderId === undefined) {
          state.lifecycle.push({ name: params.name, loaderId: params.loaderId });
        } else if (params.loaderId === state.loaderId) {
          if (params.name === "networkIdle") on.quiet();
          if (params.name === "load") on.load();
        }
        break;
      case "Page.javascriptDialogOpening":
        // An alert would hold the page (and the read) until the deadline.
        cdp.send("Page.handleJavaScriptDialog", { accept: false }, sessionId).catch(ignore);
        break;
      case "Target.attachedToTarget": {
        // A paused worker answers nothing until it runs, so the watch is asked for and the
        // worker run in one go: the browser takes commands in order.
        const child = params.sessionId as string;
        this.#watch(cdp, child, params.targetInfo?.type === "iframe").catch(ignore);
        cdp.send("Runtime.runIfWaitingForDebugger", {}, child).catch(ignore);
        break;
      }
      case "Inspector.targetCrashed":
        if (sessionId === page.sessionId) on.crashed();
        break;
    }
  }

  /** Lets a paused request go on, or fails it when the guard or the policy refuses it. */
  async #decide(
    cdp: CdpConnection,
    { params, sessionId }: CdpEvent,
    page: { targetId: string; sessionId: string },
    state: RenderState,
    target: URL,
    policy: UrlPolicy | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const requestId = params.requestId;
    const main = sessionId === page.sessionId && params.resourceType === "Document" &&
      params.frameId === page.targetId;
    try {
      const url = new URL(String(params.request?.url));
      if (NETWORK_SCHEME.test(url.protocol)) {
        if (main && policy && !policy.permits(url.href)) {
          throw policyRefusal(url.href, url.href === target.href ? undefined : target.href);
        }
        if (this.#guard) await guardUrl(url, this.#resolveHost, signal);
      } else if (!LOCAL_SCHEME.test(url.protocol)) {
        throw new ToolError(`The page asked for a ${url.protocol} URL, which is not read.`);
      }
    } catch (error) {
      if (main && error instanceof ToolError) state.refusal ??= error;
      await cdp.send("Fetch.failRequest", { requestId, errorReason: "AccessDenied" }, sessionId);
      return;
    }
    await cdp.send("Fetch.continueRequest", { requestId }, sessionId);
  }
}

/** What a render has seen so far. */
interface RenderState {
  /** The page's own document: the last response to its top frame. */
  document?: { url: string; status: number; mimeType: string };
  /** Why the page itself (or a redirect of it) was refused. */
  refusal?: ToolError;
  bytes: number;
  capped: boolean;
  loaderId?: string;
  /** Lifecycle events that came before the navigation said which loader is the page's. */
  lifecycle: { name: string; loaderId: string }[];
}

/** Whether a plain read found a page that only its scripts fill. */
function builtByScripts(page: Page): boolean {
  return page.status < 400 && HTML_TYPE.test(page.mediaType) &&
    (page.scripted === true || page.text.trim() === "");
}

/** A promise and the functions that settle it. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(error: Error): void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A crash after the read is done must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** A counting semaphore whose waits a signal can end. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(count: number) {
    this.#free = count;
  }

  take(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(wake), 1);
        reject(signal.reason);
      };
      this.#waiting.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
