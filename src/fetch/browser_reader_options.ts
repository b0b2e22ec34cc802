import { type Clock, systemClock } from "../clock.ts";
import { SetupError } from "../errors.ts";
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
import type { ResolveHost } from "./address_guard.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import type { PageReader } from "./page.ts";
import type { UrlCache } from "./url_cache.ts";

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
  /** HTML pages: images left out of the text (`"none"`, the default), as alt text, or Markdown. */
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

/** When a read runs the browser. */
export const RENDER = oneOf(["auto", "always", "never"]);

/** {@linkcode BrowserReaderOptions} checked, with their defaults filled in. */
export interface BrowserSettings {
  browser: string | ((signal: AbortSignal) => Promise<WebSocket>);
  http: PageReader | undefined;
  render: "auto" | "always" | "never";
  timeoutMs: number;
  settleMs: number;
  maxBytes: number;
  maxPages: number;
  /** Whether the browser's requests go through the address guard. */
  guard: boolean;
  resolveHost: ResolveHost | undefined;
  credentials: { username: string; password: string } | undefined;
  content: "main" | "full";
  inlineImages: "markdown" | "alt" | "none";
  clock: Clock;
  cache: UrlCache | undefined;
  cacheTtlMs: number;
}

/** Checks a browser reader's options and fills in the defaults; throws `SetupError` for a bad one. */
export function browserSettings(options: BrowserReaderOptions): BrowserSettings {
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
    inlineImages = "none",
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
  return {
    browser,
    http,
    render,
    timeoutMs,
    settleMs,
    maxBytes,
    maxPages,
    guard: !allowPrivateNetwork,
    resolveHost,
    credentials: proxyCredentials,
    content,
    inlineImages,
    clock,
    cache,
    cacheTtlMs,
  };
}
