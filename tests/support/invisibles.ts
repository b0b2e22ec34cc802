/**
 * One or more characters of every family that reads as nothing, as a space, or as something
 * else (reordering what follows): for tests on the whole class.
 */
export const INVISIBLES: readonly string[] = [
  // Bidirectional controls: embeddings, overrides, isolates, marks.
  ..."\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C",
  // Zero-width and other format characters.
  ..."\u200B\u200C\u200D\u2060\u2061\u2062\u2063\u2064\uFEFF\u00AD\u180E\u206A\u206F\uFFF9",
  // Tags, variation selectors, the grapheme joiner, Hangul fillers, blank Braille.
  ..."\u{E0041}\u{E007F}\uFE0F\uFE00\u{E0100}\u034F\u115F\u1160\u3164\uFFA0\u2800",
  // Spaces other than U+0020, and line and paragraph separators.
  ..."\u00A0\u1680\u2000\u2003\u2007\u200A\u202F\u205F\u3000\u2028\u2029",
  // Controls, C0 and C1.
  ..."\x00\x1B\x7F\x85\x9B",
];

/** How `showInvisible` writes `char` out: `⟨U+202E⟩`. */
export function shownAs(char: string): string {
  return `⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}
