/**
 * The rules of void and head elements, which act once where they stand and are never pushed:
 * line breaks, rules, images, and what the head tells (title, base address, metadata).
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { HREF } from "./attributes.ts";
import { canonical } from "./own_site.ts";
import { image, meta, source } from "./images.ts";
import { resolve } from "./urls.ts";
import { breakLine, lineBreak, lines } from "./writer.ts";
import { define, NONE, type Rule } from "./rule.ts";

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
    if (c.preDepth > 0) c.preLine = (c.preText += "\n").length;
    else if (c.codeDepth > 0) c.codeText += " ";
    else lineBreak(c.w);
  },
});

export const HR_RULE: Rule = define({
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

export const IMG_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (shows(c)) image(c);
  },
});

export const SOURCE_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    if (shows(c)) source(c);
  },
});

export const TITLE_RULE: Rule = define({
  kind: NONE,
  void: true,
  open(c) {
    // <title> is raw text: nothing but its closing tag can follow.
    c.inTitle = true;
    c.titleText = "";
  },
});

export const BASE_RULE: Rule = define({
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

export const META_RULE: Rule = define({ kind: NONE, void: true, open: meta });

/** `<link>`: the page's canonical address names its own site. */
export const LINK_ELEMENT_RULE: Rule = define({
  kind: NONE,
  void: true,
  open: (c) => canonical(c),
});
export const VOID_RULE: Rule = define({ kind: NONE, void: true, open() {} });
