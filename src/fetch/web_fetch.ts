// zod/mini: the Worker and a program that uses web_fetch bundle no classic zod.
import * as z from "zod/mini";
// Named: `z.core.describe` would bring all of zod's core, every locale included.
import { describe } from "zod/v4/core";
import { clipLine, fence, FENCE_NOTE, showUrl } from "../fence.ts";
import { ToolError } from "../errors.ts";
import { presetTool, type Tool } from "../tool.ts";
import { FAMILY_SCHEMAS } from "../family_schemas.ts";
import { policyRefusal, type UrlPolicy } from "../url_policy.ts";
import { showHost } from "../shown_host.ts";
import { HttpReader } from "./http_reader.ts";
import { parseHttpUrl } from "./read_errors.ts";
import { CONTENT, INLINE_IMAGES } from "./html_to_markdown/mod.ts";
import { checkOption, implementing, integerAtLeast } from "../option_checks.ts";
import type { Page, PageImage, PageReader } from "./page.ts";

/**
 * Options of {@linkcode webFetch}. Every operator setting lives here and on the reader; the
 * model only chooses the URL, whether it wants images, and where to continue.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webFetch, type WebFetchOptions } from "@outpost/agent-tools/fetch";
 * const options: WebFetchOptions = { maxChars: 10_000, name: "read_page" };
 * assert.equal(webFetch(undefined, options).name, "read_page");
 * ```
 */
export interface WebFetchOptions {
  /** The most characters of page text one call returns (default 20 000). */
  maxChars?: number;
  /** The model-facing tool name (default `web_fetch`). */
  name?: string;
  /** Refuse URLs, first or after a redirect, that the policy does not permit. */
  policy?: UrlPolicy;
  /**
   * HTML pages: their main content, without menus and other furniture (`"main"`), or the whole
   * page (`"full"`). Default: the reader's own default, which for `HttpReader` is `"main"`.
   */
  content?: "main" | "full";
  /**
   * HTML pages: images in the answer as `![alt](url)` (`"markdown"`), which a host that renders
   * the answer as Markdown loads by itself, from an address the page chose; as their alt text
   * only (`"alt"`); or left out (`"none"`). The image list the model may ask for has them either
   * way, as plain text. Default: the reader's own default, which for `HttpReader` is `"none"`.
   * A custom reader must honour it.
   */
  inlineImages?: "markdown" | "alt" | "none";
}

/** How far back from the limit a page part may end early, to end at a line break. */
const LINE_BREAK_WINDOW = 200;
/** Error pages are shown only this far: enough to read the reason. */
const ERROR_BODY_CHARS = 500;
/** The most images listed in one answer. */
const IMAGES_SHOWN = 50;
/** Longest title and alt text shown, and longest image URL listed, in characters. */
const MAX_TITLE = 300;
const MAX_ALT = 200;
const MAX_IMAGE_URL = 2_048;
/**
 * The media types the status line names: those the reader handles, and common ones. The line
 * is outside the fence and any other type is the server's word (`tool.note/user_pre-approved…`
 * is a well-formed media type), so it reads "other type" instead.
 */
const KNOWN_TYPES = new Set([
  "text/html",
  "application/xhtml+xml",
  "text/plain",
  "text/markdown",
  "text/csv",
  "text/css",
  "text/xml",
  "application/xml",
  "application/json",
  "text/json",
  "application/ld+json",
  "application/rss+xml",
  "application/atom+xml",
  "text/javascript",
  "application/javascript",
  "application/pdf",
  "application/octet-stream",
  "application/zip",
  "application/gzip",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/svg+xml",
  "audio/mpeg",
  "video/mp4",
]);

/** `web_fetch`'s input, with and without `render`: made once each, and so its JSON Schema. */
const fetchInputs = new Map<boolean, ReturnType<typeof makeFetchInput>>();

function fetchInput(renders: boolean) {
  let input = fetchInputs.get(renders);
  if (!input) fetchInputs.set(renders, input = makeFetchInput(renders));
  return input;
}

function makeFetchInput(renders: boolean) {
  return z.object({
    url: z.string().check(describe("Absolute http:// or https:// URL to read.")),
    images: z.optional(z.boolean()).check(
      describe("List the page's images (URL and alt text) after the first part. Default false."),
    ),
    links: z.optional(z.boolean()).check(
      describe(
        "Keep the address of links within the site too (else shown as text), to follow its cross-references, as in documentation. Default false.",
      ),
    ),
    offset: z.optional(z.int().check(z.minimum(0))).check(
      describe("Where to continue reading, from a truncation notice. Default 0."),
    ),
    max_age: z.optional(z.int().check(z.minimum(0))).check(
      describe(
        "Accept a cached copy only if it is younger than this many seconds; 0 reads the page afresh. Default: a copy of up to a few minutes. Leave it out when continuing at an offset, so the parts come from one version.",
      ),
    ),
    // Offered only where a browser can answer it.
    ...(renders
      ? {
        render: z.optional(z.enum(["auto", "always", "never"])).check(
          describe(
            'Run the page\'s JavaScript in a browser: "auto" (default) when the page shows little text without it, "always", or "never".',
          ),
        ),
      }
      : {}),
  });
}

/**
 * Builds the `web_fetch` tool: the model passes a URL and gets the page as Markdown (or JSON,
 * or text) inside the fence, with the final URL and HTTP status outside it, in parts of at most
 * `maxChars` characters. Without a reader each call builds its own {@linkcode HttpReader}, so
 * no two tools share a cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PageReader, webFetch } from "@outpost/agent-tools/fetch";
 * // Reads pages over HTTP; the model calls it as `fetchTool.execute({ url })`.
 * const fetchTool = webFetch(undefined, { maxChars: 10_000 });
 *
 * // Any PageReader will do, such as one that answers from a fixture:
 * const fixture: PageReader = {
 *   read: (url) =>
 *     Promise.resolve({ url, status: 200, mediaType: "text/plain", text: "hi", images: [], sizeCapped: false }),
 * };
 * const text = await webFetch(fixture).execute({ url: "https://example.com/" });
 * assert.match(text, /^URL: https:\/\/example\.com\/\nHTTP 200 · text\/plain\n/);
 * ```
 */
export function webFetch(reader?: PageReader, options: WebFetchOptions = {}): Tool {
  const { maxChars = 20_000, name = "web_fetch", policy, content, inlineImages } = options;
  if (content !== undefined) checkOption("content", content, CONTENT);
  if (inlineImages !== undefined) checkOption("inlineImages", inlineImages, INLINE_IMAGES);
  checkOption("maxChars", maxChars, integerAtLeast(1_000));
  if (reader !== undefined) {
    checkOption("reader", reader, implementing("PageReader", ["read"], "read(url, options)"));
  }
  if (policy !== undefined) {
    checkOption("policy", policy, implementing("UrlPolicy", ["permits"], "permits(url)"));
  }
  const source: PageReader = reader ?? new HttpReader();
  const renders = source.renders === true;
  const scripts = renders
    ? "Pages built by JavaScript are run in a browser when they show little text without it (render)."
    : "No JavaScript runs, so pages built in the browser may come back empty.";
  return presetTool({
    name,
    annotations: { readOnlyHint: true, openWorldHint: true },
    description:
      `Fetches a web page or file over http(s) and returns its content: HTML as Markdown with absolute links (a link within the same site may show as its text only, unless links is true), JSON compacted, other text as is. ${scripts} Long pages come in parts of up to ${maxChars} characters; to read on, call again with the same URL and the offset the truncation notice gives (offsets count UTF-16 code units). The text may leave images out: set images to true to list them (URL and alt text) with the first part. ${FENCE_NOTE}`,
    input: fetchInput(renders),
    async execute({ url, images = false, links, offset = 0, max_age, render: run }, ctx) {
      const target = parseHttpUrl(url).href;
      if (policy && !policy.permits(target)) throw policyRefusal(target);
      const report = ctx.reportProgress;
      report?.({ message: `Fetching ${new URL(target).host}` });
      let page: Page | undefined;
      try {
        page = await source.read(target, {
          images,
          signal: ctx.signal,
          policy,
          ...(ctx.tracer ? { tracer: ctx.tracer } : {}),
          ...(content ? { content } : {}),
          ...(inlineImages ? { inlineImages } : {}),
          ...(links ? { links } : {}),
          ...(max_age !== undefined ? { maxAgeMs: max_age * 1000 } : {}),
          ...(run !== undefined ? { render: run as "auto" | "always" | "never" } : {}),
          ...(report && {
            onProgress: (received: number, maxBytes: number) =>
              report({
                message: `Downloaded ${size(received)} of at most ${size(maxBytes)}`,
                progress: received,
                total: maxBytes,
              }),
          }),
        });
      } finally {
        // Also when the read failed: the log still names the host.
        ctx.noteRead?.({
          url: target,
          bytes: page?.bytesRead ?? 0,
          cacheHit: page?.cached === true,
        });
      }
      const final = finalUrl(page.url, target);
      if (policy && final !== target && !policy.permits(final)) throw policyRefusal(final, target);
      return render({ ...page, url: final }, target, offset, maxChars, images, renders);
    },
  }, renders ? FAMILY_SCHEMAS.web_fetch_render : FAMILY_SCHEMAS.web_fetch);
}

/** "340 KB", "1 MB", "512 bytes" (decimal units, as download sizes are usually given). */
function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${Math.round(bytes / 100_000) / 10} MB`;
}

/**
 * The reader's final URL, normalised: it is printed outside the fence, so a reader that returns
 * anything but an http(s) URL (say, one with a line break) is refused rather than trusted.
 */
function finalUrl(url: unknown, target: string): string {
  if (url === target) return target;
  let parsed: URL | undefined;
  try {
    parsed = new URL(String(url));
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new ToolError(`The page reader returned an invalid final URL for ${target}.`, {
      hint: "This is a fault of the reader, not of the URL; try another source.",
    });
  }
  return parsed.href;
}

/**
 * The answer: our header, the page's words in the fence, our notice after it. Outside the fence
 * goes only what we vouch for: the URL the model asked for, the host a redirect led to, the
 * status code and a known media type. A redirect's full URL is the site's choice (its path can
 * be any words), so it opens the fenced text instead, where the model can still cite it.
 */
function render(
  page: Page,
  target: string,
  offset: number,
  maxChars: number,
  images: boolean,
  renders: boolean,
): string {
  const code = Number.isInteger(page.status) ? page.status : "(unknown status)";
  const declared = typeof page.mediaType === "string" ? page.mediaType.toLowerCase() : "";
  const type = KNOWN_TYPES.has(declared) ? declared : declared ? "other type" : "unknown type";
  let status = `HTTP ${code} · ${type}`;
  if (page.sizeCapped) {
    status += " · download stopped at the size limit: the end of the page is missing," +
      " and no offset will reach it";
  }
  if (page.rendered === true) status += " · rendered in a browser";
  const redirected = page.url !== target;
  const header = `URL: ${showUrl(target)}\n` +
    (redirected
      ? `Redirected to ${showHost(page.url)}${
        offset === 0 ? " (the final URL opens the fenced text)" : ""
      }\n`
      : "") +
    status;
  const error = page.status >= 400;
  const text = error ? clipError(page.text) : page.text;
  // The final URL, the title and the image list come with the first part and count against
  // maxChars.
  const title = offset === 0 && page.title ? `Title: ${clipLine(page.title, MAX_TITLE)}` : "";
  const list = offset === 0 && images && page.images.length > 0
    ? listImages(page.images, Math.floor(maxChars / 2))
    : "";
  const final = redirected && offset === 0 ? `Final URL: ${page.url}` : "";
  const budget = Math.max(1, maxChars - final.length - title.length - list.length);
  const part = error
    ? { text: offset === 0 ? text : "", next: undefined }
    : clip(text, offset, budget);
  const sections: string[] = [];
  if (final !== "") sections.push(final);
  if (title !== "") sections.push(title);
  if (part.text !== "") sections.push(part.text);
  if (list !== "") sections.push(list);
  let answer = `${header}\n\n${fence(sections.join("\n\n"))}`;
  // Where a browser could run the page, and did not, the model is told how to ask for it.
  const unrun = renders
    ? 'which was not run. Call again with render: "always" to run it in a browser.'
    : "which web_fetch does not run.";
  if (offset === 0 && text.trim() === "") {
    answer += type === "text/html" && !error
      ? page.rendered === true
        ? "\n\n(The page has no readable text, even with its JavaScript run.)"
        : `\n\n(The page has no readable text. It may build its content with JavaScript, ${unrun})`
      : "\n\n(The response body is empty.)";
  } else if (offset === 0 && page.scripted === true && !error && page.rendered !== true) {
    answer +=
      `\n\n(The page has almost no readable text: it builds its content with JavaScript, ${unrun} Shown is what it carries without it: its description and data blocks.)`;
  }
  if (offset === 0 && !error && Number.isSafeInteger(page.omitted) && page.omitted! > 0) {
    answer +=
      `\n\n(Main content only: ${page.omitted} characters of menus, banners, footers and similar page furniture were left out.)`;
  }
  if (part.next !== undefined) answer += `\n\n[... truncated. Continue with offset=${part.next}.]`;
  return answer;
}

/**
 * One part of `text`: from `offset` up to `maxChars` code units, ending at a line break in the
 * last 200 when there is one, and never between the halves of a surrogate pair.
 */
function clip(text: string, offset: number, maxChars: number): { text: string; next?: number } {
  let start = Math.min(offset, text.length);
  if (isLowSurrogate(text, start)) start--;
  const limit = start + maxChars;
  if (limit >= text.length) return { text: text.slice(start) };
  let end = text.lastIndexOf("\n", limit - 1) + 1;
  if (end <= limit - LINE_BREAK_WINDOW || end <= start) end = limit;
  if (isLowSurrogate(text, end)) end--;
  return { text: text.slice(start, end), next: end };
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return index > 0 && code >= 0xdc00 && code <= 0xdfff &&
    text.charCodeAt(index - 1) >= 0xd800 && text.charCodeAt(index - 1) <= 0xdbff;
}

function clipError(text: string): string {
  if (text.length <= ERROR_BODY_CHARS) return text;
  const end = isLowSurrogate(text, ERROR_BODY_CHARS) ? ERROR_BODY_CHARS - 1 : ERROR_BODY_CHARS;
  return `${text.slice(0, end)}…`;
}

/** The image list, within `budget` characters: at most 50 lines, overlong URLs left out. */
function listImages(images: PageImage[], budget: number): string {
  const usable = images.filter((image) =>
    typeof image.url === "string" && image.url.length <= MAX_IMAGE_URL
  );
  const lines: string[] = [];
  let size = 0;
  for (const image of usable) {
    if (lines.length === IMAGES_SHOWN) break;
    const alt = image.alt ? ` — ${clipLine(collapse(image.alt), MAX_ALT)}` : "";
    const line = `${lines.length + 1}. ${image.url}${alt}`;
    if (size + line.length + 1 > budget) break;
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length === 0) return "";
  const count = usable.length > lines.length
    ? `${lines.length} of ${usable.length}`
    : `${usable.length}`;
  return `Images (${count}):\n${lines.join("\n")}`;
}

/** Alt text on one line: it is a list item. */
function collapse(text: string): string {
  return String(text).replace(/\s+/g, " ").trim();
}
