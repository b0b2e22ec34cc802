import type { Tracer } from "../tracer.ts";
import type { UrlPolicy } from "../url_policy.ts";

/**
 * An image found on a page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, type PageImage } from "@outpost/agent-tools/fetch";
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response(`<p>Hi <img src="/hero.png" alt="Hero banner"></p>`, { headers: { "content-type": "text/html" } }));
 * const base = `http://127.0.0.1:${server.addr.port}/`;
 * const page = await new HttpReader({ allowPrivateNetwork: true }).read(base, { images: true });
 * const hero: PageImage = { url: `${base}hero.png`, alt: "Hero banner" };
 * assert.deepEqual(page.images, [hero]);
 * ```
 */
export interface PageImage {
  /** Absolute URL of the image. */
  url: string;
  /** Its alternative text, possibly empty. */
  alt: string;
}

/**
 * A page as a {@linkcode PageReader} returns it: the whole readable body, unclipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Page, webFetch } from "@outpost/agent-tools/fetch";
 * const page: Page = {
 *   url: "https://example.com/",
 *   status: 200,
 *   mediaType: "text/html",
 *   title: "Example Domain",
 *   text: "# Example Domain",
 *   images: [],
 *   sizeCapped: false,
 * };
 * // What the model reads of it:
 * const text = await webFetch({ read: () => Promise.resolve(page) }).execute({ url: page.url });
 * assert.match(text, /^URL: https:\/\/example\.com\/\nHTTP 200 · text\/html\n/);
 * assert.match(text, /Title: Example Domain\n\n# Example Domain/);
 * ```
 */
export interface Page {
  /** The final URL, after redirects. */
  url: string;
  /** The HTTP status of the final response. */
  status: number;
  /** The media type without parameters, e.g. `text/html`. */
  mediaType: string;
  /** The page's title, when it has one. */
  title?: string;
  /** The body as the model should read it: Markdown for HTML, compacted JSON, plain text. */
  text: string;
  /** Images on the page, when they were asked for. */
  images: PageImage[];
  /** Whether the download stopped at the reader's byte cap, so the tail is missing. */
  sizeCapped: boolean;
  /** Characters of page furniture (menus, banners, footers…) left out of `text`, if any. */
  omitted?: number;
  /** The page shows (nearly) no text without JavaScript; `text` gives the data it carries. */
  scripted?: boolean;
  /** `text` is the page as a browser built it, its scripts run. */
  rendered?: boolean;
  /** Body bytes this read took from the network, for the access log (0 from a cache). */
  bytesRead?: number;
  /** Whether this read was answered from the reader's cache. */
  cached?: boolean;
}

/**
 * Options of {@linkcode PageReader.read}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, type ReadOptions } from "@outpost/agent-tools/fetch";
 * const options: ReadOptions = { images: true, signal: AbortSignal.timeout(5_000) };
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response(`<p>Hi <img src="/a.png" alt="A"></p>`, { headers: { "content-type": "text/html" } }));
 * const url = `http://127.0.0.1:${server.addr.port}/`;
 * const page = await new HttpReader({ allowPrivateNetwork: true }).read(url, options);
 * assert.equal(page.images.length, 1);
 * ```
 */
export interface ReadOptions {
  /** Collect the page's images too. */
  images?: boolean;
  /** HTML pages: their main content (`"main"`) or the whole page (`"full"`); default the reader's. */
  content?: "main" | "full";
  /**
   * HTML pages: images in the text as `![alt](url)` (`"markdown"`), as their alt text only
   * (`"alt"`), or left out (`"none"`); default the reader's. `images` lists them either way.
   */
  inlineImages?: "markdown" | "alt" | "none";
  /**
   * HTML pages in main mode: keep every link's address, also those to the page's own site,
   * which main mode writes as their text. Default false.
   */
  links?: boolean;
  /** Aborts the read. */
  signal?: AbortSignal;
  /**
   * Refuse any URL the policy does not permit: the first, and each redirect hop where the
   * reader follows redirects itself.
   */
  policy?: UrlPolicy;
  /** Told how many body bytes have arrived so far, and the most the reader will read. */
  onProgress?: (received: number, maxBytes: number) => void;
  /**
   * A cached copy serves only while younger than this many milliseconds; `0` reads the page
   * afresh (and caches what it read). Default: the reader's own cache time.
   */
  maxAgeMs?: number;
  /**
   * Readers that can run a page's scripts ({@linkcode PageReader.renders}): only when the page
   * needs it (`"auto"`), always, or never. Others ignore it.
   */
  render?: "auto" | "always" | "never";
  /** Starts a client span per outbound request, when the host traces. */
  tracer?: Tracer;
}

/**
 * Where `web_fetch` gets pages from. `HttpReader` fetches them itself; a custom reader can call
 * a hosted reader service instead. Must be safe for concurrent calls and return the whole body:
 * clipping is the tool's job.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Page, type PageReader, webFetch } from "@outpost/agent-tools/fetch";
 * const fixed: PageReader = {
 *   read: (url): Promise<Page> =>
 *     Promise.resolve({ url, status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false }),
 * };
 * const text = await webFetch(fixed).execute({ url: "https://example.com/" });
 * assert.match(text, /\nhi\n/);
 * ```
 */
export interface PageReader {
  /** Reads `url` and returns its readable content. */
  read(url: string, options?: ReadOptions): Promise<Page>;
  /** `true` when the reader can run a page's scripts and honours {@linkcode ReadOptions.render}. */
  readonly renders?: boolean;
}
