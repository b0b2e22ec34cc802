/**
 * What each element does, one rule record per kind of element: how opening it closes others
 * (as the HTML parser's implied end tags do), what it writes when it opens and when it closes.
 * Elements with no rule are not tracked at all: they neither render nor close anything.
 *
 * @module
 */
import type { Converter, Open } from "./converter.ts";
import { HREF, OPEN, REVERSED, START, VALUE } from "./attributes.ts";
import { finishCode, finishPre, openCodeWrapper, openPre, setLanguage } from "./code.ts";
import { closePicture, image, meta, source } from "./images.ts";
import { writeTex } from "./math.ts";
import { fragmentLink, noteMarker } from "./footnotes.ts";
import { isHomePage } from "./main_content.ts";
import {
  closeCell,
  closeRow,
  finishTable,
  markLayout,
  MAX_TABLE_DEPTH,
  openCell,
  openRow,
  openTable,
  tableSection,
} from "./tables.ts";
import { formatUrl, isWebUrl, resolve, stripTracking } from "./urls.ts";
import {
  breakLine,
  closeInline,
  indent,
  lineBreak,
  lines,
  openInline,
  openLink,
  outdent,
  write,
} from "./writer.ts";

/** One kind of element's behaviour. */
export interface Rule {
  /** Its kind: the stack keeps, per kind, the topmost open element of it. */
  readonly kind: number;
  /** Acts once where it stands and is never pushed (void and head elements). */
  readonly void?: boolean;
  /** Raw or foreign content, dropped whole: no closing tag from outside reaches into it. */
  readonly raw?: boolean;
  /** Opening it closes an open `<p>`, as in HTML. */
  readonly closesP?: boolean;
  /** Table structure: its closing tag reaches out of a cell. */
  readonly inTable?: boolean;
  /** Whether the element being opened is dropped with everything inside. */
  skip?(c: Converter): boolean;
  /** The rule that actually applies (a table nested too deep is a plain block). */
  choose?(c: Converter): Rule;
  /** Closes what opening it implicitly ends. */
  implies?(c: Converter): void;
  /** Acts on opening; `true` sets the element's flag (a marker pair was opened). */
  open?(c: Converter, name: string): boolean | void;
  /** Acts on closing. */
  close?(c: Converter, element: Open): void;
  /** Inside `<pre>` or `<code>`: whether it is tracked there (and acts on opening). */
  inCode?(c: Converter): boolean;
  /** Inside `<pre>` or `<code>`: acts on closing. */
  closeInCode?(c: Converter): void;
}

// Kinds. Elements that share one share a kind; void elements are never pushed.
const NONE = 0;
const BLOCK = 1;
export const PARA = 2;
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
export const TABLE = 16;
const ROW = 17;
export const CELL = 18;
const PICTURE = 19;
const SKIP = 20;
const DIALOG = 21;
export const FLAT_TABLE = 22;
const OPTION = 23;
const SECTION = 24;
const BOX = 25;
/** How many kinds there are. */
export const KIND_COUNT = 26;

/** Ordered or bullet list being written. */
export interface ListState {
  ordered: boolean;
  next: number;
  step: number;
}

/**
 * A rule with every field present, in one order: every rule then has one shape, and the calls
 * through it stay monomorphic.
 */
function define(rule: Rule): Rule {
  return {
    kind: rule.kind,
    void: rule.void ?? false,
    raw: rule.raw ?? false,
    closesP: rule.closesP ?? false,
    inTable: rule.inTable ?? false,
    skip: rule.skip,
    choose: rule.choose,
    implies: rule.implies,
    open: rule.open,
    close: rule.close,
    inCode: rule.inCode,
    closeInCode: rule.closeInCode,
  };
}

/** Elements without a rule of their own. */
export const NONE_RULE: Rule = define({ kind: NONE });

const BLOCK_RULE: Rule = define({
  kind: BLOCK,
  closesP: true,
  open(c, name) {
    breakLine(c.w, 1);
    return name === "div" && openCodeWrapper(c);
  },
  close(c, element) {
    breakLine(c.w, 1);
    if (element.flag) c.blockLang = "";
  },
});

/** `<p>` and `<figure>`: a blank line around. */
const P_RULE: Rule = define({
  kind: PARA,
  closesP: true,
  open: (c) => breakLine(c.w, 2),
  close: (c) => breakLine(c.w, 2),
});

const HEADING_RULE: Rule = define({
  kind: HEADING,
  closesP: true,
  implies: (c) => c.closeTopOf(HEADING_RULE),
  open(c, name) {
    markLayout(c);
    breakLine(c.w, 2);
    c.w.lead = "#".repeat(name.charCodeAt(1) - 48) + " ";
    c.w.headings++;
    c.titleLinked = false;
  },
  close(c) {
    c.w.lead = "";
    c.w.headings--;
    breakLine(c.w, 2);
  },
});

const LIST_RULE: Rule = define({
  kind: LIST,
  closesP: true,
  open(c, name) {
    const start = parseInt(c.get(START) ?? "", 10);
    c.lists.push({
      ordered: name === "ol",
      next: Number.isFinite(start) ? clampNumber(start) : 1,
      step: c.get(REVERSED) !== undefined ? -1 : 1,
    });
    breakLine(c.w, c.lists.length > 1 ? 1 : 2);
  },
  close(c) {
    c.lists.pop();
    breakLine(c.w, c.lists.length > 0 ? 1 : 2);
  },
});

function closeIndented(c: Converter): void {
  outdent(c.w);
  breakLine(c.w, 1);
}

const ITEM_RULE: Rule = define({
  kind: ITEM,
  implies: (c) => c.closeImplied("li", LIST),
  open(c) {
    breakLine(c.w, 1);
    const list = c.lists[c.lists.length - 1];
    let marker = "- ";
    if (list?.ordered) {
      const value = parseInt(c.get(VALUE) ?? "", 10);
      if (Number.isFinite(value)) list.next = value;
      marker = `${clampNumber(list.next)}. `;
      list.next += list.step;
    }
    marker = noteMarker(c) ?? marker;
    indent(c.w, " ".repeat(marker.length), marker);
  },
  close: closeIndented,
});

function closeDefinition(c: Converter): void {
  c.closeImplied("dd", DL);
  c.closeImplied("dt", DL);
}

const DL_RULE: Rule = define({
  kind: DL,
  closesP: true,
  open: (c) => breakLine(c.w, 2),
  close: (c) => breakLine(c.w, 2),
});

const DT_RULE: Rule = define({
  kind: DT,
  implies: closeDefinition,
  open: (c) => breakLine(c.w, 1),
  close: (c) => breakLine(c.w, 1),
});

const DD_RULE: Rule = define({
  kind: DD,
  implies: closeDefinition,
  open(c) {
    breakLine(c.w, 1);
    indent(c.w, "  ", ": ");
  },
  close: closeIndented,
});

const QUOTE_RULE: Rule = define({
  kind: QUOTE,
  closesP: true,
  open(c) {
    breakLine(c.w, 2);
    indent(c.w, "> ", "");
  },
  close(c) {
    outdent(c.w);
    breakLine(c.w, 2);
  },
});

const PRE_RULE: Rule = define({
  kind: PRE,
  closesP: true,
  open: openPre,
  inCode(c) {
    if (c.preDepth === 0) return false;
    c.preDepth++;
    return true;
  },
  closeInCode(c) {
    if (c.preDepth > 0 && --c.preDepth === 0) finishPre(c);
  },
});

const CODE_RULE: Rule = define({
  kind: CODE,
  open(c) {
    c.codeDepth = 1;
    c.codeText = "";
  },
  inCode(c) {
    if (c.preDepth > 0) setLanguage(c);
    else c.codeDepth++;
    return true;
  },
  closeInCode(c) {
    if (c.preDepth === 0 && --c.codeDepth === 0) finishCode(c);
  },
});

function closeMarker(c: Converter, element: Open): void {
  if (element.flag) closeInline(c.w);
}

/**
 * The web address of the `<a>` being opened, without tracking parameters: `undefined` when it
 * links nowhere (no `href`, a fragment of this page, not a URL, or a script: a `javascript:`
 * link is a button), `OFF_WEB` when it links off the web (`mailto:`, `file:`, an app's scheme…).
 */
function linkTarget(c: Converter): string | undefined {
  const href = c.get(HREF);
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (trimmed === "" || trimmed.charCodeAt(0) === 35 /* # */) return undefined;
  const url = resolve(trimmed, c.base);
  if (url === undefined) return undefined;
  if (!isWebUrl(url)) return SCRIPT.test(url) ? undefined : OFF_WEB;
  // A place on this very page, written in full, is a fragment all the same.
  const hash = url.indexOf("#");
  if (hash >= 0 && hash === c.page.length && url.startsWith(c.page)) return undefined;
  return stripTracking(url);
}
const OFF_WEB = "";
/** Schemes of links that run a script or hold their content: controls, not links. */
const SCRIPT = /^(?:javascript|vbscript|data):/;

const LINK_RULE: Rule = define({
  kind: LINK,
  implies: (c) => c.closeImplied("a"),
  // A link off the web (`mailto:`, `file:`…) is only text, but a link all the same to tell
  // page furniture: a share bar of mail links is one.
  // So is, in main-content mode, a heading that is only a link: a title, a teaser's or the
  // post's own permalink, whose text is what a reader needs and whose target one more click the
  // agent can do without.
  choose(c) {
    const url = c.linkUrl = linkTarget(c);
    if (c.w.headings > 0) {
      if (!c.titleLinked) {
        c.titleLinked = true;
        c.linkedTitles++;
      }
      if (isHomePage(url)) c.homeLinks++;
    }
    if (url === OFF_WEB || (c.main && url !== undefined && c.w.lead !== "" && isWholeHeading(c))) {
      return TEXT_LINK_RULE;
    }
    // In main-content mode a target is written once: the same address again is only its text.
    // Not counting targets written in open furniture, which is likely cut.
    if (c.main && url !== undefined) {
      if (c.linked.has(url)) return TEXT_LINK_RULE;
      if (c.furnitureOpen === 0) c.linked.add(url);
    }
    return LINK_RULE;
  },
  open(c) {
    // Links the browser shows side by side must not read as one word.
    if (c.w.afterLink) c.w.space = true;
    const url = c.linkUrl;
    if (url === undefined) {
      const href = c.get(HREF)?.trim();
      if (href !== undefined && href.length > 1 && href.charCodeAt(0) === 35 /* # */) {
        fragmentLink(c, href.slice(1));
      }
      return false;
    }
    c.linkCount++;
    // A link whose text is its own address is printed once, as the address.
    const text = c.linkText(2 * url.length);
    if (text !== undefined && sameAddress(text, url) && formatUrl(url) === url) {
      c.skipTextUntil = c.html.indexOf("<", c.tagEnd + 1);
      c.textChars += text.length;
      c.linkChars += text.length;
      write(c.w, url);
      return false;
    }
    return openLink(c.w, url);
  },
  close(c, element) {
    closeMarker(c, element);
    c.w.afterLink = true;
  },
});

/** A link written as its text (off the web, or a title): counted as a link's all the same. */
const TEXT_LINK_RULE: Rule = define({
  kind: LINK,
  implies: LINK_RULE.implies,
  open(c) {
    if (c.w.afterLink) c.w.space = true;
    c.linkCount++;
    c.textLinks++;
  },
  close(c) {
    c.textLinks--;
    c.w.afterLink = true;
  },
});

/** Controls and other inline boxes the browser sets apart from the text around them. */
const BOX_RULE: Rule = define({
  kind: BOX,
  open(c) {
    c.w.space = true;
  },
  close(c) {
    c.w.space = true;
  },
});

const SCHEME = /^(?:https?:\/\/)?(?:www\.)?/i;
/** A link's end, then the end of the heading it is in. */
const LINK_THEN_HEADING_END = /^<\/a\s*>\s*<\/h[1-6]\s*>/i;

/** Whether the `<a>` being opened, with plain text, is all that is left of its heading. */
function isWholeHeading(c: Converter): boolean {
  const text = c.linkText(200);
  if (text === undefined) return false;
  const at = c.html.indexOf("</", c.tagEnd + 1);
  return LINK_THEN_HEADING_END.test(c.html.slice(at, at + 40));
}

/** Whether link text shows the link's own address, give or take its scheme and a final slash. */
function sameAddress(text: string, url: string): boolean {
  if (text === url) return true;
  // Most link text is words: longer, shorter or spaced, it is no address.
  if (text.length > url.length + 1 || text.length < url.length - 13 || text.includes(" ")) {
    return false;
  }
  const a = text.replace(SCHEME, "");
  const b = url.replace(SCHEME, "");
  return a !== "" && (a === b || a + "/" === b || a === b + "/");
}

function marker(kind: number, text: string): Rule {
  return define({ kind, open: (c) => openInline(c.w, text), close: closeMarker });
}

const TABLE_RULE: Rule = define({
  kind: TABLE,
  closesP: true,
  choose: (c) => c.tables.length >= MAX_TABLE_DEPTH ? FLAT_TABLE_RULE : TABLE_RULE,
  open: openTable,
  close: finishTable,
});

/** A table nested too deep: its cells would be copied into every enclosing one (quadratic). */
const FLAT_TABLE_RULE: Rule = define({
  kind: FLAT_TABLE,
  open(c) {
    markLayout(c);
    c.flatTables++;
    breakLine(c.w, 1);
  },
  close(c) {
    c.flatTables--;
    breakLine(c.w, 1);
  },
});

function closeCells(c: Converter): void {
  c.closeImplied("td", ROW);
  c.closeImplied("th", ROW);
}

/** `<thead>`, `<tbody>`, `<tfoot>`: each ends the open cell, row and section. */
const SECTION_RULE: Rule = define({
  kind: SECTION,
  inTable: true,
  implies(c) {
    closeCells(c);
    c.closeImplied("tr", TABLE);
    c.closeImplied("thead", TABLE);
    c.closeImplied("tbody", TABLE);
    c.closeImplied("tfoot", TABLE);
  },
  open: tableSection,
  close: (c) => tableSection(c, ""),
});

const ROW_RULE: Rule = define({
  kind: ROW,
  inTable: true,
  implies(c) {
    closeCells(c);
    c.closeImplied("tr", TABLE);
  },
  choose: (c) => c.flatTables > 0 ? BLOCK_RULE : ROW_RULE,
  open: openRow,
  close: closeRow,
});

const CELL_RULE: Rule = define({
  kind: CELL,
  inTable: true,
  implies: closeCells,
  choose: (c) => c.flatTables > 0 ? BLOCK_RULE : CELL_RULE,
  open: openCell,
  close: closeCell,
});

const PICTURE_RULE: Rule = define({
  kind: PICTURE,
  open(c) {
    c.pictureDepth++;
  },
  close: closePicture,
});

const SKIP_RULE: Rule = define({ kind: SKIP, raw: true, skip: () => true });
/** `<math>`: dropped once its TeX is written in its place; else its text shows. */
const MATH_RULE: Rule = define({
  kind: SKIP,
  raw: true,
  skip: (c) => c.preDepth === 0 && c.codeDepth === 0 && !c.isHidden() && writeTex(c),
});
const DIALOG_RULE: Rule = define({ kind: DIALOG, skip: (c) => c.get(OPEN) === undefined });

/** Renders nothing, but an `<option>` closes the one before it. */
const OPTION_RULE: Rule = define({
  kind: OPTION,
  implies: (c) => c.closeTopOf(OPTION_RULE),
});

/** Whether a void element shows: not hidden, and not inside code (where only `<br>` counts). */
function shows(c: Converter): boolean {
  return !c.isHidden() && c.preDepth === 0 && c.codeDepth === 0;
}

/** `<br>`, also as the stray `</br>` browsers read as one. */
export const BR_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (c.isHidden()) return;
    if (c.preDepth > 0) c.preText += "\n";
    else if (c.codeDepth > 0) c.codeText += " ";
    else lineBreak(c.w);
  },
});

const HR_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (!shows(c)) return;
    c.closeImplied("p");
    breakLine(c.w, 2);
    lines(c.w, ["---"]);
    breakLine(c.w, 2);
  },
});

const IMG_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (shows(c)) image(c);
  },
});

const SOURCE_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (shows(c)) source(c);
  },
});

const TITLE_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    // <title> is raw text: nothing but its closing tag can follow.
    c.inTitle = true;
    c.titleText = "";
  },
});

const BASE_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    const href = c.get(HREF);
    if (!c.baseSet && href !== undefined) {
      c.baseSet = true;
      const url = resolve(href.trim(), c.base);
      if (url) c.base = new URL(url);
    }
  },
});

const META_RULE: Rule = define({ kind: NONE, void: true, open: meta });
const VOID_RULE: Rule = define({ kind: NONE, void: true, open() {} });

/** Every element with a rule, by tag name. */
export const RULES = new Map<string, Rule>();
function rule(rule: Rule, names: string): void {
  for (const name of names.split(" ")) RULES.set(name, rule);
}
rule(
  BLOCK_RULE,
  "div section article main header footer nav aside address center details summary figcaption form fieldset legend caption hgroup body html search menuitem",
);
rule(P_RULE, "p figure");
rule(HEADING_RULE, "h1 h2 h3 h4 h5 h6");
rule(LIST_RULE, "ul ol menu dir");
rule(ITEM_RULE, "li");
rule(DL_RULE, "dl");
rule(DT_RULE, "dt");
rule(DD_RULE, "dd");
rule(QUOTE_RULE, "blockquote");
rule(PRE_RULE, "pre listing xmp");
rule(CODE_RULE, "code kbd samp tt");
rule(LINK_RULE, "a");
rule(marker(EMPHASIS, "*"), "em i var dfn");
rule(marker(STRONG, "**"), "strong b");
rule(marker(STRIKE, "~~"), "s strike del");
rule(TABLE_RULE, "table");
rule(SECTION_RULE, "thead tbody tfoot");
rule(ROW_RULE, "tr");
rule(CELL_RULE, "td th");
rule(PICTURE_RULE, "picture");
rule(
  SKIP_RULE,
  "script style noscript template svg canvas iframe object select datalist noembed noframes",
);
rule(DIALOG_RULE, "dialog");
rule(MATH_RULE, "math");
rule(IMG_RULE, "img");
rule(BR_RULE, "br");
rule(HR_RULE, "hr");
rule(SOURCE_RULE, "source");
rule(META_RULE, "meta");
rule(BASE_RULE, "base");
rule(TITLE_RULE, "title");
rule(VOID_RULE, "area col embed input link param track wbr keygen frame basefont bgsound");
rule(OPTION_RULE, "option");
// Common elements that do nothing themselves, listed so that their names need no lowercasing.
rule(
  NONE_RULE,
  "span font small sup sub abbr cite time mark u ins q",
);
rule(BOX_RULE, "button label output meter progress textarea");

/** Ordered-list numbers as CommonMark reads them: 0 to 999 999 999. */
function clampNumber(n: number): number {
  return Math.min(Math.max(n, 0), 999_999_999);
}
