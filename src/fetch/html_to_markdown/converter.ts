/**
 * The converter's core: the tokenizer's callbacks, the attributes of interest, and a
 * stack of open elements that closes them as the HTML parser does. What each element does is
 * its rule record (`rules.ts`); how Markdown is written is the writer's (`writer.ts`).
 *
 * @module
 */
import type { PageImage } from "../page.ts";
import {
  BR_RULE,
  CELL,
  FLAT_TABLE,
  KIND_COUNT,
  type ListState,
  NONE_RULE,
  PARA,
  type Rule,
  RULES,
  TABLE,
} from "./rules.ts";
import { ARIA_HIDDEN, ATTRS, HIDDEN, STYLE, TYPE } from "./attributes.ts";
import { MAX_DATA_READ, pageData, THIN } from "./page_data.ts";
import { breakLine, flush, newSink, type Sink, write } from "./writer.ts";
import { collapse, isSpace, lower } from "./text.ts";
import { escapeText } from "./escape.ts";
import { decode } from "../../html/decode.ts";
import { classify, enter, leave, mainContent, PLAIN, type Stretch } from "./main_content.ts";
import type { TableState } from "./tables.ts";
import { tokenize, type TokenSink } from "../../html/tokenizer.ts";

/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;
/** Text kept from `<noscript>` for pages that show nothing else. */
const MAX_NOSCRIPT = 4_000;

/** Per attribute name length, a bit per first letter (a–z) of the names we read. */
const ATTR_FIRST = new Int32Array(16);
for (const name of ATTRS.keys()) ATTR_FIRST[name.length] |= 1 << (name.charCodeAt(0) - 97);

const JSON_TYPE = /^\s*application\/(?:ld\+)?json\s*$/i;
const INVISIBLE_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)/i;

/** One open element that acts when it closes. */
export interface Open {
  name: string;
  rule: Rule;
  /** For links and emphasis: whether a marker pair was opened, so closing must close it. */
  flag: boolean;
  /** NOT_MUTED, or the root of a dropped subtree, or an element inside one (renders nothing). */
  mute: number;
  /** Stack index of the next open element of the same name, and of the same kind, or -1. */
  prevName: number;
  prevKind: number;
  /** What it may be for main-content detection (`PLAIN`: nothing to watch) … */
  role: number;
  /** … and, when it may matter, the sink and counts as it opened. */
  sink: Sink | undefined;
  at: number;
  text: number;
  linkText: number;
  links: number;
  landmarks: number;
  /** Headings with a link in them, and links to a site's home page, as it opened. */
  titles: number;
  homes: number;
  /** Text of the articles nested in it, as it opened. */
  inner: number;
}

const NOT_MUTED = 0;
const MUTE_ROOT = 1;
const MUTED = 2;

/** The state of one conversion; rules and the writer's helpers read and change it. */
export class Converter implements TokenSink {
  readonly html: string;
  /** The page's own address, without its fragment: links to a place on it are fragments. */
  readonly page: string;
  base: URL;
  baseSet = false;
  readonly collect: boolean;
  /** How images are written in the Markdown (see `HtmlToMarkdownOptions.inlineImages`). */
  inlineImages: "markdown" | "alt" | "none" = "markdown";
  w: Sink = newSink();
  private readonly stack: Open[] = [];
  private readonly spare: Open[] = [];
  /** Per tag name, and per kind, the stack index of its topmost open element (-1: none). */
  private readonly lastName = new Map<string, number>();
  private readonly lastKind = new Int32Array(KIND_COUNT).fill(-1);
  flatTables = 0;
  /** The web address of the `<a>` being opened, as its rule chose it. */
  linkUrl: string | undefined;
  /** Open links whose address is not the web's, written as text. */
  textLinks = 0;
  readonly lists: ListState[] = [];
  readonly tables: TableState[] = [];

  // The tag being read (its name, where its `>` is) and its attributes of interest.
  private tagName = "";
  tagEnd = 0;
  /** Where the text being read ends in the page. */
  private textEnd = 0;
  /** Text before this index is skipped: a link's text already written as its address. */
  skipTextUntil = -1;
  private tagRule: Rule = NONE_RULE;
  private attrMask = 0;
  private readonly attrs: string[] = [];

  // A dropped subtree stays on the stack, muted, so that whatever closes its root (its own
  // closing tag, an implied close, an ancestor's closing tag) ends it as in a browser.
  private muted = false;
  private muteName = "";
  /** Closing tags do not reach below this index: raw or foreign content is self-contained. */
  private floor = 0;
  private noscript = "";
  /** Inside a JSON `<script>` (JSON-LD, framework data): its text, and the blocks read so far. */
  private dataScript = false;
  private dataText = "";
  private dataRead = 0;
  private readonly data: string[] = [];
  /** The page's `meta` description, for pages built by JavaScript. */
  description = "";

  inTitle = false;
  title: string | undefined;
  titleText = "";
  preDepth = 0;
  preText = "";
  preLang = "";
  /** Where the next `</math` and `<annotation` are, as last found (see `math.ts`). */
  mathEnd = -1;
  annotationAt = -1;
  /** Footnotes referred to so far: the label of each by the id of its note. */
  readonly notes = new Map<string, string>();
  /** The language a block wrapping code blocks names (see `openCodeWrapper`). */
  blockLang = "";
  /** The `<pre>` is an `<xmp>`, whose text is raw. */
  preRaw = false;
  codeDepth = 0;
  codeText = "";

  readonly images: PageImage[] = [];
  readonly seen = new Set<string>();
  pictureDepth = 0;
  pictureSources: string[] = [];

  // Main-content detection: on in "main" mode. Text counts are of characters written.
  readonly main: boolean;
  readonly root: Sink = this.w;
  textChars = 0;
  linkChars = 0;
  linkCount = 0;
  /** Headings with a link in them: teasers' titles, counted to tell a list of teasers. */
  linkedTitles = 0;
  /** Whether the heading being written has been counted as linked. */
  titleLinked = false;
  /** Links to a site's home page (`/`, `/index.html`): a site's name, not a title. */
  homeLinks = 0;
  /** Link targets written so far (main-content mode). */
  readonly linked = new Set<string>();
  landmarksOpen = 0;
  landmarksSeen = 0;
  /** The last flowing text written, and the count of text before it. */
  lastText = "";
  lastTextAt = -1;
  /** Furniture elements open, and text of articles nested in another so far. */
  furnitureOpen = 0;
  innerArticleText = 0;
  mainStretch: Stretch | undefined;
  readonly articles: Stretch[] = [];
  cellsOmitted = 0;

  constructor(html: string, base: URL, collect: boolean, main: boolean, findBase = true) {
    this.html = html;
    this.base = base;
    this.page = base.href.replace(/#.*/s, "");
    this.collect = collect;
    this.main = main;
    if (findBase) this.findBase();
  }

  /** Runs the tokenizer over the whole page. */
  run(): void {
    tokenize(this.html, this);
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
      const probe = new Converter(tag, this.base, false, false, false);
      probe.run();
      if (probe.baseSet) {
        this.base = probe.base;
        this.baseSet = true;
        return;
      }
      from = at + 5;
    }
  }

  /**
   * The Markdown written (in "main" mode its main content, with how many characters were left
   * out), or the `<noscript>` text of a page that shows nothing else.
   */
  markdown(): { markdown: string; omitted: number; data: boolean } {
    flush(this.w);
    const out = this.w.out;
    const main = this.main ? mainContent(this, out) : undefined;
    let markdown = main ?? out;
    const omitted = main === undefined
      ? this.cellsOmitted
      : out.length - main.length + this.cellsOmitted;
    if (markdown === "" && this.noscript !== "") markdown = collapse(this.noscript).trim();
    // A page built by JavaScript: what it carries without running it.
    const data = markdown.length < THIN ? pageData(this.description, this.data) : "";
    if (data !== "") markdown = markdown === "" ? data : markdown + "\n\n" + data;
    return { markdown, omitted, data: data !== "" };
  }

  // ---- tokenizer callbacks ----

  ontext(start: number, end: number): void {
    if (start < this.skipTextUntil) return;
    if (this.muted) {
      if (!this.dataScript && this.muteName !== "noscript") return;
    } else if (this.preDepth === 0 && this.codeDepth === 0 && !this.inTitle) {
      // Whitespace between tags, most text nodes of a page, is one collapsible space.
      if (isBlank(this.html, start, end)) {
        this.w.space = true;
        return;
      }
    }
    this.textEnd = end;
    const text = this.html.slice(start, end);
    // Scripts' data and `<xmp>` are raw text, with no character references.
    this.onText(this.dataScript || (this.preDepth > 0 && this.preRaw) ? text : decode(text, false));
  }

  onopentagname(start: number, end: number): void {
    let name = this.html.slice(start, end);
    // Rules are by lowercase name: a name found is lowercase already.
    let rule = RULES.get(name);
    if (rule === undefined) {
      name = lower(name);
      rule = RULES.get(name) ?? NONE_RULE;
    }
    this.tagName = name;
    this.tagRule = rule;
    this.attrMask = 0;
  }

  onattribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
    if (this.muted) return;
    const length = nameEnd - nameStart;
    // Most attributes are none of ours: their length and first letter tell, with no copy.
    const first = (this.html.charCodeAt(nameStart) | 32) - 97;
    if (
      length >= ATTR_FIRST.length || first < 0 || first > 25 ||
      (ATTR_FIRST[length] & (1 << first)) === 0
    ) return;
    const id = attributeId(this.html.slice(nameStart, nameEnd));
    if (id === 0 || (this.attrMask & (1 << id)) !== 0) return;
    this.attrMask |= 1 << id;
    this.attrs[id] = decode(this.html.slice(valueStart, valueEnd), true);
  }

  onopentagend(end: number, selfClosing: boolean): void {
    this.tagEnd = end;
    this.openTag(selfClosing);
  }

  onclosetag(start: number, end: number): void {
    // Well-formed markup closes the top element: compared in place, no copy of the name.
    const stack = this.stack;
    const top = stack.length - 1;
    if (!this.inTitle && top >= this.floor) {
      const name = stack[top].name;
      if (name.length === end - start && this.html.startsWith(name, start)) {
        this.popTo(top);
        return;
      }
    }
    const name = this.html.slice(start, end);
    // Elements that do nothing (`</span>`) are on the stack only inside a dropped subtree.
    if (!this.muted && !this.inTitle && RULES.get(name) === NONE_RULE) return;
    this.closeTag(lower(name));
  }

  onend(): void {
    this.popTo(0);
  }

  // ---- attributes ----

  /** The value of attribute `id` on the tag being opened, if it has it. */
  get(id: number): string | undefined {
    return (this.attrMask & (1 << id)) !== 0 ? this.attrs[id] : undefined;
  }

  /** Whether the tag being opened is hidden (`hidden`, `aria-hidden`, an inline style). */
  isHidden(): boolean {
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
      if (this.dataScript) {
        if (this.dataRead < MAX_DATA_READ) this.dataText += text;
        this.dataRead += text.length;
      } else if (this.muteName === "noscript" && this.noscript.length < MAX_NOSCRIPT) {
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
    let text = collapse(raw);
    const w = this.w;
    if (text.charCodeAt(0) === 32) {
      w.space = true;
      if (text.length === 1) return;
      text = text.slice(1);
    }
    const trailing = text.charCodeAt(text.length - 1) === 32;
    if (trailing) text = text.slice(0, -1);
    this.lastTextAt = this.textChars;
    this.lastText = text;
    this.textChars += text.length;
    if (w.links > 0 || this.textLinks > 0) this.linkChars += text.length;
    let escaped = escapeText(text, w.links > 0);
    // `!` right before a link's `[` would make it an image.
    if (!trailing && text.charCodeAt(text.length - 1) === 33 && this.linkFollows()) {
      escaped = escaped.slice(0, -1) + "\\!";
    }
    write(w, escaped, true);
    if (trailing) w.space = true;
  }

  /** Whether the page's next tag, right after the text being read, opens a link. */
  private linkFollows(): boolean {
    const html = this.html;
    const at = this.textEnd;
    const next = html.charCodeAt(at + 2);
    return html.charCodeAt(at) === 60 && (html.charCodeAt(at + 1) | 32) === 97 &&
      (isSpace(next) || next === 62);
  }

  /**
   * The text of the element just opened when it is one plain text up to `</a`, at most `max`
   * characters long: a link's text, looked at before it is read.
   */
  linkText(max: number): string | undefined {
    const html = this.html;
    const from = this.tagEnd + 1;
    const lt = html.indexOf("<", from);
    if (lt < 0 || lt - from > max) return undefined;
    if (html.charCodeAt(lt + 1) !== 47 || (html.charCodeAt(lt + 2) | 32) !== 97) return undefined;
    const text = html.slice(from, lt);
    return text.includes("&") ? undefined : text.trim();
  }

  // ---- elements ----

  private openTag(selfClosing: boolean): void {
    const name = this.tagName;
    let rule = this.tagRule;
    if (this.muted) {
      // Only the structure counts: what closes the dropped root, and what nests inside it.
      if (rule.void) return;
      if (rule !== NONE_RULE) this.impliedCloses(rule);
      if (this.muted) {
        if (!selfClosing) this.push(name, rule, false, MUTED);
        return;
      }
    }
    if (rule === NONE_RULE) {
      if (this.attrMask !== 0 && this.isHidden()) this.mute(name, rule, selfClosing);
      return;
    }
    if (rule.void) {
      rule.open!(this, name);
      return;
    }
    if (rule.skip?.(this) || this.isHidden()) {
      if (this.preDepth === 0 && this.codeDepth === 0) this.impliedCloses(rule);
      this.mute(name, rule, selfClosing);
      return;
    }
    if (this.preDepth > 0 || this.codeDepth > 0) {
      if (rule.inCode?.(this)) this.push(name, rule, false, NOT_MUTED);
      return;
    }
    this.impliedCloses(rule);
    if (rule.choose) rule = rule.choose(this);
    const role = this.main ? classify(this, name) : PLAIN;
    const flag = rule.open?.(this, name) === true;
    this.push(name, rule, flag, NOT_MUTED, role);
  }

  /** Closes what opening an element of `rule` implicitly ends, as the HTML parser does. */
  private impliedCloses(rule: Rule): void {
    // An open `<p>` (or `<figure>`, its kind) is rare when a block opens: no lookup then.
    if (rule.closesP && this.lastKind[PARA] >= 0) this.closeImplied("p");
    rule.implies?.(this);
  }

  /** Closes the topmost open element if it is of `rule`'s kind. */
  closeTopOf(rule: Rule): void {
    const top = this.stack.length - 1;
    if (top >= this.floor && this.stack[top].rule.kind === rule.kind) this.popTo(top);
  }

  /** Starts dropping the element being opened and everything inside it. */
  private mute(name: string, rule: Rule, selfClosing: boolean): void {
    if (selfClosing) return; // `<svg/>`, `<div hidden/>`: nothing inside to drop
    this.muted = true;
    this.muteName = name;
    this.dataScript = name === "script" && JSON_TYPE.test(this.get(TYPE) ?? "");
    // Raw and foreign content (scripts, templates, SVG…) cannot be closed from outside.
    if (rule.raw) this.floor = this.stack.length;
    this.push(name, rule, false, MUTE_ROOT);
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
          BR_RULE.open!(this, name);
        } else if (name === "p" && this.preDepth === 0 && this.codeDepth === 0) {
          breakLine(this.w, 2);
        }
      }
      return;
    }
    const rule = RULES.get(name) ?? NONE_RULE;
    // A closing tag does not reach out of a table cell, unless it closes table structure.
    if (!rule.inTable && rule.kind !== TABLE && this.boundary() > index) return;
    this.popTo(index);
  }

  /**
   * Closes the nearest open `name`, unless an element of kind `stop` or a cell comes first
   * (`stop` itself is no boundary when it is `CELL`'s row or table).
   */
  closeImplied(name: string, stop = TABLE): void {
    const index = this.lastName.get(name) ?? -1;
    if (index < this.floor || this.lastKind[stop] > index || this.boundary() > index) return;
    this.popTo(index);
  }

  /** The stack index of the innermost table or cell, which scope closing tags. */
  private boundary(): number {
    const kinds = this.lastKind;
    return Math.max(kinds[TABLE], kinds[CELL], kinds[FLAT_TABLE]);
  }

  private push(name: string, rule: Rule, flag: boolean, mute: number, role = PLAIN): void {
    const index = this.stack.length;
    const prevName = this.lastName.get(name) ?? -1;
    const kind = rule.kind;
    // Closed elements' records are reused: a page opens as many elements as it has tags.
    let open = this.spare.pop();
    if (open === undefined) {
      open = {
        name,
        rule,
        flag,
        mute,
        prevName,
        prevKind: this.lastKind[kind],
        role,
        sink: undefined,
        at: 0,
        text: 0,
        linkText: 0,
        links: 0,
        landmarks: 0,
        titles: 0,
        homes: 0,
        inner: 0,
      };
    } else {
      open.name = name;
      open.rule = rule;
      open.flag = flag;
      open.mute = mute;
      open.prevName = prevName;
      open.prevKind = this.lastKind[kind];
      open.role = role;
    }
    if (role !== PLAIN) enter(this, open);
    this.stack.push(open);
    this.lastName.set(name, index);
    this.lastKind[kind] = index;
  }

  /** Closes every open element from the top of the stack down to index `depth`. */
  private popTo(depth: number): void {
    const stack = this.stack;
    while (stack.length > depth) {
      const open = stack.pop()!;
      this.lastName.set(open.name, open.prevName);
      this.lastKind[open.rule.kind] = open.prevKind;
      this.close(open);
      open.sink = undefined;
      this.spare.push(open);
    }
  }

  private close(open: Open): void {
    if (open.mute !== NOT_MUTED) {
      if (open.mute === MUTE_ROOT) {
        if (this.dataScript && this.dataRead <= MAX_DATA_READ) this.data.push(this.dataText);
        this.dataScript = false;
        this.dataText = "";
        this.muted = false;
        this.muteName = "";
        this.floor = 0;
      }
      return;
    }
    if (this.preDepth > 0 || this.codeDepth > 0) {
      open.rule.closeInCode?.(this);
      return;
    }
    open.rule.close?.(this, open);
    if (open.role !== PLAIN) leave(this, open);
  }
}

/** The id of an attribute name, looked up lowercased only when not found as it is. */
function attributeId(name: string): number {
  return ATTRS.get(name) ?? ATTRS.get(lower(name)) ?? 0;
}

/**
 * Whether `html` from `start` to `end` is HTML whitespace only (no-break spaces too), or
 * zero-width spaces and joiners that show nothing.
 */
function isBlank(html: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = html.charCodeAt(i);
    if (c > 32 ? c !== 160 && c !== 0x200b && c !== 0x2060 && c !== 0xfeff : !isSpace(c)) {
      return false;
    }
  }
  return true;
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
