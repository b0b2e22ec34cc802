/**
 * HTML to Markdown in one forward pass over the page's tags, with no DOM.
 *
 * @module
 */
import { oneOf, optionProblem } from "../../option_checks.ts";
import type { PageImage } from "../page.ts";
import { Converter } from "./converter.ts";

/** The `content` option's values: the page's main content, or the whole page. */
export const CONTENT = oneOf(["main", "full"]);
/** The `inlineImages` option's values: images as Markdown, as their alt text, or left out. */
export const INLINE_IMAGES = oneOf(["markdown", "alt", "none"]);

/**
 * Options of {@linkcode htmlToMarkdown}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown, type HtmlToMarkdownOptions } from "@outpost/agent-tools/fetch";
 * const options: HtmlToMarkdownOptions = { baseUrl: "https://example.com/docs/", images: true };
 * const { images } = htmlToMarkdown(`<p><img src="a.png" alt="A"></p>`, options);
 * assert.deepEqual(images, [{ url: "https://example.com/docs/a.png", alt: "A" }]);
 * ```
 */
export interface HtmlToMarkdownOptions {
  /** The page's own URL (after redirects): relative links and images resolve against it. */
  baseUrl: string | URL;
  /** Also collect the page's images into {@linkcode MarkdownResult.images}. */
  images?: boolean;
  /**
   * `"main"` (the default): the page's main content, without navigation, banners, footers,
   * sidebars, cookie and share bars, comment forms and blocks that are mostly links; the whole
   * page when no main content stands out. `"full"`: the whole page.
   */
  content?: "main" | "full";
  /**
   * How images are written: `"none"` (the default) not at all, as a reader that cannot see them
   * needs (a caption stays, being text); `"alt"` as their alt text only; `"markdown"` as
   * `![alt](url)`, which any host that renders the Markdown loads by itself, from an address the
   * page chose. {@linkcode MarkdownResult.images} lists them either way.
   */
  inlineImages?: "markdown" | "alt" | "none";
  /**
   * In `"main"` mode, keep every link's address: links to the page's own site, a target linked
   * again and a title's link, which main mode writes as their text. `"full"` keeps them anyway.
   */
  links?: boolean;
}

/**
 * What {@linkcode htmlToMarkdown} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown, type MarkdownResult } from "@outpost/agent-tools/fetch";
 * const result: MarkdownResult = htmlToMarkdown("<h1>Hi</h1>", { baseUrl: "https://example.com/" });
 * assert.equal(result.markdown, "# Hi");
 * ```
 */
export interface MarkdownResult {
  /** The text of the first `<title>`, whitespace collapsed; absent when empty. */
  title?: string;
  /** The page as Markdown. Empty only when the page shows no text at all. */
  markdown: string;
  /** Deduplicated absolute image URLs with their alt text; empty unless `images` was asked for. */
  images: PageImage[];
  /** Characters of Markdown left out as page furniture (0 with `content: "full"`). */
  omitted: number;
  /**
   * The page shows (nearly) no text without JavaScript, so `markdown` also gives what it
   * carries: its description and its data blocks (JSON-LD, `__NEXT_DATA__`), compacted.
   */
  scripted: boolean;
}

/**
 * Converts an HTML page to Markdown in one forward pass over its tags, with a small stack of
 * open elements and no DOM. Keeps headings, paragraphs, lists, quotes, code,
 * tables, links and images (made absolute against `baseUrl` or the page's `<base href>`,
 * tracking parameters dropped); drops scripts, styles, hidden content, tracking pixels and the
 * head. By default returns the page's main content only and says how much it left out (see
 * {@linkcode HtmlToMarkdownOptions.content}). Linear in the input, whatever its nesting depth
 * or attribute sizes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown } from "@outpost/agent-tools/fetch";
 * const html = "<title>Hi</title><h1>Hello</h1><p>See <a href='https://deno.com/'>Deno</a> " +
 *   "and <a href='/docs'>the docs</a>.</p>";
 * const { title, markdown } = htmlToMarkdown(html, { baseUrl: "https://example.com/" });
 * assert.equal(title, "Hi");
 * // Main content: a link to another site keeps its address, one to this site is its text.
 * assert.equal(markdown, "# Hello\n\nSee [Deno](https://deno.com/) and the docs.");
 * const full = htmlToMarkdown(html, { baseUrl: "https://example.com/", content: "full" });
 * assert.match(full.markdown, /\[the docs\]\(https:\/\/example\.com\/docs\)/);
 * ```
 */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): MarkdownResult {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch (cause) {
    throw new TypeError(
      `htmlToMarkdown needs an absolute baseUrl, not ${JSON.stringify(String(options.baseUrl))}.`,
      { cause },
    );
  }
  const content = options.content ?? "main";
  const inlineImages = options.inlineImages ?? "none";
  const problem = optionProblem("htmlToMarkdown content", content, CONTENT) ??
    optionProblem("htmlToMarkdown inlineImages", inlineImages, INLINE_IMAGES);
  if (problem) throw new TypeError(problem);
  const converter = new Converter(String(html), base, options.images === true, content === "main");
  converter.inlineImages = inlineImages;
  converter.keepLinks = options.links === true;
  converter.run();
  const { markdown, omitted, data } = converter.markdown();
  const result: MarkdownResult = { markdown, images: converter.images, omitted, scripted: data };
  if (converter.title) result.title = converter.title;
  return result;
}
