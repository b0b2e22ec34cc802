/**
 * The characters a reader cannot see, or sees as something else: controls (but tab, line feed
 * and carriage return, which lay text out), format characters (zero-width, bidirectional
 * controls such as U+202E that reorder what follows, tag characters, the soft hyphen), line and
 * paragraph separators, every space but U+0020, every default-ignorable code point (variation
 * selectors, Hangul fillers, the combining grapheme joiner), the blank Braille pattern, lone
 * surrogates and private-use characters. The operator console embeds this source, so that it
 * shows what the server shows.
 */
export const INVISIBLE_SOURCE: string = String
  .raw`[\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Co}\u2800]`;

const INVISIBLE = new RegExp(INVISIBLE_SOURCE, "gu");

/**
 * `text` with every character a reader could not see, or would see as something else, written
 * out as its code point: `⟨U+202E⟩` for the right-to-left override, `⟨U+200B⟩` for a zero-width
 * space, `⟨U+00A0⟩` for a no-break space. Tab, line feed, carriage return and U+0020 stay as
 * they are. Show third-party text this way wherever a person decides on it (an operator reading
 * a question or an approval): what the person reads is then what the agent gets, in order, with
 * nothing hidden. Runs in linear time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { showInvisible } from "@outpost/agent-tools/human";
 * assert.equal(showInvisible("account \u202E0987-6543\u202C"), "account ⟨U+202E⟩0987-6543⟨U+202C⟩");
 * assert.equal(showInvisible("alice\u200B\u2060"), "alice⟨U+200B⟩⟨U+2060⟩");
 * assert.equal(showInvisible("two\tlines\n"), "two\tlines\n");
 * ```
 */
export function showInvisible(text: string): string {
  return String(text).replace(INVISIBLE, shown);
}

function shown(char: string): string {
  if (char === " " || char === "\t" || char === "\n" || char === "\r") return char;
  return `⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}
