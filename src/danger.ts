// What `disarm` looks for, matched on the folded form of the text (see `fold.ts`), where
// fullwidth, mathematical, accented and known look-alike letters are ASCII already.
//
// Look-alikes are not chased script by script: in a marker word, every letter position takes
// its ASCII letter (either case, or a digit or sign that passes for it, `rn` for `m`), or ANY
// character outside ASCII that can render as a letter — one the fold left alone, so it is not
// known to pass for some other letter. Where the word has a space or a `_`, any run of
// separators stands: blanks (Unicode spaces, U+2800), dashes, dots, underscores, or none at all
// (invisible characters are gone before matching). Delimiters take their look-alikes too: any
// opening or closing bracket outside ASCII, angle and bar signs, box drawing bars.
//
// Readable text stays readable: wide scripts (Han, kana, Hangul, Yi) and pictographs are not
// taken for letters, a marker word must stand whole (no letter or digit right before or after),
// and its letters must add up word by word. The one price: a run of words of another script
// with the marker's letter counts (3, 8 and 7 letters) reads as the marker and is replaced.
//
// The patterns run on a skeleton of the folded text, of the same length: every character
// outside ASCII is first classed once (cached) and written as the ASCII sign of its class — a
// letter as NUL (an astral one as NUL and SOH), a blank as a space, joining punctuation as `-`,
// a bar as `|`, an opener as `<`, a closer as `>`, a double angle as STX or ETX, anything else
// as EOT. Those controls cannot occur in the text, which has lost its controls by then. So the
// patterns stay small and compiled instead of repeating large Unicode classes hundreds of times.
//
// Every alternative is anchored on its first character and has a fixed number of letter
// positions; the only unbounded runs (separators) cannot start a match, so one pass stays linear.

/** A part of an alternative: `keep` stays as written, a string replaces the part. */
type Part = [role: "keep" | string, source: string];

/** Characters that render blank. */
const BLANKS = /^[\s\u2800]$/u;
/** Punctuation that may stand for a space inside a marker, besides ASCII `_ - . * ~ =`. */
const JOINERS =
  /^[\p{Pd}\p{Pc}\u00B7\u2022\u2024-\u2027\u2043\u2219\u22C5\u23AF\u2500\u2501\u2504\u2505\u2508\u2509\u254C\u254D\u2550\u2E31\u2E33\u2E3A\u2E3B\u3002\u30FB\uFF61\uFF65]$/u;
/** Bars that pass for `|`. */
const BARS =
  /^[\u00A6\u01C0\u0964\u0965\u05C0\u2016\u2223\u2225\u23B8\u23B9\u23D0\u2502\u2503\u2506\u2507\u250A\u250B\u2551\u254E\u254F\u2575\u2577\u2579\u257B\u257D\u257F\u258F\u2595\u2758-\u275A\uFE31\uFE32\uFFE8]$/u;
/** Double angles, which pass for `<<` and `>>` (and for one). */
const DOUBLE_OPENERS = /^[\u00AB\u300A\u27EA]$/u;
const DOUBLE_CLOSERS = /^[\u00BB\u300B\u27EB]$/u;
/** Any opening or closing bracket outside ASCII (low quotation marks aside), or an angle sign. */
const OPENERS =
  /^(?:[\u2039\u02C2\u1438\u143A\u227A\u22B2\u22D6\u25C0-\u25C3\u29FC\u2AA1]|(?![\u201A\u201E])\p{Ps})$/u;
const CLOSERS =
  /^(?:[\u203A\u02C3\u1433\u1435\u227B\u22B3\u22D7\u25B6-\u25B9\u29FD\u2AA2]|\p{Pe})$/u;
/** Signs that pass for `:` and `/`. */
const COLONS = /^[\u0589\u05C3\u0703\u0704\u16EC\u205A\uFE13\uFE55\u2E2C]$/u;
const SLASHES = /^[\u27CB\u29F5]$/u;
/**
 * What cannot render as a letter: controls and format characters, quotation marks, wide
 * scripts and pictographs — unless it is a letter-like or enclosed letter sign (`ℹ`, `Ⓜ`,
 * `🅰`), which emoji presentation does not stop from reading as a letter.
 */
const NOT_LETTERS =
  /^[\p{Cc}\p{Cf}\p{Cs}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Extended_Pictographic}\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Bopomofo}\p{sc=Yi}\u3000-\u303F]$/u;
const LETTER_SIGNS = /^[\u2100-\u214F\u2460-\u24FF\u{1F100}-\u{1F1FF}]$/u;

/** The ASCII sign of the class of `char`, a code point outside ASCII, as long as `char`. */
function classify(char: string): string {
  const sign = BLANKS.test(char)
    ? " "
    : JOINERS.test(char)
    ? "-"
    : BARS.test(char)
    ? "|"
    : DOUBLE_OPENERS.test(char)
    ? "\x02"
    : DOUBLE_CLOSERS.test(char)
    ? "\x03"
    : OPENERS.test(char)
    ? "<"
    : CLOSERS.test(char)
    ? ">"
    : COLONS.test(char)
    ? ":"
    : SLASHES.test(char)
    ? "/"
    : LETTER_SIGNS.test(char) || !NOT_LETTERS.test(char)
    ? "\0\x01"
    : "\x04\x04";
  return sign.length > char.length ? sign.slice(0, char.length) : sign;
}

// The sign of each code unit in the Basic Multilingual Plane once classed (0: not yet; the table
// is made on first use), and of astral characters seen so far.
let bmpSigns: Uint8Array | undefined;
const ASTRAL_SIGNS = new Map<number, string>();

/**
 * `folded` with every character outside ASCII written as the sign of its class: one loop over
 * code units into a buffer, so that a page of a million such characters costs no more than
 * one of ASCII.
 */
export function skeleton(folded: string): string {
  if (!/[^\p{ASCII}]/u.test(folded)) return folded;
  const signs = bmpSigns ??= new Uint8Array(0x10000);
  const units = new Uint16Array(folded.length);
  for (let i = 0; i < folded.length; i++) {
    const unit = folded.charCodeAt(i);
    if (unit < 0x80) units[i] = unit;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < folded.length) {
      const point = folded.codePointAt(i)!;
      let sign = ASTRAL_SIGNS.get(point);
      if (sign === undefined) {
        sign = classify(String.fromCodePoint(point));
        if (ASTRAL_SIGNS.size < 65_536) ASTRAL_SIGNS.set(point, sign);
      }
      units[i] = sign.charCodeAt(0);
      if (point > 0xffff) units[++i] = sign.charCodeAt(1);
    } else {
      if (signs[unit] === 0) signs[unit] = classify(String.fromCharCode(unit)).charCodeAt(0) + 1;
      units[i] = signs[unit] - 1;
    }
  }
  let out = "";
  for (let i = 0; i < units.length; i += 8_192) {
    out += String.fromCharCode(...units.subarray(i, i + 8_192));
  }
  return out;
}

// Blanks inside a token stay on its line: no template token spans lines, and a token read across a
// line break would take in the `›` that disarm itself puts before a role name there.
const BLANK = String.raw`[^\S\n]`;
const SEPARATOR = String.raw`[\s_\-.*~=]`;
const BAR = String.raw`\|`;
const OPEN = String.raw`[<\x02]`;
const CLOSE = String.raw`[>\x03]`;
const OPEN_ANY = String.raw`[<\[\x02]`;
const CLOSE_ANY = String.raw`[>\]\x03]`;
const OPEN_DOUBLE = String.raw`(?:<<|\x02)`;
const CLOSE_DOUBLE = String.raw`(?:>>|\x03)`;
const SLASH = String.raw`[/\\]?`;
const COLON = ":";
/** A character outside ASCII that may render as a letter, in the skeleton. */
const OTHER_LETTER = String.raw`\0\x01?`;

// ASCII characters that pass for a letter besides itself (the pattern ignores case).
const ASCII_LOOK_ALIKES: Record<string, string> = {
  a: "4@",
  b: "8",
  e: "3",
  g: "96",
  i: "l1|!",
  l: "i1|",
  o: "0",
  s: "5$",
  t: "7+",
  z: "2",
};
const PAIRS: Record<string, string> = { d: "cl", m: "rn", w: "vv" };

function letter(char: string): string {
  const pair = PAIRS[char] ? `|${PAIRS[char]}` : "";
  const ascii = (char + (ASCII_LOOK_ALIKES[char] ?? "")).replace(/[|$+\\\]^-]/g, "\\$&");
  return `(?:[${ascii}]|${OTHER_LETTER}${pair})`;
}

/** A marker word or token name; each space, `_` or `-` in it is a run of separators. */
function word(text: string): string {
  return text.split(/[ _-]/).map((part) => [...part].map(letter).join("")).join(
    `${SEPARATOR}*`,
  );
}

const words = (...list: string[]) => `(?:${list.map(word).join("|")})`;

const EDGE = String.raw`[a-z0-9\0\x01]`;
const INSIDE = `${BLANK}{0,8}${SLASH}${BLANK}{0,8}`;

const alternatives = (): Part[][] => [
  // Chat-template pipe tokens: ChatML, Llama 3, Phi, harmony, DeepSeek's full-width bars.
  [
    ["(", `${OPEN}${BAR}`],
    ["keep", String.raw`[^|<>\x02\x03\n]{0,64}`],
    [")", `${BAR}${CLOSE}`],
  ],
  // Bracketed and tag tokens: Llama 2 and Mistral, Gemma turns, tool calls (Hermes, Qwen,
  // Claude), reasoning.
  [
    ["(", OPEN_ANY],
    [
      "keep",
      INSIDE + words(
        "inst",
        "system_prompt",
        "tool_calls",
        "tool_call",
        "available_tools",
        "tool_results",
        "tool_response",
        "tool_content",
        "start_of_turn",
        "end_of_turn",
        "function_calls",
        "function_results",
        "think",
      ) + `${BLANK}{0,8}`,
    ],
    [")", CLOSE_ANY],
  ],
  // End of sequence, `<s>` and `</s>`: angle brackets only, as `item[s]` is ordinary text.
  [["(", OPEN], ["keep", `${INSIDE}${letter("s")}${BLANK}{0,8}`], [")", CLOSE]],
  [["((", OPEN_DOUBLE], ["keep", `${INSIDE}${word("sys")}${BLANK}{0,8}`], ["))", CLOSE_DOUBLE]],
  // A tag a model may read as the host's own: `<`, blanks and line breaks, the name.
  [["(", OPEN_ANY], ["keep", String.raw`\s*${SLASH}\s*` + word("system-reminder")]],
  // Our own markers, as whole words.
  [[
    "(fence marker removed)",
    `(?<!${EDGE})${words("begin", "end")}${SEPARATOR}*${word("external content")}(?!${EDGE})`,
  ]],
  // The legacy `\n\nHuman:` / `\n\nAssistant:` turns: a line that opens with a role name.
  [["keep", String.raw`(?<=^|\n)[^\S\n]*`], ["› ", ""], [
    "keep",
    `${words("human", "assistant")}${BLANK}*${COLON}`,
  ]],
];

/**
 * All alternatives in one pattern for the skeleton, every part a capture group, with indices;
 * and where each alternative's parts sit among its groups: `[first group, parts]`. Built on first
 * use: a program (a Worker at cold start) that never disarms text never pays for it.
 */
export function dangerPattern(): { pattern: RegExp; parts: [number, Part[]][] } {
  return danger ??= buildDanger();
}

let danger: { pattern: RegExp; parts: [number, Part[]][] } | undefined;

function buildDanger(): { pattern: RegExp; parts: [number, Part[]][] } {
  const list = alternatives();
  const parts: [number, Part[]][] = [];
  let group = 1;
  for (const alternative of list) {
    parts.push([group, alternative]);
    group += alternative.length;
  }
  const pattern = new RegExp(
    list.map((parts) => parts.map(([, source]) => `(${source})`).join("")).join("|"),
    "gid",
  );
  return { pattern, parts };
}
