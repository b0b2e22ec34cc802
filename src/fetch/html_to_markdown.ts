import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";
import type { PageImage } from "./page.ts";

/**
 * Options of {@linkcode htmlToMarkdown}.
 *
 * @example
 * ```ts
 * import type { HtmlToMarkdownOptions } from "@outpost/agent-tools";
 * const options: HtmlToMarkdownOptions = { baseUrl: "https://example.com/docs/", images: true };
 * ```
 */
export interface HtmlToMarkdownOptions {
  /** The page's own URL (after redirects): relative links and images resolve against it. */
  baseUrl: string | URL;
  /** Also collect the page's images into {@linkcode MarkdownResult.images}. */
  images?: boolean;
}

/**
 * What {@linkcode htmlToMarkdown} returns.
 *
 * @example
 * ```ts
 * import { htmlToMarkdown, type MarkdownResult } from "@outpost/agent-tools";
 * const result: MarkdownResult = htmlToMarkdown("<h1>Hi</h1>", { baseUrl: "https://example.com/" });
 * ```
 */
export interface MarkdownResult {
  /** The text of the first `<title>`, whitespace collapsed; absent when empty. */
  title?: string;
  /** The page as Markdown. Empty only when the page shows no text at all. */
  markdown: string;
  /** Deduplicated absolute image URLs with their alt text; empty unless `images` was asked for. */
  images: PageImage[];
}

/** At most this many images are collected from one page. */
const MAX_IMAGES = 1_000;
/** Lists and quotes nested deeper than this indent no further, so output stays linear. */
const MAX_INDENT = 12;
/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;
/** Tables nested deeper than this render as plain blocks, so nesting costs no copying. */
const MAX_TABLE_DEPTH = 2;
/** Inline markers (emphasis, links) nested deeper than this are not written. */
const MAX_INLINE = 32;
/** Text kept from `<noscript>` for pages that show nothing else. */
const MAX_NOSCRIPT = 4_000;

// Element kinds. Elements of kind NONE are not tracked at all: they neither render nor close.
const NONE = 0;
const BLOCK = 1; // div-like: a line break around it
const PARA = 2; // p-like: a blank line around it
const HEADING = 3;
const LIST = 4;
const ITEM = 5;
const DL = 6;
const DT = 7;
const DD = 8;
const QUOTE = 9;
const PRE = 10;
const CODE = 11;
const LINK = 12;
const EMPHASIS = 13;
const STRONG = 14;
const STRIKE = 15;
const TABLE = 16;
const ROW = 17;
const CELL = 18;
const PICTURE = 19;
const SKIP = 20; // dropped with everything inside
const DIALOG = 21; // dropped unless open
const FLAT_TABLE = 22; // a table nested too deep to render as one: a block
const OPTION = 23; // renders nothing, but an <option> closes the one before it
const KIND_COUNT = 24;
// Void elements and head elements that act once and are never pushed.
const IMG = 30;
const BR = 31;
const HR = 32;
const SOURCE = 33;
const META = 34;
const BASE = 35;
const TITLE = 36;
const VOID = 37;

const KINDS = new Map<string, number>();
function kinds(kind: number, names: string): void {
  for (const name of names.split(" ")) KINDS.set(name, kind);
}
kinds(
  BLOCK,
  "div section article main header footer nav aside address center details summary figcaption form fieldset legend caption hgroup body html search menuitem",
);
kinds(PARA, "p figure");
kinds(HEADING, "h1 h2 h3 h4 h5 h6");
kinds(LIST, "ul ol menu dir");
kinds(ITEM, "li");
kinds(DL, "dl");
kinds(DT, "dt");
kinds(DD, "dd");
kinds(QUOTE, "blockquote");
kinds(PRE, "pre listing xmp");
kinds(CODE, "code kbd samp tt");
kinds(LINK, "a");
kinds(EMPHASIS, "em i var dfn");
kinds(STRONG, "strong b");
kinds(STRIKE, "s strike del");
kinds(TABLE, "table");
kinds(ROW, "tr");
kinds(CELL, "td th");
kinds(PICTURE, "picture");
kinds(
  SKIP,
  "script style noscript template svg canvas iframe object select datalist noembed noframes",
);
kinds(DIALOG, "dialog");
kinds(IMG, "img");
kinds(BR, "br");
kinds(HR, "hr");
kinds(SOURCE, "source");
kinds(META, "meta");
kinds(BASE, "base");
kinds(TITLE, "title");
kinds(VOID, "area col embed input link param track wbr keygen frame basefont bgsound");
kinds(OPTION, "option");

// Blocks whose opening closes an open <p>, as in HTML (<hr> does too, as a void tag).
const CLOSES_P = new Set([BLOCK, PARA, HEADING, LIST, DL, QUOTE, PRE, TABLE]);

// Attribute ids, as bit positions in `attrMask`.
const HREF = 1;
const SRC = 2;
const ALT = 3;
const SRCSET = 4;
const CLASS = 5;
const START = 6;
const VALUE = 7;
const CONTENT = 8;
const PROPERTY = 9;
const HIDDEN = 10;
const ARIA_HIDDEN = 11;
const STYLE = 12;
const COLSPAN = 13;
const DATA_SRC = 14;
const OPEN = 15;
const REVERSED = 16;
const NAME = 17;
const ATTRS = new Map<string, number>([
  ["href", HREF],
  ["src", SRC],
  ["alt", ALT],
  ["srcset", SRCSET],
  ["class", CLASS],
  ["start", START],
  ["value", VALUE],
  ["content", CONTENT],
  ["property", PROPERTY],
  ["name", NAME],
  ["hidden", HIDDEN],
  ["aria-hidden", ARIA_HIDDEN],
  ["style", STYLE],
  ["colspan", COLSPAN],
  ["data-src", DATA_SRC],
  ["open", OPEN],
  ["reversed", REVERSED],
]);

const IMAGE_META = new Set([
  "og:image",
  "og:image:url",
  "og:image:secure_url",
  "twitter:image",
  "twitter:image:src",
]);

// Runs of HTML whitespace other than a lone space (which needs no replacing, and is most of them).
const WHITESPACE = /[\t\n\f\r\u00a0][\t\n\f\r \u00a0]*| [\t\n\f\r \u00a0]+/g;
const INVISIBLE_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)/i;
const LANGUAGE = /(?:^|\s)(?:language|lang|highlight-source)-([\w#+.-]+)/;
const BRACKETS = /[[\]\\]/g;
const BACKTICKS = /`+/g;
const BLOCKED_SCHEME = /^(?:javascript|vbscript|data):/;

/** One open element that acts when it closes. */
interface Open {
  name: string;
  kind: number;
  /** For links and emphasis: whether a marker pair was opened, so closing must close it. */
  flag: boolean;
  /** NOT_MUTED, or the root of a dropped subtree, or an element inside one (renders nothing). */
  mute: number;
  /** Stack index of the next open element of the same name, and of the same kind, or -1. */
  prevName: number;
  prevKind: number;
}

const NOT_MUTED = 0;
const MUTE_ROOT = 1;
const MUTED = 2;

/** A pending or written inline marker pair: emphasis or a link. */
interface Inline {
  open: string;
  close: string;
  written: boolean;
  link: boolean;
}

/** One level of line prefix: a quote's `> ` or a list item's indent, with its marker to write once. */
interface Indent {
  text: string;
  marker: string;
}

/**
 * Where Markdown is written. The page has one; table cells get their own, so a cell's text can
 * be flattened or unwrapped once the table's shape is known.
 */
interface Sink {
  out: string;
  /** Newlines owed before the next content: 0, 1 or 2 (a blank line); never more. */
  breaks: number;
  /** A collapsed space owed before the next content on the same line. */
  space: boolean;
  lineStart: boolean;
  empty: boolean;
  /** A heading's `## `, written with its first content. */
  lead: string;
  headings: number;
  links: number;
  inline: Inline[];
  unwritten: number;
  /**
   * Close markers of inline elements that ended, held back until more is written so that the
   * same marker reopened at once (`<b>a</b><b>b</b>`) merges instead of reading as `****`.
   * Innermost first.
   */
  pending: string[];
  indents: Indent[];
  /** `prefixes[i]` is the joined text of the first `i` indents. */
  prefixes: string[];
  /** Index of the lowest indent whose marker is still to be written, or -1. */
  markFrom: number;
  /** How many indents the last written line had. */
  depth: number;
}

function newSink(): Sink {
  return {
    out: "",
    breaks: 0,
    space: false,
    lineStart: true,
    empty: true,
    lead: "",
    headings: 0,
    links: 0,
    inline: [],
    unwritten: 0,
    pending: [],
    indents: [],
    prefixes: [""],
    markFrom: -1,
    depth: 0,
  };
}

interface TableState {
  rows: string[][];
  row: string[] | undefined;
  /** The sink that was current before the open cell; set while a cell is open. */
  outer: Sink | undefined;
  colspan: number;
  /** A table inside one of its cells makes it a layout table. */
  layout: boolean;
  /** A `<th>` makes even a single column a data table. */
  header: boolean;
}

interface ListState {
  ordered: boolean;
  next: number;
  step: number;
}

/**
 * Converts an HTML page to Markdown in one forward pass over htmlparser2's tokenizer, with a
 * small stack of open elements and no DOM. Keeps headings, paragraphs, lists, quotes, code,
 * tables, links and images (made absolute against `baseUrl` or the page's `<base href>`);
 * drops scripts, styles, hidden content and the head. Linear in the input, whatever its
 * nesting depth or attribute sizes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown } from "@outpost/agent-tools";
 * const { title, markdown } = htmlToMarkdown(
 *   "<title>Hi</title><h1>Hello</h1><p>See <a href='/docs'>the docs</a>.</p>",
 *   { baseUrl: "https://example.com/" },
 * );
 * assert.equal(title, "Hi");
 * assert.equal(markdown, "# Hello\n\nSee [the docs](https://example.com/docs).");
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
  const converter = new Converter(String(html), base, options.images === true);
  const tokenizer = new Tokenizer({ decodeEntities: true }, converter);
  tokenizer.write(converter.html);
  tokenizer.end();
  return converter.result();
}

class Converter implements TokenizerCallbacks {
  readonly html: string;
  base: URL;
  baseSet = false;
  private readonly collect: boolean;
  private w: Sink = newSink();
  private readonly stack: Open[] = [];
  /** Per tag name, and per kind, the stack index of its topmost open element (-1: none). */
  private readonly lastName = new Map<string, number>();
  private readonly lastKind = new Int32Array(KIND_COUNT).fill(-1);
  private flatTables = 0;
  private readonly lists: ListState[] = [];
  private readonly tables: TableState[] = [];

  // The tag being read and its attributes of interest.
  private tagName = "";
  private tagKind = NONE;
  private attr = 0;
  private attrValue = "";
  private attrMask = 0;
  private readonly attrs: string[] = [];

  // A dropped subtree stays on the stack, muted, so that whatever closes its root (its own
  // closing tag, an implied close, an ancestor's closing tag) ends it as in a browser.
  private muted = false;
  private muteName = "";
  /** Closing tags do not reach below this index: raw or foreign content is self-contained. */
  private floor = 0;
  private noscript = "";

  private inTitle = false;
  private title: string | undefined;
  private titleText = "";
  private preDepth = 0;
  private preText = "";
  private preLang = "";
  private codeDepth = 0;
  private codeText = "";

  private readonly images: PageImage[] = [];
  private readonly seen = new Set<string>();
  private pictureDepth = 0;
  private pictureSources: string[] = [];

  constructor(html: string, base: URL, collect: boolean, findBase = true) {
    this.html = html;
    this.base = base;
    this.collect = collect;
    if (findBase) this.findBase();
  }

  /**
   * Browsers resolve every link against the first `<base href>`, even links before it. A quick
   * scan of the head (the first 64 KB) finds it, and a converter of that one tag reads its href
   * as the main pass would. A later `<base>` applies from where it stands.
   */
  private findBase(): void {
    const html = this.html.length > BASE_SCAN ? this.html.slice(0, BASE_SCAN) : this.html;
    for (let from = 0, tries = 0; tries < 4; tries++) {
      const at = indexOfTag(html, "<base", from);
      if (at < 0) return;
      const end = html.indexOf(">", at);
      const tag = html.slice(at, end < 0 ? html.length : end + 1);
      const probe = new Converter(tag, this.base, false, false);
      const tokenizer = new Tokenizer({ decodeEntities: true }, probe);
      tokenizer.write(tag);
      tokenizer.end();
      if (probe.baseSet) {
        this.base = probe.base;
        this.baseSet = true;
        return;
      }
      from = at + 5;
    }
  }

  result(): MarkdownResult {
    flush(this.w);
    let markdown = this.w.out;
    if (markdown === "" && this.noscript !== "") markdown = collapse(this.noscript).trim();
    const result: MarkdownResult = { markdown, images: this.images };
    if (this.title) result.title = this.title;
    return result;
  }

  // ---- tokenizer callbacks ----

  ontext(start: number, end: number): void {
    this.onText(this.html.slice(start, end));
  }

  ontextentity(codepoint: number): void {
    this.onText(String.fromCodePoint(codepoint));
  }

  onopentagname(start: number, end: number): void {
    const name = lower(this.html.slice(start, end));
    this.tagName = name;
    this.tagKind = KINDS.get(name) ?? NONE;
    this.attrMask = 0;
    this.attr = 0;
  }

  onattribname(start: number, end: number): void {
    this.attr = this.muted ? 0 : ATTRS.get(lower(this.html.slice(start, end))) ?? 0;
    this.attrValue = "";
  }

  onattribdata(start: number, end: number): void {
    if (this.attr !== 0) this.attrValue += this.html.slice(start, end);
  }

  onattribentity(codepoint: number): void {
    if (this.attr !== 0) this.attrValue += String.fromCodePoint(codepoint);
  }

  onattribend(): void {
    const id = this.attr;
    if (id === 0 || (this.attrMask & (1 << id)) !== 0) return;
    this.attrMask |= 1 << id;
    this.attrs[id] = this.attrValue;
    this.attr = 0;
  }

  onopentagend(): void {
    this.openTag(false);
  }

  onselfclosingtag(): void {
    this.openTag(true);
  }

  onclosetag(start: number, end: number): void {
    this.closeTag(lower(this.html.slice(start, end)));
  }

  oncomment(): void {}
  oncdata(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}

  onend(): void {
    this.popTo(0);
  }

  // ---- attributes ----

  private get(id: number): string | undefined {
    return (this.attrMask & (1 << id)) !== 0 ? this.attrs[id] : undefined;
  }

  private isHidden(): boolean {
    const mask = this.attrMask;
    if (mask === 0) return false;
    if ((mask & (1 << HIDDEN)) !== 0 && lower(this.attrs[HIDDEN]) !== "until-found") return true;
    if ((mask & (1 << ARIA_HIDDEN)) !== 0 && lower(this.attrs[ARIA_HIDDEN].trim()) === "true") {
      return true;
    }
    return (mask & (1 << STYLE)) !== 0 && INVISIBLE_STYLE.test(this.attrs[STYLE]);
  }

  // ---- text ----

  private onText(text: string): void {
    if (this.muted) {
      if (this.muteName === "noscript" && this.noscript.length < MAX_NOSCRIPT) {
        this.noscript += text;
      }
      return;
    }
    if (this.inTitle) {
      this.titleText += text;
    } else if (this.preDepth > 0) {
      this.preText += text;
    } else if (this.codeDepth > 0) {
      this.codeText += text;
    } else {
      this.text(text);
    }
  }

  /** Writes flowing text, collapsing whitespace as HTML renders it. */
  private text(raw: string): void {
    let text = raw.replace(WHITESPACE, " ");
    const w = this.w;
    if (text.charCodeAt(0) === 32) {
      w.space = true;
      if (text.length === 1) return;
      text = text.slice(1);
    }
    const trailing = text.charCodeAt(text.length - 1) === 32;
    if (trailing) text = text.slice(0, -1);
    this.write(w.links > 0 ? text.replace(BRACKETS, "\\$&") : text);
    if (trailing) w.space = true;
  }

  /** Writes inline content: owed newlines and prefix, or a space, then pending markers. */
  private write(content: string): void {
    const w = this.w;
    if (w.pending.length > 0) settle(w);
    if (w.breaks > 0) {
      if (!w.empty) {
        w.out += w.breaks > 1 ? "\n" + blank(w) + "\n" : "\n";
      }
      w.breaks = 0;
      w.lineStart = true;
    }
    if (w.lineStart) {
      w.depth = w.indents.length;
      w.out += linePrefix(w) + w.lead;
      w.lead = "";
      w.lineStart = false;
    } else if (w.space) {
      w.out += " ";
    }
    w.space = false;
    if (w.unwritten > 0) {
      for (const entry of w.inline) {
        if (!entry.written) {
          w.out += entry.open;
          entry.written = true;
        }
      }
      w.unwritten = 0;
    }
    w.out += content;
    w.empty = false;
  }

  /**
   * Writes whole lines (a code block, a table) at the current indent, markers not reopened. An
   * empty line is a paragraph gap, or in `code` a line of its own.
   */
  private lines(lines: string[], code = false): void {
    const w = this.w;
    flush(w);
    for (const line of lines) {
      if (line === "") {
        if (code) w.out += "\n" + blank(w);
        else if (!w.empty) w.breaks = 2;
        continue;
      }
      if (w.breaks > 0 || !w.lineStart) {
        if (!w.empty) w.out += w.breaks > 1 ? "\n" + blank(w) + "\n" : "\n";
      }
      w.breaks = 1;
      w.depth = w.indents.length;
      w.out += linePrefix(w) + line;
      w.lineStart = false;
      w.space = false;
      w.empty = false;
    }
  }

  /** Owes `n` newlines before the next content; inside a heading a break is only a space. */
  private breakLine(n: number): void {
    const w = this.w;
    if (w.headings > 0) {
      w.space = true;
      return;
    }
    closeWritten(w);
    w.space = false;
    if (w.markFrom >= 0) n = 1; // an item's first block stays on the marker's line
    if (n > w.breaks) w.breaks = n;
  }

  // ---- elements ----

  private openTag(selfClosing: boolean): void {
    const name = this.tagName;
    let kind = this.tagKind;
    if (this.muted) {
      // Only the structure counts: what closes the dropped root, and what nests inside it.
      if (kind >= IMG) return;
      if (kind !== NONE) this.impliedCloses(kind);
      if (this.muted) {
        if (!selfClosing) this.push(name, kind, false, MUTED);
        return;
      }
    }
    if (kind === NONE) {
      if (this.attrMask !== 0 && this.isHidden()) this.mute(name, kind, selfClosing);
      return;
    }
    if (kind >= IMG) {
      this.voidTag(kind);
      return;
    }
    if (kind === SKIP || (kind === DIALOG && this.get(OPEN) === undefined) || this.isHidden()) {
      if (this.preDepth === 0 && this.codeDepth === 0) this.impliedCloses(kind);
      this.mute(name, kind, selfClosing);
      return;
    }
    if (this.preDepth > 0) {
      if (kind === PRE) this.preDepth++;
      else if (kind === CODE) this.setLanguage();
      else return;
      this.push(name, kind, false, NOT_MUTED);
      return;
    }
    if (this.codeDepth > 0) {
      if (kind === CODE) {
        this.codeDepth++;
        this.push(name, kind, false, NOT_MUTED);
      }
      return;
    }
    this.impliedCloses(kind);
    if (this.flatTables > 0 && (kind === ROW || kind === CELL)) kind = BLOCK;
    let flag = false;
    switch (kind) {
      case BLOCK:
        this.breakLine(1);
        break;
      case PARA:
        this.breakLine(2);
        break;
      case HEADING: {
        this.breakLine(2);
        const w = this.w;
        w.lead = "#".repeat(name.charCodeAt(1) - 48) + " ";
        w.headings++;
        break;
      }
      case LIST: {
        const ordered = name === "ol";
        const reversed = this.get(REVERSED) !== undefined;
        const start = parseInt(this.get(START) ?? "", 10);
        this.lists.push({
          ordered,
          next: Number.isFinite(start) ? clampNumber(start) : 1,
          step: reversed ? -1 : 1,
        });
        this.breakLine(this.lists.length > 1 ? 1 : 2);
        break;
      }
      case ITEM: {
        this.breakLine(1);
        const list = this.lists[this.lists.length - 1];
        let marker = "- ";
        if (list?.ordered) {
          const value = parseInt(this.get(VALUE) ?? "", 10);
          if (Number.isFinite(value)) list.next = value;
          marker = `${clampNumber(list.next)}. `;
          list.next += list.step;
        }
        this.indent(" ".repeat(marker.length), marker);
        break;
      }
      case DL:
        this.breakLine(2);
        break;
      case DT:
        this.breakLine(1);
        break;
      case DD:
        this.breakLine(1);
        this.indent("  ", ": ");
        break;
      case QUOTE:
        this.breakLine(2);
        this.indent("> ", "");
        break;
      case PRE:
        this.breakLine(2);
        this.preDepth = 1;
        this.preText = "";
        this.preLang = "";
        this.setLanguage();
        break;
      case CODE:
        this.codeDepth = 1;
        this.codeText = "";
        break;
      case LINK:
        flag = this.openLink();
        break;
      case EMPHASIS:
        flag = this.openInline("*");
        break;
      case STRONG:
        flag = this.openInline("**");
        break;
      case STRIKE:
        flag = this.openInline("~~");
        break;
      case TABLE:
        if (this.tables.length > 0) this.tables[this.tables.length - 1].layout = true;
        if (this.tables.length >= MAX_TABLE_DEPTH) {
          // Deeper tables would copy their cells into every enclosing one: quadratic.
          kind = FLAT_TABLE;
          this.flatTables++;
          this.breakLine(1);
          break;
        }
        this.breakLine(2);
        this.tables.push({
          rows: [],
          row: undefined,
          outer: undefined,
          colspan: 1,
          layout: false,
          header: false,
        });
        break;
      case ROW:
        if (this.tables.length === 0) this.breakLine(1);
        else this.tables[this.tables.length - 1].row = [];
        break;
      case CELL:
        if (this.tables.length === 0) {
          this.breakLine(1);
        } else {
          if (name === "th") this.tables[this.tables.length - 1].header = true;
          this.openCell();
        }
        break;
      case PICTURE:
        this.pictureDepth++;
        break;
    }
    this.push(name, kind, flag, NOT_MUTED);
  }

  /** Closes what opening an element of `kind` implicitly ends, as the HTML parser does. */
  private impliedCloses(kind: number): void {
    if (CLOSES_P.has(kind)) this.closeImplied("p");
    switch (kind) {
      case HEADING: {
        const top = this.stack.length - 1;
        if (top >= this.floor && this.stack[top].kind === HEADING) this.popTo(top);
        break;
      }
      case ITEM:
        this.closeImplied("li", LIST);
        break;
      case DT:
      case DD:
        this.closeImplied("dd", DL);
        this.closeImplied("dt", DL);
        break;
      case LINK:
        this.closeImplied("a");
        break;
      case ROW:
        this.closeImplied("tr", TABLE);
        break;
      case CELL:
        this.closeImplied("td", ROW);
        this.closeImplied("th", ROW);
        break;
      case OPTION: {
        const top = this.stack.length - 1;
        if (top >= this.floor && this.stack[top].kind === OPTION) this.popTo(top);
        break;
      }
    }
  }

  private voidTag(kind: number): void {
    if (kind === TITLE) {
      // <title> is raw text: nothing but its closing tag can follow.
      this.inTitle = true;
      this.titleText = "";
      return;
    }
    if (kind === META) {
      this.imageMeta();
      return;
    }
    if (kind === BASE) {
      const href = this.get(HREF);
      if (!this.baseSet && href !== undefined) {
        this.baseSet = true;
        const url = resolve(href.trim(), this.base);
        if (url) this.base = new URL(url);
      }
      return;
    }
    if (this.isHidden()) return;
    if (this.preDepth > 0) {
      if (kind === BR) this.preText += "\n";
      return;
    }
    if (this.codeDepth > 0) {
      if (kind === BR) this.codeText += " ";
      return;
    }
    switch (kind) {
      case BR: {
        const w = this.w;
        if (w.headings > 0) {
          w.space = true;
        } else {
          closeWritten(w);
          w.space = false;
          w.breaks = w.breaks === 0 ? 1 : 2;
        }
        break;
      }
      case HR:
        this.closeImplied("p");
        this.breakLine(2);
        this.lines(["---"]);
        this.breakLine(2);
        break;
      case IMG:
        this.image();
        break;
      case SOURCE:
        if (this.pictureDepth > 0 && this.collect) {
          const best = largestCandidate(this.get(SRCSET) ?? "");
          if (best) this.pictureSources.push(best);
        }
        break;
    }
  }

  /** Starts dropping the element being opened and everything inside it. */
  private mute(name: string, kind: number, selfClosing: boolean): void {
    if (selfClosing) return; // `<svg/>`, `<div hidden/>`: nothing inside to drop
    this.muted = true;
    this.muteName = name;
    // Raw and foreign content (scripts, templates, SVG…) cannot be closed from outside.
    if (kind === SKIP) this.floor = this.stack.length;
    this.push(name, kind, false, MUTE_ROOT);
  }

  private closeTag(name: string): void {
    if (this.inTitle) {
      if (name === "title") {
        this.inTitle = false;
        if (this.title === undefined) this.title = collapse(this.titleText).trim();
      }
      return;
    }
    const stack = this.stack;
    const top = stack.length - 1;
    // Well-formed markup closes the top element: no search, no scope to check.
    if (top >= this.floor && stack[top].name === name) {
      this.popTo(top);
      return;
    }
    const index = this.lastName.get(name) ?? -1;
    if (index < this.floor) {
      if (index < 0 && !this.muted) {
        if (name === "br") {
          this.voidTag(BR);
        } else if (name === "p" && this.preDepth === 0 && this.codeDepth === 0) {
          this.breakLine(2);
        }
      }
      return;
    }
    const kind = KINDS.get(name) ?? NONE;
    // A closing tag does not reach out of a table cell, unless it closes table structure.
    if (kind !== TABLE && kind !== ROW && kind !== CELL && this.boundary() > index) return;
    this.popTo(index);
  }

  /** Closes the nearest open `name`, unless an element of kind `stop` or a cell comes first. */
  private closeImplied(name: string, stop = TABLE): void {
    const index = this.lastName.get(name) ?? -1;
    if (index < this.floor || this.lastKind[stop] > index || this.boundary() > index) return;
    this.popTo(index);
  }

  /** The stack index of the innermost table or cell, which scope closing tags. */
  private boundary(): number {
    const kinds = this.lastKind;
    return Math.max(kinds[TABLE], kinds[CELL], kinds[FLAT_TABLE]);
  }

  private push(name: string, kind: number, flag: boolean, mute: number): void {
    const index = this.stack.length;
    const prevName = this.lastName.get(name) ?? -1;
    this.stack.push({ name, kind, flag, mute, prevName, prevKind: this.lastKind[kind] });
    this.lastName.set(name, index);
    this.lastKind[kind] = index;
  }

  /** Closes every open element from the top of the stack down to index `depth`. */
  private popTo(depth: number): void {
    const stack = this.stack;
    while (stack.length > depth) {
      const open = stack.pop()!;
      this.lastName.set(open.name, open.prevName);
      this.lastKind[open.kind] = open.prevKind;
      this.close(open);
    }
  }

  private close(open: Open): void {
    if (open.mute !== NOT_MUTED) {
      if (open.mute === MUTE_ROOT) {
        this.muted = false;
        this.muteName = "";
        this.floor = 0;
      }
      return;
    }
    const kind = open.kind;
    if (this.preDepth > 0) {
      if (kind === PRE && --this.preDepth === 0) this.finishPre();
      return;
    }
    if (this.codeDepth > 0) {
      if (kind === CODE && --this.codeDepth === 0) this.finishCode();
      return;
    }
    switch (kind) {
      case BLOCK:
        this.breakLine(1);
        break;
      case PARA:
        this.breakLine(2);
        break;
      case HEADING: {
        const w = this.w;
        w.lead = "";
        w.headings--;
        this.breakLine(2);
        break;
      }
      case LIST:
        this.lists.pop();
        this.breakLine(this.lists.length > 0 ? 1 : 2);
        break;
      case ITEM:
      case DD:
        this.outdent();
        this.breakLine(1);
        break;
      case DT:
        this.breakLine(1);
        break;
      case DL:
        this.breakLine(2);
        break;
      case QUOTE:
        this.outdent();
        this.breakLine(2);
        break;
      case LINK:
      case EMPHASIS:
      case STRONG:
      case STRIKE:
        if (open.flag) this.closeInline();
        break;
      case TABLE:
        this.finishTable();
        break;
      case FLAT_TABLE:
        this.flatTables--;
        this.breakLine(1);
        break;
      case ROW: {
        const table = this.tables[this.tables.length - 1];
        if (table?.row) {
          table.rows.push(table.row);
          table.row = undefined;
        } else {
          this.breakLine(1);
        }
        break;
      }
      case CELL:
        this.closeCell();
        break;
      case PICTURE:
        if (--this.pictureDepth === 0) {
          for (const url of this.pictureSources) this.addImage(url, "");
          this.pictureSources = [];
        }
        break;
    }
  }

  // ---- inline markers ----

  /**
   * Opens a marker pair, written lazily with the next content. Returns whether it was opened:
   * the same emphasis inside itself adds nothing, and deep nesting adds no more markers.
   */
  private openInline(marker: string, close = marker, link = false): boolean {
    const w = this.w;
    if (w.inline.length >= MAX_INLINE) return false;
    if (!link) {
      for (const entry of w.inline) if (entry.open === marker) return false;
    }
    w.inline.push({ open: marker, close, written: false, link });
    w.unwritten++;
    if (link) w.links++;
    return true;
  }

  private closeInline(): void {
    const w = this.w;
    const entry = w.inline.pop();
    if (!entry) return;
    if (entry.link) w.links--;
    if (entry.written) w.pending.push(entry.close);
    else w.unwritten--;
  }

  private openLink(): boolean {
    const href = this.get(HREF);
    if (href === undefined) return false;
    const trimmed = href.trim();
    if (trimmed === "" || trimmed.charCodeAt(0) === 35 /* # */) return false;
    const url = resolve(trimmed, this.base);
    if (!url || BLOCKED_SCHEME.test(url)) return false;
    return this.openInline("[", `](${formatUrl(url)})`, true);
  }

  // ---- lists and quotes ----

  private indent(text: string, marker: string): void {
    const w = this.w;
    const depth = w.indents.length;
    const shown = depth < MAX_INDENT ? text : "";
    w.indents.push({ text: shown, marker });
    w.prefixes.push(w.prefixes[depth] + shown);
    if (marker !== "" && w.markFrom < 0) w.markFrom = depth;
  }

  private outdent(): void {
    const w = this.w;
    w.indents.pop();
    w.prefixes.pop();
    if (w.markFrom >= w.indents.length) w.markFrom = -1;
    // A blank line after a closed quote must not carry its `>`, or the next quote joins it.
    if (w.depth > w.indents.length) w.depth = w.indents.length;
  }

  // ---- code ----

  private setLanguage(): void {
    const match = LANGUAGE.exec(this.get(CLASS) ?? "");
    if (match && this.preLang === "") this.preLang = match[1];
  }

  private finishPre(): void {
    let text = this.preText.replace(/\r\n?/g, "\n");
    if (text.charCodeAt(0) === 10) text = text.slice(1);
    // Trailing blank lines go, and runs of blank lines shrink to one, as everywhere else.
    text = text.trimEnd().replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, "\n\n");
    this.preText = "";
    if (text.trim() === "") return;
    const fence = "`".repeat(Math.max(3, longestRun(text) + 1));
    this.breakLine(2);
    this.lines([fence + this.preLang, ...text.split("\n"), fence], true);
    this.breakLine(2);
  }

  private finishCode(): void {
    const raw = collapse(this.codeText);
    this.codeText = "";
    const text = raw.trim();
    const w = this.w;
    if (text === "") {
      if (raw !== "") w.space = true;
      return;
    }
    if (raw.charCodeAt(0) === 32) w.space = true;
    const fence = "`".repeat(longestRun(text) + 1);
    const pad = text.charCodeAt(0) === 96 || text.charCodeAt(text.length - 1) === 96 ? " " : "";
    this.write(fence + pad + text + pad + fence);
    if (raw.charCodeAt(raw.length - 1) === 32) w.space = true;
  }

  // ---- tables ----

  private openCell(): void {
    const table = this.tables[this.tables.length - 1];
    if (!table.row) table.row = [];
    if (table.outer) this.closeCell();
    const colspan = parseInt(this.get(COLSPAN) ?? "", 10);
    table.colspan = colspan > 1 ? Math.min(colspan, 32) : 1;
    table.outer = this.w;
    this.w = newSink();
  }

  private closeCell(): void {
    const table = this.tables[this.tables.length - 1];
    if (!table?.outer) {
      this.breakLine(1);
      return;
    }
    flush(this.w);
    const cell = this.w.out;
    this.w = table.outer;
    table.outer = undefined;
    const row = table.row ?? (table.row = []);
    row.push(cell);
    for (let i = 1; i < table.colspan; i++) row.push("");
  }

  private finishTable(): void {
    const table = this.tables.pop();
    if (!table) return;
    if (table.row) table.rows.push(table.row);
    const rows = table.rows.filter((row) => row.some((cell) => cell !== ""));
    let columns = 0;
    for (const row of rows) columns = Math.max(columns, row.length);
    // Columns empty in every row are spacers.
    const keep: number[] = [];
    for (let c = 0; c < columns; c++) {
      if (rows.some((row) => (row[c] ?? "") !== "")) keep.push(c);
    }
    this.breakLine(2);
    if (keep.length === 0 || (keep.length === 1 && !table.header) || table.layout) {
      for (const row of rows) {
        for (const cell of row) {
          if (cell === "") continue;
          this.lines(cell.split("\n"));
          this.breakLine(2);
        }
      }
      return;
    }
    const lines = rows.map((row) => "| " + keep.map((c) => flattenCell(row[c])).join(" | ") + " |");
    lines.splice(1, 0, "|" + " --- |".repeat(keep.length));
    this.lines(lines);
    this.breakLine(2);
  }

  // ---- images ----

  private image(): void {
    let src = this.get(SRC)?.trim();
    if (!src || src.startsWith("data:")) src = this.get(DATA_SRC)?.trim() ?? src;
    const url = src && src.charCodeAt(0) !== 35 /* # */ ? resolve(src, this.base) : undefined;
    const alt = collapse(this.get(ALT) ?? "").trim();
    const usable = url !== undefined && !BLOCKED_SCHEME.test(url);
    if (usable) this.write(`![${alt.replace(BRACKETS, "\\$&")}](${formatUrl(url)})`);
    if (!this.collect) return;
    for (const source of this.pictureSources) this.addImage(source, alt);
    this.pictureSources = [];
    const best = largestCandidate(this.get(SRCSET) ?? "");
    if (best) this.addImage(best, alt);
    else if (usable) this.addImage(url, alt);
  }

  private imageMeta(): void {
    if (!this.collect) return;
    const property = lower((this.get(PROPERTY) ?? this.get(NAME) ?? "").trim());
    const content = this.get(CONTENT);
    if (content && IMAGE_META.has(property)) this.addImage(content, "");
  }

  private addImage(href: string, alt: string): void {
    if (this.images.length >= MAX_IMAGES) return;
    const trimmed = href.trim();
    if (trimmed === "" || trimmed.charCodeAt(0) === 35) return;
    const url = resolve(trimmed, this.base);
    if (!url || BLOCKED_SCHEME.test(url) || this.seen.has(url)) return;
    this.seen.add(url);
    this.images.push({ url, alt });
  }
}

// ---- helpers ----

function lower(name: string): string {
  // Most markup is lowercase already; skip the copy then.
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) return name.toLowerCase();
  }
  return name;
}

function collapse(text: string): string {
  return text.replace(WHITESPACE, " ");
}

// Links already in the form the URL parser would serialise them to: an absolute http(s) URL
// with a plain lowercase host, or a root-relative path, without dot segments and without
// characters the parser would escape. They skip the parser, which costs a fifth of the run.
const PLAIN_ABSOLUTE = /^https?:\/\/(?![^/]*xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*(?<![.\d])\//;
const PLAIN_PATH =
  /^[\w\-.~!$&*+,;=:@%/]*(?:\?[\w\-.~!$&*+,;=:@%/?]*)?(?:#[\w\-.~!$&*+,;=:@%/?#]*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)|%2e/i;

/** Resolves `href` against `base` as the URL parser does; `undefined` when it is not a URL. */
function resolve(href: string, base: URL): string | undefined {
  const root = href.charCodeAt(0) === 47 && href.charCodeAt(1) !== 47 &&
    (base.protocol === "https:" || base.protocol === "http:");
  if ((root || PLAIN_ABSOLUTE.test(href)) && !DOT_SEGMENT.test(href)) {
    const rest = root ? href : href.slice(href.indexOf("/", 8));
    if (PLAIN_PATH.test(rest)) return root ? base.origin + href : href;
  }
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

/**
 * A link target as Markdown reads it: in angle brackets when spaces or parentheses would end it,
 * with the characters that would end or escape the brackets percent-encoded.
 */
function formatUrl(href: string): string {
  return /[\s()<>\\]/.test(href) ? `<${href.replace(/[<>\s\\]/g, encodeURIComponent)}>` : href;
}

function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(BACKTICKS)) longest = Math.max(longest, match[0].length);
  return longest;
}

/** A cell's lines joined into one, by a split rather than a regex that backtracks on spaces. */
function flattenCell(cell: string | undefined): string {
  if (!cell) return "";
  const lines = cell.split("\n");
  let flat = "";
  for (const line of lines) {
    const text = line.trim();
    if (text === "") continue;
    flat += flat === "" ? text : " " + text;
  }
  return flat.replace(/\|/g, "\\|");
}

/** Ordered-list numbers as CommonMark reads them: 0 to 999 999 999. */
function clampNumber(n: number): number {
  return Math.min(Math.max(n, 0), 999_999_999);
}

/** The first `tag` (given lowercase, e.g. `<base`) from `from`, in lower or upper case. */
function indexOfTag(html: string, tag: string, from: number): number {
  const upper = tag.toUpperCase();
  let lowerAt = html.indexOf(tag, from);
  let upperAt = html.indexOf(upper, from);
  while (lowerAt >= 0 || upperAt >= 0) {
    const at = lowerAt < 0 ? upperAt : upperAt < 0 ? lowerAt : Math.min(lowerAt, upperAt);
    const next = html.charCodeAt(at + tag.length);
    if (isSpace(next) || next === 47 || next === 62) return at;
    if (at === lowerAt) lowerAt = html.indexOf(tag, at + 1);
    else upperAt = html.indexOf(upper, at + 1);
  }
  return -1;
}

/** The line prefix: indents, with each item's marker written on its first line only. */
function linePrefix(w: Sink): string {
  const from = w.markFrom;
  if (from < 0) return w.prefixes[w.indents.length];
  let prefix = w.prefixes[from];
  const indents = w.indents;
  for (let i = from; i < indents.length; i++) {
    const indent = indents[i];
    if (indent.marker !== "") {
      prefix += indent.marker;
      indent.marker = "";
    } else {
      prefix += indent.text;
    }
  }
  w.markFrom = -1;
  return prefix;
}

/**
 * The prefix of a blank line: the indents shared by the lines around it, where a quote keeps
 * its `>` and list indents vanish.
 */
function blank(w: Sink): string {
  return w.prefixes[Math.min(w.depth, w.indents.length)].trimEnd();
}

/** Writes the close markers held back in `pending`. */
function flush(w: Sink): void {
  const pending = w.pending;
  for (let i = 0; i < pending.length; i++) w.out += pending[i];
  pending.length = 0;
}

/**
 * Before more content: a marker that closed and reopens with nothing between them is dropped
 * both ways (`*a**b*` would not parse), and the other held-back close markers are written.
 */
function settle(w: Sink): void {
  if (w.unwritten > 0 && w.breaks === 0 && !w.space) {
    const pending = w.pending;
    for (const entry of w.inline) {
      if (entry.written) continue;
      if (entry.link || pending[pending.length - 1] !== entry.open) break;
      pending.pop();
      entry.written = true;
      w.unwritten--;
    }
  }
  flush(w);
}

/** Closes written inline markers before a line break; they reopen with the next content. */
function closeWritten(w: Sink): void {
  flush(w);
  const inline = w.inline;
  for (let i = inline.length - 1; i >= 0; i--) {
    const entry = inline[i];
    if (entry.written) {
      w.out += entry.close;
      entry.written = false;
      w.unwritten++;
    }
  }
}

/** The largest candidate of a `srcset`, by width descriptor, else by density. */
function largestCandidate(srcset: string): string | undefined {
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
    // Placeholders (`data:` pixels, fragments) are no candidates: the real image is elsewhere.
    if (url === "" || url.charCodeAt(0) === 35 || BLOCKED_SCHEME.test(lower(url))) continue;
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

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}
