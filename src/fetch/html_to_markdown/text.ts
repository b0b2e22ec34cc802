/**
 * Small text helpers shared by the converter's modules: case, whitespace, clipping.
 *
 * @module
 */

// Runs of HTML whitespace other than a lone space (which needs no replacing, and is most of them).
const WHITESPACE = /[\t\n\f\r\u00a0][\t\n\f\r \u00a0]*| [\t\n\f\r \u00a0]+/g;

/** `name` in lower case; most markup is lowercase already, and then no copy is made. */
export function lower(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) return name.toLowerCase();
  }
  return name;
}

/**
 * Whether `text` holds `prefix` at `at`. For a prefix as short as a tag name a loop costs less
 * than `startsWith`, which Deno's V8 does not inline.
 */
export function startsAt(text: string, prefix: string, at: number): boolean {
  if (at + prefix.length > text.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (text.charCodeAt(at + i) !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

/** HTML whitespace runs collapsed to one space each, as rendering does. */
export function collapse(text: string): string {
  return text.replace(WHITESPACE, " ");
}

/** Whether `c` is an HTML whitespace character code. */
export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}

/** `text` cut to `max` characters with an ellipsis, never between the halves of a pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + "…";
}

/**
 * Whether `html` from `start` to `end` is HTML whitespace only (no-break spaces too), or
 * zero-width spaces and joiners that show nothing.
 */
export function isBlank(html: string, start: number, end: number): boolean {
  // Text that starts visible is told at once; a run of spaces is scanned faster by a sticky
  // regular expression than by a loop of `charCodeAt`.
  const c = html.charCodeAt(start);
  if (c > 32 && c !== 0xa0 && c !== 0x200b && c !== 0x2060 && c !== 0xfeff) return false;
  BLANK.lastIndex = start;
  BLANK.test(html);
  return BLANK.lastIndex >= end;
}
const BLANK = /[\t\n\f\r \u00a0\u200b\u2060\ufeff]*/y;
