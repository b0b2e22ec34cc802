/**
 * The rules of block elements: paragraphs, headings, lists, definition lists, quotes, and the
 * code blocks and spans whose text is written as it stands.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { REVERSED, START, VALUE } from "./attributes.ts";
import { codeLine, finishCode, finishPre, openCodeWrapper, openPre, setLanguage } from "./code.ts";
import { noteMarker } from "./footnotes.ts";
import { markLayout } from "./tables.ts";
import { breakLine, indent, outdent } from "./writer.ts";
import {
  BLOCK,
  CODE,
  DD,
  define,
  DL,
  DT,
  HEADING,
  ITEM,
  LIST,
  NONE,
  PARA,
  PRE,
  QUOTE,
  type Rule,
} from "./rule.ts";

/** Ordered or bullet list being written. */
export interface ListState {
  ordered: boolean;
  next: number;
  step: number;
}

export const BLOCK_RULE: Rule = define({
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
export const P_RULE: Rule = define({
  kind: PARA,
  closesP: true,
  open: (c) => breakLine(c.w, 2),
  close: (c) => breakLine(c.w, 2),
});

export const HEADING_RULE: Rule = define({
  kind: HEADING,
  closesP: true,
  implies: (c) => c.closeTopOf(HEADING_RULE),
  open(c, name) {
    markLayout(c);
    breakLine(c.w, 2);
    c.w.lead = "#".repeat(name.charCodeAt(1) - 48) + " ";
    c.w.headings++;
    // A heading inside a link (a card whose whole box is the link) is a linked title too.
    c.titleLinked = c.w.links > 0 || c.textLinks > 0;
    if (c.titleLinked) c.linkedTitles++;
  },
  close(c) {
    c.w.lead = "";
    c.w.headings--;
    breakLine(c.w, 2);
  },
});

export const LIST_RULE: Rule = define({
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
    // Whether the text before it introduces it, outside furniture (see `leave`, `stretches.ts`).
    return c.furnitureOpen === 0 && c.lastText.endsWith(":");
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

export const ITEM_RULE: Rule = define({
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

export const DL_RULE: Rule = define({
  kind: DL,
  closesP: true,
  open: (c) => breakLine(c.w, 2),
  close: (c) => breakLine(c.w, 2),
});

export const DT_RULE: Rule = define({
  kind: DT,
  implies: closeDefinition,
  open: (c) => breakLine(c.w, 1),
  close: (c) => breakLine(c.w, 1),
});

export const DD_RULE: Rule = define({
  kind: DD,
  implies: closeDefinition,
  open(c) {
    breakLine(c.w, 1);
    indent(c.w, "  ", ": ");
  },
  close: closeIndented,
});

export const QUOTE_RULE: Rule = define({
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

export const PRE_RULE: Rule = define({
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

/** A block inside code: its lines (see `codeLine`). */
export const CODE_LINE_RULE: Rule = define({ kind: NONE, closeInCode: codeLine });

export const CODE_RULE: Rule = define({
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

/** Ordered-list numbers as CommonMark reads them: 0 to 999 999 999. */
function clampNumber(n: number): number {
  return Math.min(Math.max(n, 0), 999_999_999);
}
