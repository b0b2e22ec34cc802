import { decode } from "../html/decode.ts";
import { tokenize } from "../html/tokenizer.ts";
import { isHttpUrl, oneLine } from "./search_support.ts";
import type { SearchResult } from "./web_search.ts";

// DuckDuckGo's HTML result page, read with the package's tokenizer: its results (ads dropped,
// redirect links unwrapped), the next-page form, and the markers of a throttled or unknown page.

/** The next-page form: where it posts and the hidden fields (`q`, `s`, `vqd`, …) it carries. */
export interface NextPage {
  url: URL;
  fields: [string, string][];
}

/** What one result page holds. */
export interface PageScan {
  hits: SearchResult[];
  next?: NextPage;
  /** An anomaly page or challenge form: DuckDuckGo is throttling us. */
  challenge: boolean;
  /** Whether the page had the result list's layout (results, or the no-results notice). */
  understood: boolean;
}

interface RawHit {
  href: string;
  title: string;
  displayUrl: string;
  snippet: string;
  ad: boolean;
}

interface FormScan {
  depth: number;
  action: string;
  fields: [string, string][];
  isNext: boolean;
}

/** Elements that have no closing tag and hold nothing. */
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/** Reads a result page, keeping only results, the next-page form and markers. */
export interface PageScanner {
  /** Takes the next piece of the page's text; false once the page is too long to take more. */
  write(text: string): boolean;
  /** Takes the last piece, reads the page and tells what it held. */
  end(text: string): PageScan;
}

/** DuckDuckGo's result pages are 20–80 KB: what comes past this is not its result list. */
const MAX_PAGE_CHARS = 2_000_000;

export function pageScanner(base: URL): PageScanner {
  const pieces: string[] = [];
  let size = 0;
  return {
    write(text) {
      if (size < MAX_PAGE_CHARS) pieces.push(text);
      size += text.length;
      return size < MAX_PAGE_CHARS;
    },
    end(text) {
      pieces.push(text);
      return scanPage(pieces.join(""), base);
    },
  };
}

/**
 * What the result page `html` holds. Elements are tracked on a stack of open names: a closing
 * tag closes what was opened inside it, and the end of the page closes everything.
 */
function scanPage(html: string, base: URL): PageScan {
  const scan: PageScan = { hits: [], challenge: false, understood: false };
  let depth = 0;
  let hit: { depth: number; raw: RawHit } | undefined;
  let capture: { depth: number; field: "title" | "displayUrl" | "snippet" } | undefined;
  let form: FormScan | undefined;
  const open: string[] = [];
  let name = "";
  let attrs: Record<string, string> = {};

  const onopen = () => {
    depth++;
    const classes = (attrs.class ?? "").split(/\s+/);
    if (classes.some((c) => c.startsWith("anomaly-modal")) || attrs.id === "challenge-form") {
      scan.challenge = true;
    }
    if (classes.includes("no-results")) scan.understood = true;
    if (name === "form") {
      if ((attrs.action ?? "").includes("anomaly")) scan.challenge = true;
      form = { depth, action: attrs.action ?? "", fields: [], isNext: false };
    } else if (name === "input" && form) {
      const type = (attrs.type ?? "text").toLowerCase();
      if (type === "hidden" && attrs.name) form.fields.push([attrs.name, attrs.value ?? ""]);
      if (type === "submit" && /^\s*next/i.test(attrs.value ?? "")) form.isNext = true;
    }
    if (!hit && classes.includes("result")) {
      hit = {
        depth,
        raw: {
          href: "",
          title: "",
          displayUrl: "",
          snippet: "",
          ad: classes.includes("result--ad"),
        },
      };
    } else if (hit && !capture) {
      if (name === "a" && classes.includes("result__a")) {
        hit.raw.href = attrs.href ?? "";
        capture = { depth, field: "title" };
      } else if (classes.includes("result__url")) {
        capture = { depth, field: "displayUrl" };
      } else if (classes.includes("result__snippet")) {
        capture = { depth, field: "snippet" };
      }
    }
  };
  const onclose = () => {
    if (capture?.depth === depth) capture = undefined;
    if (form?.depth === depth) {
      if (form.isNext && !scan.next && URL.canParse(form.action || base.href, base)) {
        scan.next = { url: new URL(form.action || base.href, base), fields: form.fields };
      }
      form = undefined;
    }
    if (hit?.depth === depth) {
      if (hit.raw.href) scan.understood = true;
      const result = toResult(hit.raw, base);
      if (result) scan.hits.push(result);
      hit = undefined;
    }
    depth--;
  };

  tokenize(html, {
    ontext(start, end) {
      if (hit && capture) hit.raw[capture.field] += decode(html.slice(start, end), false);
    },
    onopentagname(start, end) {
      name = html.slice(start, end).toLowerCase();
      attrs = Object.create(null);
    },
    onattribute(nameStart, nameEnd, valueStart, valueEnd) {
      const key = html.slice(nameStart, nameEnd).toLowerCase();
      attrs[key] ??= decode(html.slice(valueStart, valueEnd), true);
    },
    onopentagend() {
      onopen();
      if (VOID_ELEMENTS.has(name)) onclose();
      else open.push(name);
    },
    onclosetag(start, end) {
      const at = open.lastIndexOf(html.slice(start, end).toLowerCase());
      if (at < 0) return;
      while (open.length > at) {
        open.pop();
        onclose();
      }
    },
    onend() {
      while (open.pop() !== undefined) onclose();
    },
  });
  return scan;
}

function toResult(raw: RawHit, base: URL): SearchResult | undefined {
  if (raw.ad) return undefined;
  const link = resolveLink(raw.href, base);
  if (link === "ad") return undefined;
  const url = link ?? fromDisplayUrl(raw.displayUrl);
  if (!url) return undefined;
  return { title: oneLine(raw.title), url, snippet: oneLine(raw.snippet) };
}

/**
 * The page a result links to: redirect links (`//duckduckgo.com/l/?uddg=…`) are unwrapped,
 * direct links kept; ad links (`/y.js`) are flagged and other DuckDuckGo links refused.
 */
function resolveLink(href: string, base: URL): string | "ad" | undefined {
  if (!href || !URL.canParse(href, base)) return undefined;
  const link = new URL(href, base);
  const host = link.hostname;
  const ours = host === "duckduckgo.com" || host.endsWith(".duckduckgo.com") ||
    link.host === base.host;
  if (!ours) return isHttpUrl(link.href) ? link.href : undefined;
  if (link.pathname === "/y.js") return "ad";
  const target = link.pathname === "/l/" ? link.searchParams.get("uddg") : null;
  // The target is checked like any link, so a wrapped ad is still an ad.
  return target && isHttpUrl(target) ? resolveLink(target, base) : undefined;
}

/**
 * The shown address (`example.com/page`) as a URL, for a result whose link cannot be used. A
 * shortened address (`example.com/long/pa…`) is no address at all, so it gives none.
 */
function fromDisplayUrl(text: string): string | undefined {
  const shown = oneLine(text);
  if (!shown || /\s|…|\.\.\./.test(shown)) return undefined;
  const url = /^https?:\/\//i.test(shown) ? shown : `https://${shown}`;
  return isHttpUrl(url) ? new URL(url).href : undefined;
}
