// The folded form of text that `disarm` matches on and `lookAlike` compares: what a reader sees,
// whatever code points spell it.

import { replaceMapped } from "./mapped_replace.ts";

/**
 * The text as the patterns see it, with a map back to the original: each code point is
 * decomposed for compatibility (NFKD, so fullwidth and mathematical letters become ASCII), loses
 * its combining marks, has letters of other scripts that pass for Latin ones replaced by those
 * (a confusables skeleton); the patterns ignore ASCII case. `start(i)` and `end(i)` give the
 * span of the original code point behind folded code unit `i`.
 */
export function fold(text: string): {
  folded: string;
  start: (index: number) => number;
  end: (index: number) => number;
} {
  const seen = new Map<string, string>();
  const { text: folded, start, end } = replaceMapped(text, tables().foldable, (char) => {
    let out = seen.get(char);
    if (out === undefined) seen.set(char, out = foldChar(char));
    return out;
  });
  return { folded, start, end };
}

export function foldChar(char: string): string {
  const { confusable } = tables();
  const direct = confusable.get(char);
  if (direct !== undefined) return direct;
  let out = "";
  for (const part of char.normalize("NFKD")) {
    if (!COMBINING.test(part)) out += confusable.get(part) ?? part;
  }
  return out;
}

/** A combining mark: it belongs to the character before it. */
export const COMBINING = /^\p{M}$/u;

// Letters and signs that pass for the ASCII ones our patterns name: a curated part of Unicode's
// confusables (Cyrillic, Greek, Armenian and Cherokee letters, Latin small capitals, bracket,
// bar, slash, dash and colon look-alikes). `(`, `)` and `›` are left alone: disarm writes them.
const LOOK_ALIKES: Record<string, string> = {
  a: "аАαΑɑᴀ⍺",
  b: "ЬьВвΒʙᏴ",
  c: "сСϲϹᴄⲥ",
  d: "ԁᴅᎠ",
  e: "еЕεΕᴇҽᎬ℮",
  f: "Ϝғꜰ",
  g: "ɡɢԍᏀ",
  h: "һНнΗʜᎻ",
  i: "іІιΙıɪӀӏᎥ",
  j: "јЈϳᴊ",
  k: "кКκΚᴋᏦ",
  l: "ʟⅼ",
  m: "мМΜᴍᎷ",
  n: "ɴΝՈո",
  o: "оОοΟᴏօՕσ",
  p: "рРρΡᴘᏢ",
  q: "ԛԚ",
  r: "гʀᴦᏒ",
  s: "ѕЅꜱᏚ",
  t: "тТτΤᴛᎢ",
  u: "υսᴜʋ",
  v: "νѵᴠᏙ",
  w: "ԝᴡᎳ",
  x: "хХχΧ",
  y: "уУγΥʏү",
  z: "ΖᴢᏃ",
  "<": "˂ᐸ❮〈⟨",
  ">": "˃ᐳ❯〉⟩",
  "|": "ǀ∣│׀⏐❘︱︲︳",
  "[": "⁅〚⟦",
  "]": "⁆〛⟧",
  "/": "∕⁄╱⧸",
  "-": "‐‑‒–—―−﹣",
  ":": "∶ː꞉",
};

let folding: { confusable: Map<string, string>; foldable: RegExp } | undefined;

/** The look-alike table and the pattern of what may fold, made on first use (not at import). */
function tables(): { confusable: Map<string, string>; foldable: RegExp } {
  if (folding) return folding;
  const confusable = new Map<string, string>();
  for (const [ascii, chars] of Object.entries(LOOK_ALIKES)) {
    for (const char of chars) confusable.set(char, ascii);
  }
  // The characters `foldChar` may change: compatibility forms, letters that carry or are marks,
  // and the look-alikes above. Others (ASCII, whose capitals change when case-folded but not
  // here, and most of CJK) are left out, to keep folding cheap.
  const foldable = new RegExp(
    String
      .raw`(?![\x00-\x7F])[\u00A0-\u036F\u1D00-\u1FFF\u2000-\u2BFF\uA700-\uA7FF\uFB00-\uFB4F\uFE10-\uFE6F\uFF00-\uFFEF\u{1D400}-\u{1D7FF}\u{1F100}-\u{1F1FF}\p{M}\p{Changes_When_NFKC_Casefolded}${
      [...confusable.keys()].join("")
    }]`,
    "gu",
  );
  return folding = { confusable, foldable };
}
