/**
 * Reading web pages: the {@linkcode webFetch} tool, the {@linkcode HttpReader} it reads with
 * (address guard, redirects, robots.txt, caching), the {@linkcode BrowserReader} for pages built
 * by JavaScript, the HTML-to-Markdown converter, the URL
 * caches and the body decoders a reader takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, MemoryUrlCache, webFetch } from "@outpost/agent-tools/fetch";
 * const fetchTool = webFetch(new HttpReader({ cache: new MemoryUrlCache() }), { maxChars: 8_000 });
 * assert.equal(fetchTool.name, "web_fetch");
 * ```
 *
 * @module
 */
export { webFetch, type WebFetchOptions } from "./web_fetch.ts";
export { HttpReader, type HttpReaderOptions } from "./http_reader.ts";
export { BrowserReader, type BrowserReaderOptions } from "./browser_reader.ts";
export type { Page, PageImage, PageReader, ReadOptions } from "./page.ts";
export {
  type CachedPage,
  MemoryUrlCache,
  type MemoryUrlCacheOptions,
  type UrlCache,
} from "./url_cache.ts";
export type { BodyDecoder, DecodeContext, DecodedBody } from "./body_decoder.ts";
export { isPrivateHost, type ResolveHost } from "./address_guard.ts";
export {
  htmlToMarkdown,
  type HtmlToMarkdownOptions,
  type MarkdownResult,
} from "./html_to_markdown/mod.ts";
