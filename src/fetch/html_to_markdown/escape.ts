/**
 * Escaping page text so that it stays text: only what would change the Markdown structure
 * where it stands gets a backslash, to cost the fewest tokens.
 *
 * @module
 */

/** Characters that may need escaping anywhere in a line; most text has none. */
const SPECIAL = /[\\*_`<[\]]/;
/**
 * Outside links: a backslash that would escape what follows, emphasis and code markers (an
 * underscore only at a word's edge, where it can open or close emphasis), a `<` that could open a
 * tag or an autolink (before a letter, `/`, `!` or `?`, or at the end of the text, where what
 * follows is not known), and a `]` that a `(` would turn into a link.
 */
const INLINE =
  /\\(?=[!-/:-@[-`{-~])|[*`]|<(?=[A-Za-z/!?]|$)|\](?=\()|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/** Inside link text, every bracket too: the text must not end the link or nest another. */
const IN_LINK =
  /\\(?=[!-/:-@[-`{-~])|[*`[\]]|<(?=[A-Za-z/!?]|$)|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/** Alt text: brackets and backslashes, as it sits inside `![…]`. */
const ALT = /[[\]\\]/g;

/** Escapes flowing text, `inLink` when it is a link's text. */
export function escapeText(text: string, inLink: boolean): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(inLink ? IN_LINK : INLINE, "\\$&");
}

/** Escapes alt text for `![alt](…)`. */
export function escapeAlt(text: string): string {
  return text.replace(ALT, "\\$&");
}

/** Lines that the text at a line's start would turn into a block: heading, quote, list, rule. */
const LINE_START = /^(?:#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|[-=]+[ \t]*$|~~~)/;
const ORDERED = /^\d{1,9}(?=[.)](?:[ \t]|$))/;

/** Escapes text written at the start of a line, so it cannot open a block. */
export function escapeLineStart(text: string): string {
  const c = text.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    const match = ORDERED.exec(text);
    return match ? match[0] + "\\" + text.slice(match[0].length) : text;
  }
  // `#`, `>`, `-`, `+`, `=`, `~`: anything else is safe (`*`, `_` and `` ` `` are escaped inline).
  if (c !== 35 && c !== 62 && c !== 45 && c !== 43 && c !== 61 && c !== 126) return text;
  return LINE_START.test(text) ? "\\" + text : text;
}
