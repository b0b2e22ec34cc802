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
// Every alternative is anchored on its first character and has a fixed number of letter
// positions; the only unbounded runs (separators) cannot start a match, so one pass stays linear.

/** A part of an alternative: `keep` stays as written, a string replaces the part. */
type Part = [role: "keep" | string, source: string];

/** Characters that render blank. */
const BLANKS = String.raw`\s\u2800`;
/** What may stand for a space inside a marker: blanks, and punctuation used to join words. */
const SEPARATORS = BLANKS +
  String
    .raw`_\-.*~=\p{Pd}\p{Pc}\u00B7\u2022\u2024-\u2027\u2043\u2219\u22C5\u23AF\u2500\u2501\u2504\u2505\u2508\u2509\u254C\u254D\u2550\u2E31\u2E33\u2E3A\u2E3B\u3002\u30FB\uFF61\uFF65`;
/** Bars that pass for `|`. */
const BARS = String
  .raw`|\u00A6\u01C0\u0964\u0965\u05C0\u2016\u2223\u2225\u23B8\u23B9\u23D0\u2502\u2503\u2506\u2507\u250A\u250B\u2551\u254E\u254F\u2575\u2577\u2579\u257B\u257D\u257F\u258F\u2595\u2758-\u275A\uFE31\uFE32\uFFE8`;
/** Signs that pass for `<` and `>` without being brackets. */
const ANGLE_OPEN = String.raw`<\u2039\u02C2\u1438\u143A\u227A\u22B2\u22D6\u25C0-\u25C3\u29FC\u2AA1`;
const ANGLE_CLOSE = String
  .raw`>\u203A\u02C3\u1433\u1435\u227B\u22B3\u22D7\u25B6-\u25B9\u29FD\u2AA2`;
/** Signs that pass for `:` and `/`. */
const COLONS = String.raw`:\u0589\u05C3\u0703\u0704\u16EC\u205A\uFE13\uFE55\u2E2C`;
const SLASHES = String.raw`/\\\u27CB\u29F5`;

const BLANK = `[${BLANKS}]`;
const SEPARATOR = `[${SEPARATORS}]`;
const BAR = `[${BARS}]`;
// Any opening or closing bracket outside ASCII (low quotation marks aside), or an angle sign.
const OPEN = String.raw`(?:[${ANGLE_OPEN}]|[^\P{Ps}\x00-\x7F\u201A\u201E])`;
const CLOSE = String.raw`(?:[${ANGLE_CLOSE}]|[^\P{Pe}\x00-\x7F])`;
const OPEN_ANY = String.raw`(?:[\[${ANGLE_OPEN}]|[^\P{Ps}\x00-\x7F\u201A\u201E])`;
const CLOSE_ANY = String.raw`(?:[\]${ANGLE_CLOSE}]|[^\P{Pe}\x00-\x7F])`;
const OPEN_DOUBLE = String.raw`(?:${OPEN}${OPEN}|[\u00AB\u300A\u27EA])`;
const CLOSE_DOUBLE = String.raw`(?:${CLOSE}${CLOSE}|[\u00BB\u300B\u27EB])`;
const SLASH = `[${SLASHES}]?`;
const COLON = `[${COLONS}]`;

/**
 * A character outside ASCII that may render as a letter: not a blank, separator, bracket,
 * quotation mark, bar, angle, colon or slash sign, not a control or format character, and not
 * from a wide script or a pictograph — unless it is a letter-like or enclosed letter sign (`ℹ`,
 * `Ⓜ`, `🅰`), which emoji presentation does not stop from reading as a letter.
 */
const OTHER_LETTER = String
  .raw`(?:[^\x00-\x7F${SEPARATORS}${BARS}${ANGLE_OPEN}${ANGLE_CLOSE}${COLONS}${SLASHES}\p{Cc}\p{Cf}\p{Cs}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Extended_Pictographic}\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Bopomofo}\p{sc=Yi}\u3000-\u303F]|[\u2100-\u214F\u2460-\u24FF\u{1F100}-\u{1F1FF}])`;

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
  // A bar passes for an i or an l.
  const bars = char === "i" || char === "l" ? BARS : "";
  return `(?:[${ascii}${bars}]|${OTHER_LETTER}${pair})`;
}

/** A marker word or token name; each space, `_` or `-` in it is a run of separators. */
function word(text: string): string {
  return text.split(/[ _-]/).map((part) => [...part].map(letter).join("")).join(
    `${SEPARATOR}*`,
  );
}

const words = (...list: string[]) => `(?:${list.map(word).join("|")})`;

const EDGE = `[a-z0-9]|${OTHER_LETTER}`;
const INSIDE = `${BLANK}{0,8}${SLASH}${BLANK}{0,8}`;

const ALTERNATIVES: Part[][] = [
  // Chat-template pipe tokens: ChatML, Llama 3, Phi, harmony, DeepSeek's full-width bars.
  [
    ["(", `${OPEN}${BAR}`],
    ["keep", `(?:(?!${BAR}|${OPEN}|${CLOSE})[^\\n]){0,64}`],
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
  [["(", OPEN_ANY], ["keep", `${BLANK}*${SLASH}${BLANK}*${word("system-reminder")}`]],
  // Our own markers, as whole words.
  [[
    "(fence marker removed)",
    `(?<!${EDGE})${words("begin", "end")}${SEPARATOR}*${word("external content")}(?!${EDGE})`,
  ]],
  // The legacy `\n\nHuman:` / `\n\nAssistant:` turns: a line that opens with a role name.
  [["keep", String.raw`(?<=^|\n)(?:[^\S\n]|\u2800)*`], ["› ", ""], [
    "keep",
    `${words("human", "assistant")}${BLANK}*${COLON}`,
  ]],
];

/** Where each alternative's parts sit among the capture groups: `[first group, parts]`. */
export const DANGER_PARTS: [number, Part[]][] = [];
let group = 1;
for (const parts of ALTERNATIVES) {
  DANGER_PARTS.push([group, parts]);
  group += parts.length;
}

/** All alternatives in one pattern, every part a capture group, with match indices. */
export const DANGER = new RegExp(
  ALTERNATIVES.map((parts) => parts.map(([, source]) => `(${source})`).join("")).join("|"),
  "giud",
);
