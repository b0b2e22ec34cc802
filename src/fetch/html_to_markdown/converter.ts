/**
 * The converter's core: the tokenizer's callbacks, the text they read, and what opening and
 * closing an element does with the stack of open elements (`element_stack.ts`). What each
 * element does is its rule record (`rules.ts`); how Markdown is written is the writer's
 * (`writer.ts`).
 *
 * @module
 */
import { BR_RULE } from "./void_rules.ts";
import { CODE_LINE_RULE } from "./block_rules.ts";
import { codeLine } from "./code.ts";
import { NONE_RULE, PARA, type Rule, TABLE } from "./rule.ts";
import { RULES } from "./rules.ts";
import { TYPE } from "./attributes.ts";
import { MAX_DATA_READ, pageData, THIN } from "./page_data.ts";
import { breakLine, contents, flush, position, write } from "./writer.ts";
import { collapse, isBlank, isSpace, lower, startsAt } from "./text.ts";
import { baseScanEnd } from "./base_tags.ts";
import { escapeText } from "./escape.ts";
import { decode } from "../../html/decode.ts";
import { mainContent } from "./main_content.ts";
import { classify, PLAIN } from "./element_roles.ts";
import { enter, leave, noteShortText, PARAGRAPH, SHORT_TEXT } from "./stretches.ts";
import {
  MUTE_ROOT,
  MUTED,
  NOT_MUTED,
  type Open,
  slotAt,
  slotName,
  slotRule,
} from "./element_stack.ts";
import { ConverterState } from "./converter_state.ts";
import { siteOf } from "./own_site.ts";
import { tokenize, type TokenSink } from "../../html/tokenizer.ts";

/** Text kept from `<noscript>` for pages that show nothing else. */
const MAX_NOSCRIPT = 4_000;

const JSON_TYPE = /^\s*application\/(?:ld\+)?json\s*$/i;

/** The state of one conversion; rules and the writer's helpers read and change it. */
export class Converter extends ConverterState implements TokenSink {
  /** The page's own address, without its fragment: links to a place on it are fragments. */
  readonly page: string;
  base: URL;
  baseSet = false;
  readonly collect: boolean;
  /** How images are written in the Markdown (see `HtmlToMarkdownOptions.inlineImages`). */
  inlineImages: "markdown" | "alt" | "none" = "none";
  /** Every link keeps its address in main mode too (see `HtmlToMarkdownOptions.links`). */
  keepLinks = false;

  /** Where the text being read ends in the page. */
  private textEnd = 0;
  private muteName = "";
  private noscript = "";
  /** Inside a JSON `<script>` (JSON-LD, framework data): its text, and the blocks read so far. */
  private dataScript = false;
  private dataText = "";
  private dataRead = 0;
  private readonly data: string[] = [];
  /** Main-content detection: on in "main" mode. */
  readonly main: boolean;

  constructor(html: string, base: URL, collect: boolean, main: boolean, findBase = true) {
    super(html);
    this.base = base;
    this.page = base.href.replace(/#.*/s, "");
    this.site = siteOf(this, this.page);
    this.collect = collect;
    this.main = main;
    if (findBase) this.findBase();
  }

  /** Runs the tokenizer over the whole page. */
  run(): void {
    tokenize(this.html, this);
  }

  /**
   * Browsers resolve every link against the first `<base href>`, even links before it: a
   * converter of the head up to its `<base>` tags reads it as the main pass would. A later
   * `<base>` applies from where it stands.
   */
  private findBase(): void {
    const end = baseScanEnd(this.html);
    if (end === 0) return;
    const probe = new Converter(this.html.slice(0, end), this.base, false, false, false);
    probe.run();
    this.base = probe.base;
    this.baseSet = probe.baseSet;
  }

  /**
   * The Markdown written (in "main" mode its main content, with how many characters were left
   * out), or the `<noscript>` text of a page that shows nothing else.
   */
  markdown(): { markdown: string; omitted: number; data: boolean } {
    const w = this.w;
    flush(w);
    const main = this.main ? mainContent(this, w) : undefined;
    let markdown = main ?? contents(w);
    const omitted = main === undefined
      ? this.cellsOmitted
      : position(w) - main.length + this.cellsOmitted;
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
      if (name.length === end - start && startsAt(this.html, name, start)) {
        this.popTo(top);
        return;
      }
    }
    const slot = slotAt(this.html, start, end);
    const name = slot >= 0 ? slotName(slot) : lower(this.html.slice(start, end));
    // Elements that do nothing (`</span>`) are on the stack only inside a dropped subtree.
    if (
      !this.muted && !this.inTitle && (slot >= 0 ? slotRule(slot) : RULES.get(name)) === NONE_RULE
    ) {
      return;
    }
    this.closeTag(name);
  }

  onend(): void {
    this.popTo(0);
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
      if (text.charCodeAt(text.length - 1) === 10) this.preLine = this.preText.length;
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
    if (text.length >= PARAGRAPH) this.proseAt = this.textChars;
    this.textChars += text.length;
    if (text.length <= SHORT_TEXT) noteShortText(this, text);
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

  // ---- elements ----

  private openTag(selfClosing: boolean): void {
    const name = this.tagName;
    let rule = this.tagRule;
    if (this.muted) {
      // Only the structure counts: what closes the dropped root, and what nests inside it.
      if (rule.void) return;
      if (rule !== NONE_RULE) this.impliedCloses(rule);
      if (this.muted) {
        if (!selfClosing || !isForeign(this.muteName, name)) this.push(name, rule, false, MUTED);
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
      else if (rule.closesP && !selfClosing) {
        // Tracked, so that its closing tag closes it, not an element of its name around the code.
        codeLine(this);
        this.push(name, CODE_LINE_RULE, false, NOT_MUTED);
      }
      return;
    }
    this.impliedCloses(rule);
    if (rule.choose) rule = rule.choose(this);
    const role = this.main ? classify(this, name) : PLAIN;
    const flag = rule.open?.(this, name) === true;
    const open = this.push(name, rule, flag, NOT_MUTED, role);
    if (role !== PLAIN) enter(this, open);
  }

  /** Closes what opening an element of `rule` implicitly ends, as the HTML parser does. */
  private impliedCloses(rule: Rule): void {
    // An open `<p>` (or `<figure>`, its kind) is rare when a block opens: no lookup then.
    if (rule.closesP && this.lastKind[PARA] >= 0) this.closeImplied("p");
    rule.implies?.(this);
  }

  /** Starts dropping the element being opened and everything inside it. */
  private mute(name: string, rule: Rule, selfClosing: boolean): void {
    if (selfClosing && isForeign(name, name)) return; // `<svg/>`: nothing inside to drop
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

  protected close(open: Open): void {
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
    const depth = this.stack.length;
    // What held a list cut as a menu closes: no more of its blocks can follow it.
    if (depth < this.listedDepth) this.listed = undefined;
    if (open.role !== PLAIN) leave(this, open, depth);
  }
}

/**
 * Whether `/>` closes the element `name` opened under the dropped root `root`: only in foreign
 * content (SVG's). An HTML element ignores it, as browsers do: `<script …/>`, `<div hidden/>`
 * open an element that runs to its closing tag, and what it holds is dropped all the same.
 */
function isForeign(root: string, name: string): boolean {
  return root === "svg" || name === "svg";
}
