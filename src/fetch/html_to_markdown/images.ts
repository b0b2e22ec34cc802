/**
 * Images: written inline as `![alt](url)`, and collected (deduplicated, largest `srcset`
 * candidate, `<picture>` sources, `og:image`) when the caller asks for them.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import {
  ALT,
  CONTENT,
  DATA_SRC,
  HEIGHT,
  NAME,
  PROPERTY,
  SRC,
  SRCSET,
  WIDTH,
} from "./attributes.ts";
import { formatUrl, isWebUrl, resolve, stripTracking, webUrl } from "./urls.ts";
import { clip, collapse, isSpace, lower } from "./text.ts";
import { flush, seal, write } from "./writer.ts";
import { escapeAlt, escapeText } from "./escape.ts";
import { decode } from "../../html/decode.ts";

/** At most this many images are collected from one page. */
const MAX_IMAGES = 1_000;
/** Alt text written inline is cut here, so that a huge `alt` cannot push its URL out of view. */
const MAX_ALT = 200;

const IMAGE_META = new Set([
  "og:image",
  "og:image:url",
  "og:image:secure_url",
  "twitter:image",
  "twitter:image:src",
]);

/**
 * Hosts of tracking pixels and counters, and hosts with a `pixel` label: matched against the
 * run of host characters after each `//` of a URL, one run at a time. (Matched against the whole
 * URL, the labels before a `pixel.` were read again for each label: quadratic in a long URL.)
 */
const BEACON_HOST =
  /^(?:[\w-]+\.)*(?:doubleclick\.net|google-analytics\.com|googletagmanager\.com|scorecardresearch\.com|quantserve\.com|bat\.bing\.com|pixel\.[\w.-]+)$/i;
/** Each `//` of a URL with the run of host characters after it, when a `/` ends that run. */
const AFTER_SLASHES = /\/(?=\/([\w.-]*)\/)/g;
/** Paths of tracking pixels, counters and spacers. */
const BEACON_PATH =
  /facebook\.com\/tr[/?]|\/b\/ss\/|[/_.-](?:pixel|beacon|spacer|blank|clear|1x1)\.(?:gif|png)(?:$|\?)/i;

/** Whether `url` is a tracking pixel's, counter's or spacer's, by its host or its path. */
function isBeacon(url: string): boolean {
  if (BEACON_PATH.test(url)) return true;
  for (const match of url.matchAll(AFTER_SLASHES)) if (BEACON_HOST.test(match[1])) return true;
  return false;
}

/** An `<img>`: written inline, and collected with the sources of its `<picture>`. */
export function image(c: Converter): void {
  let src = c.get(SRC)?.trim();
  if (!src || src.startsWith("data:")) src = c.get(DATA_SRC)?.trim() ?? src;
  let url = src && src.charCodeAt(0) !== 35 /* # */ ? resolve(src, c.base) : undefined;
  // An image of another scheme than the web's is left out whole, as a tracking pixel is.
  if (url !== undefined && (!isWebUrl(url) || isPixel(c, url))) return;
  // An alt that is the image's file name (`IMG_3886.jpg`, as CMSs fill it in) says nothing.
  let alt = collapse(c.get(ALT) ?? "").trim();
  if (FILE_NAME.test(alt)) alt = "";
  if (url !== undefined) url = stripTracking(url);
  // An image without alt text says nothing a reader of the text can use; one whose caption
  // follows says it there.
  if (url !== undefined && alt !== "") {
    const target = c.siteLink && c.textLinks > 0 ? c.linkUrl! : "";
    // A teaser's picture after its title: the title already says where it leads.
    if (target === "" || target !== c.titleUrl) {
      // A thumbnail that may be cut is a stretch of its own: held-back close markers go before it.
      const w = c.w;
      if (target !== "") flush(w), seal(w);
      const start = w.sealedLength;
      writeImage(c, url, captionFollows(c, alt) ? "" : alt);
      if (target !== "") {
        seal(w);
        c.thumbnails.set(target, { start, end: w.sealedLength, text: 0, links: 0, sink: w });
      }
    }
  }
  const usable = url !== undefined;
  if (!c.collect) return;
  for (const source of c.pictureSources) addImage(c, source, alt);
  c.pictureSources = [];
  const best = largestCandidate(c.get(SRCSET) ?? "", c.base);
  if (best) addImage(c, best, alt);
  else if (usable) addImage(c, url!, alt);
}

/**
 * The title of a teaser leads to `url`: the picture linked there before it is the teaser's
 * thumbnail, and is cut. A photo's description is not the article's text, and the title says
 * where both lead. (A linked image with no title leading where it does, a screenshot linked to
 * its full size or an infobox's portrait, is kept.)
 */
export function cutThumbnail(c: Converter, url: string): void {
  c.titleUrl = url;
  const thumbnail = c.thumbnails.get(url);
  if (thumbnail === undefined) return;
  c.thumbnails.delete(url);
  thumbnail.sink.cuts.push(thumbnail);
}

const FILE_NAME = /^\S+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)$/i;
/** How far past an `<img>` its `<figcaption>` is looked for. */
const CAPTION_WINDOW = 400;
/** Closing tags, wrappers and whitespace between an image and its caption, then the caption. */
const CAPTION =
  /^(?:\s|<\/?(?:a|picture|source|span|div|noscript)\b[^>]*>)*<figcaption\b[^>]*>\s*(?:<(?!\/)[^>]*>\s*)*([^<]*)/i;

/** Whether the caption right after the image being read starts with its alt text. */
function captionFollows(c: Converter, alt: string): boolean {
  const from = c.tagEnd + 1;
  const window = c.html.slice(from, from + CAPTION_WINDOW + alt.length);
  if (!window.includes("<figcaption")) return false;
  const match = CAPTION.exec(window);
  return match !== null && collapse(decode(match[1], false)).trim().startsWith(alt);
}

/** An image in the Markdown, as the caller asked: Markdown that loads it, its alt text, or not. */
function writeImage(c: Converter, url: string, alt: string): void {
  if (c.inlineImages === "markdown") {
    write(c.w, `![${escapeAlt(clip(alt, MAX_ALT))}](${formatUrl(url)})`);
  } else if (c.inlineImages === "alt" && alt !== "") {
    // A word of its own, as a browser shows the alt text of an image it does not load.
    c.w.space = true;
    write(c.w, escapeText(clip(alt, MAX_ALT), c.w.links > 0), true);
    c.w.space = true;
  }
}

/** A tracking pixel, counter or spacer: 0 or 1 pixel wide or high, or at a beacon's address. */
function isPixel(c: Converter, url: string): boolean {
  const width = c.get(WIDTH);
  const height = c.get(HEIGHT);
  if (width !== undefined && parseFloat(width) <= 1) return true;
  if (height !== undefined && parseFloat(height) <= 1) return true;
  return isBeacon(url);
}

/** A `<source>` inside a `<picture>`: its largest candidate is collected with the image. */
export function source(c: Converter): void {
  if (c.pictureDepth > 0 && c.collect) {
    const best = largestCandidate(c.get(SRCSET) ?? "", c.base);
    if (best) c.pictureSources.push(best);
  }
}

/** The end of a `<picture>`: sources no `<img>` took are collected on their own. */
export function closePicture(c: Converter): void {
  if (--c.pictureDepth === 0) {
    for (const url of c.pictureSources) addImage(c, url, "");
    c.pictureSources = [];
  }
}

/** A `<meta>`: the page's image (`og:image`, `twitter:image`) or its description. */
export function meta(c: Converter): void {
  const property = lower((c.get(PROPERTY) ?? c.get(NAME) ?? "").trim());
  const content = c.get(CONTENT);
  if (!content) return;
  if (c.collect && IMAGE_META.has(property)) addImage(c, content, "");
  if (c.description === "" && DESCRIPTION.has(property)) c.description = collapse(content).trim();
}

const DESCRIPTION = new Set(["description", "og:description", "twitter:description"]);

function addImage(c: Converter, href: string, alt: string): void {
  if (c.images.length >= MAX_IMAGES) return;
  const trimmed = href.trim();
  if (trimmed === "" || trimmed.charCodeAt(0) === 35) return;
  const url = webUrl(trimmed, c.base);
  if (!url || isBeacon(url)) return;
  const clean = stripTracking(url);
  if (c.seen.has(clean)) return;
  c.seen.add(clean);
  c.images.push({ url: clean, alt });
}

/** The largest candidate of a `srcset`, by width descriptor, else by density. */
function largestCandidate(srcset: string, base: URL): string | undefined {
  let best: string | undefined;
  let bestWidth = -1;
  let bestDensity = -1;
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (isSpace(srcset.charCodeAt(i)) || srcset.charCodeAt(i) === 44)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(srcset.charCodeAt(i))) i++;
    let url = srcset.slice(start, i);
    let descriptor = "";
    if (url.endsWith(",")) {
      let end = url.length;
      while (end > 0 && url.charCodeAt(end - 1) === 44) end--;
      url = url.slice(0, end);
    } else {
      const from = i;
      while (i < n && srcset.charCodeAt(i) !== 44) i++;
      descriptor = srcset.slice(from, i).trim();
    }
    // Placeholders (`data:` pixels, fragments) are no candidates: the real image is elsewhere;
    // nor is any other address off the web.
    if (url === "" || url.charCodeAt(0) === 35 || webUrl(url, base) === undefined) continue;
    const value = parseFloat(descriptor);
    const unit = descriptor.charCodeAt(descriptor.length - 1);
    const width = unit === 119 /* w */ && value > 0 ? value : -1;
    const density = unit === 120 /* x */ && value > 0 ? value : width < 0 ? 1 : -1;
    if (width > bestWidth || (bestWidth < 0 && width < 0 && density > bestDensity)) {
      best = url;
      bestWidth = Math.max(bestWidth, width);
      bestDensity = Math.max(bestDensity, density);
    }
  }
  return best;
}
