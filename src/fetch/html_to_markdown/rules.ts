/**
 * What each element does, one rule record per kind of element, by tag name; and the rules of
 * elements that render nothing of their own (dropped content, dialogs, options, pictures).
 * Elements with no rule are not tracked at all: they neither render nor close anything.
 *
 * @module
 */
import { OPEN } from "./attributes.ts";
import { closePicture } from "./images.ts";
import { writeTex } from "./math.ts";
import {
  define,
  DIALOG,
  EMPHASIS,
  NONE_RULE,
  OPTION,
  PICTURE,
  type Rule,
  SKIP,
  STRIKE,
  STRONG,
} from "./rule.ts";
import {
  BLOCK_RULE,
  CODE_RULE,
  DD_RULE,
  DL_RULE,
  DT_RULE,
  HEADING_RULE,
  ITEM_RULE,
  LIST_RULE,
  P_RULE,
  PRE_RULE,
  QUOTE_RULE,
} from "./block_rules.ts";
import { BOX_RULE, LINK_RULE, marker } from "./inline_rules.ts";
import { CELL_RULE, ROW_RULE, SECTION_RULE, TABLE_RULE } from "./table_rules.ts";
import {
  BASE_RULE,
  BR_RULE,
  HR_RULE,
  IMG_RULE,
  LINK_ELEMENT_RULE,
  META_RULE,
  SOURCE_RULE,
  TITLE_RULE,
  VOID_RULE,
} from "./void_rules.ts";

const PICTURE_RULE: Rule = define({
  kind: PICTURE,
  open(c) {
    c.pictureDepth++;
  },
  close: closePicture,
});

const SKIP_RULE: Rule = define({ kind: SKIP, raw: true, skip: () => true });
/**
 * Foreign content (SVG) and embedded objects, dropped whole; an end tag of an element open
 * around one ends it too, as in a browser (an icon's `<svg>` left open in a `<div>`).
 */
const DROP_RULE: Rule = define({ kind: SKIP, skip: () => true });
/** `<math>`: dropped once its TeX is written in its place; else its text shows. */
const MATH_RULE: Rule = define({
  kind: SKIP,
  skip: (c) => c.preDepth === 0 && c.codeDepth === 0 && !c.isHidden() && writeTex(c),
});
const DIALOG_RULE: Rule = define({ kind: DIALOG, skip: (c) => c.get(OPEN) === undefined });

/** Renders nothing, but an `<option>` closes the one before it. */
const OPTION_RULE: Rule = define({
  kind: OPTION,
  implies: (c) => c.closeTopOf(OPTION_RULE),
});

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
rule(SKIP_RULE, "script style noscript template iframe select noembed noframes");
rule(DROP_RULE, "svg canvas object datalist");
rule(DIALOG_RULE, "dialog");
rule(MATH_RULE, "math");
rule(IMG_RULE, "img");
rule(BR_RULE, "br");
rule(HR_RULE, "hr");
rule(SOURCE_RULE, "source");
rule(META_RULE, "meta");
rule(BASE_RULE, "base");
rule(TITLE_RULE, "title");
rule(LINK_ELEMENT_RULE, "link");
rule(VOID_RULE, "area col embed input param track wbr keygen frame basefont bgsound");
rule(OPTION_RULE, "option");
// Common elements that do nothing themselves, listed so that their names need no lowercasing.
rule(
  NONE_RULE,
  "span font small sup sub abbr cite time mark u ins q",
);
rule(BOX_RULE, "button label output meter progress textarea");
