/**
 * The tag being read (its name, rule and attributes of interest) and the stack of open
 * elements, which closes them as the HTML parser does: per tag name and per kind, the topmost
 * open element is known without a search.
 *
 * @module
 */
import { ARIA_HIDDEN, ATTRS, HIDDEN, STYLE } from "./attributes.ts";
import { CELL, FLAT_TABLE, KIND_COUNT, NONE_RULE, type Rule, TABLE } from "./rule.ts";
import { RULES } from "./rules.ts";
import { PLAIN } from "./element_roles.ts";
import type { Sink } from "./writer.ts";
import { lower } from "./text.ts";
import { decode } from "../../html/decode.ts";

/** Per attribute name length, a bit per first letter (a–z) of the names we read. */
const ATTR_FIRST = new Int32Array(16);
for (const name of ATTRS.keys()) ATTR_FIRST[name.length] |= 1 << (name.charCodeAt(0) - 97);

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
  /** Headings with a link in them, links to a site's home page and to its pages, as it opened. */
  titles: number;
  homes: number;
  sites: number;
  /** Text of the articles nested in it, as it opened. */
  inner: number;
  /** "Reply" controls, and prices, as it opened. */
  replies: number;
  prices: number;
  /** Text, link text and linked titles cut, as it opened. */
  cutText: number;
  cutLinks: number;
  cutTitles: number;
}

export const NOT_MUTED = 0;
export const MUTE_ROOT = 1;
export const MUTED = 2;

/** The tag being read and the open elements; the converter says what each element does. */
export abstract class ElementStack {
  readonly html: string;
  protected readonly stack: Open[] = [];
  private readonly spare: Open[] = [];
  /** Per tag name, and per kind, the stack index of its topmost open element (-1: none). */
  protected readonly lastName = new Map<string, number>();
  protected readonly lastKind = new Int32Array(KIND_COUNT).fill(-1);

  // The tag being read (its name, where its `>` is) and its attributes of interest.
  protected tagName = "";
  tagEnd = 0;
  protected tagRule: Rule = NONE_RULE;
  protected attrMask = 0;
  private readonly attrs: string[] = [];

  // A dropped subtree stays on the stack, muted, so that whatever closes its root (its own
  // closing tag, an implied close, an ancestor's closing tag) ends it as in a browser.
  protected muted = false;
  /** Closing tags do not reach below this index: raw or foreign content is self-contained. */
  protected floor = 0;

  constructor(html: string) {
    this.html = html;
  }

  /** Acts as an element closes (popped from the stack). */
  protected abstract close(open: Open): void;

  onopentagname(start: number, end: number): void {
    const slot = slotAt(this.html, start, end);
    if (slot >= 0) {
      this.tagName = LOWER_NAMES[slot];
      this.tagRule = NAME_RULES[slot];
    } else {
      this.tagName = lower(this.html.slice(start, end));
      this.tagRule = RULES.get(this.tagName) ?? NONE_RULE;
    }
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
    const slot = slotAt(this.html, nameStart, nameEnd);
    const id = slot >= 0 ? NAME_ATTRS[slot] : attributeId(this.html.slice(nameStart, nameEnd));
    if (id === 0 || (this.attrMask & (1 << id)) !== 0) return;
    this.attrMask |= 1 << id;
    this.attrs[id] = decode(this.html.slice(valueStart, valueEnd), true);
  }

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

  /** Whether an element named `name` is open. */
  isOpen(name: string): boolean {
    return (this.lastName.get(name) ?? -1) >= 0;
  }

  /** Closes the topmost open element if it is of `rule`'s kind. */
  closeTopOf(rule: Rule): void {
    const top = this.stack.length - 1;
    if (top >= this.floor && this.stack[top].rule.kind === rule.kind) this.popTo(top);
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
  protected boundary(): number {
    const kinds = this.lastKind;
    return Math.max(kinds[TABLE], kinds[CELL], kinds[FLAT_TABLE]);
  }

  /** Pushes an element opened; its record is returned. */
  protected push(name: string, rule: Rule, flag: boolean, mute: number, role = PLAIN): Open {
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
        sites: 0,
        inner: 0,
        replies: 0,
        prices: 0,
        cutText: 0,
        cutLinks: 0,
        cutTitles: 0,
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
    this.stack.push(open);
    this.lastName.set(name, index);
    this.lastKind[kind] = index;
    return open;
  }

  /** Closes every open element from the top of the stack down to index `depth`. */
  protected popTo(depth: number): void {
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
}

/** The id of an attribute name in any case (one too long for the names kept). */
function attributeId(name: string): number {
  return ATTRS.get(lower(name)) ?? 0;
}

/**
 * Tag and attribute names read lately, by length and first and last letter, with what each
 * names: its lowercase form, its rule as a tag and its id as an attribute. Names repeat through
 * a page, and a name found here needs no copy, no case folding and no `Map` lookup (V8 hashes a
 * fresh string on every one).
 */
const NAMES: string[] = [];
const NAME_KEYS = new Int32Array(1024).fill(-1);
const LOWER_NAMES: string[] = [];
const NAME_RULES: Rule[] = [];
const NAME_ATTRS: number[] = [];

/**
 * The slot of {@linkcode NAMES} holding the name from `start` to `end` of `html`, read now if it
 * was not; -1 for a name that is not kept: one of more than 12 characters, or whose first or
 * last character is not ASCII (the key packs them in 7 bits each).
 */
export function slotAt(html: string, start: number, end: number): number {
  const length = end - start;
  const first = html.charCodeAt(start);
  const last = html.charCodeAt(end - 1);
  if (length > 12 || first > 127 || last > 127) return -1;
  // Length, first and last letter tell a name of up to two; the letters between are compared.
  const key = length | first << 4 | last << 11;
  const slot = (length * 31 + first * 7 + last) & 1023;
  if (NAME_KEYS[slot] === key) {
    let i = 1;
    while (i < length - 1 && html.charCodeAt(start + i) === NAMES[slot].charCodeAt(i)) i++;
    if (i >= length - 1) return slot;
  }
  const read = html.slice(start, end);
  NAME_KEYS[slot] = key;
  const folded = lower(read);
  NAMES[slot] = read;
  LOWER_NAMES[slot] = folded;
  NAME_RULES[slot] = RULES.get(folded) ?? NONE_RULE;
  NAME_ATTRS[slot] = ATTRS.get(folded) ?? 0;
  return slot;
}

/** The lowercase form of the name in `slot`. */
export function slotName(slot: number): string {
  return LOWER_NAMES[slot];
}

/** The rule of the tag name in `slot`. */
export function slotRule(slot: number): Rule {
  return NAME_RULES[slot];
}
