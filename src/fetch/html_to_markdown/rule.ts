/**
 * The shape of a rule: what one kind of element does (how opening it closes others, what it
 * writes when it opens and when it closes), and the kinds the stack of open elements keeps.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import type { Open } from "./element_stack.ts";

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
export const NONE = 0;
export const BLOCK = 1;
export const PARA = 2;
export const HEADING = 3;
export const LIST = 4;
export const ITEM = 5;
export const DL = 6;
export const DT = 7;
export const DD = 8;
export const QUOTE = 9;
export const PRE = 10;
export const CODE = 11;
export const LINK = 12;
export const EMPHASIS = 13;
export const STRONG = 14;
export const STRIKE = 15;
export const TABLE = 16;
export const ROW = 17;
export const CELL = 18;
export const PICTURE = 19;
export const SKIP = 20;
export const DIALOG = 21;
export const FLAT_TABLE = 22;
export const OPTION = 23;
export const SECTION = 24;
export const BOX = 25;
/** How many kinds there are. */
export const KIND_COUNT = 26;

/**
 * A rule with every field present, in one order: every rule then has one shape, and the calls
 * through it stay monomorphic.
 */
export function define(rule: Rule): Rule {
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
