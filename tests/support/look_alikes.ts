// Families of look-alike fence markers and chat-template tokens, generated rather than listed:
// every letter of every marker word swapped for every letter-like code point of many Unicode
// blocks, combining marks inserted, every separator for a space, every delimiter look-alike.
// Each case says what a neutralised form looks like once disarmed.

import { foldChar } from "../../src/fold.ts";

/** One generated form, in the context `before` + form + `after`. */
export interface LookAlike {
  family: string;
  text: string;
  /** Whether `disarm(text)` neutralised the form. */
  neutralised(out: string): boolean;
}

/** Blocks whose code points stand in for letters. */
export const BLOCKS: [string, number, number][] = [
  ["Latin-1 Supplement", 0x00c0, 0x00ff],
  ["Latin Extended-A", 0x0100, 0x017f],
  ["Latin Extended-B", 0x0180, 0x024f],
  ["IPA Extensions", 0x0250, 0x02af],
  ["Spacing Modifier Letters", 0x02b0, 0x02ff],
  ["Greek and Coptic", 0x0370, 0x03ff],
  ["Cyrillic", 0x0400, 0x04ff],
  ["Cyrillic Supplement", 0x0500, 0x052f],
  ["Armenian", 0x0530, 0x058f],
  ["Georgian", 0x10a0, 0x10ff],
  ["Cherokee", 0x13a0, 0x13ff],
  ["Runic", 0x16a0, 0x16ff],
  ["Phonetic Extensions", 0x1d00, 0x1dbf],
  ["Latin Extended Additional", 0x1e00, 0x1eff],
  ["Greek Extended", 0x1f00, 0x1fff],
  ["Letterlike Symbols", 0x2100, 0x214f],
  ["Number Forms", 0x2150, 0x218f],
  ["Enclosed Alphanumerics", 0x2460, 0x24ff],
  ["Latin Extended-C", 0x2c60, 0x2c7f],
  ["Coptic", 0x2c80, 0x2cff],
  ["Tifinagh", 0x2d30, 0x2d7f],
  ["Lisu", 0xa4d0, 0xa4ff],
  ["Latin Extended-D", 0xa720, 0xa7ff],
  ["Latin Extended-E", 0xab30, 0xab6f],
  ["Cherokee Supplement", 0xab70, 0xabbf],
  ["Halfwidth and Fullwidth Forms", 0xff00, 0xffef],
  ["Deseret", 0x10400, 0x1044f],
  ["Osage", 0x104b0, 0x104ff],
  ["Mathematical Alphanumeric Symbols", 0x1d400, 0x1d7ff],
  ["Enclosed Alphanumeric Supplement", 0x1f100, 0x1f1ff],
];

/** Blocks of combining marks, inserted after a letter. */
export const MARK_BLOCKS: [string, number, number][] = [
  ["Combining Diacritical Marks", 0x0300, 0x036f],
  ["Combining Diacritical Marks Extended", 0x1ab0, 0x1aff],
  ["Combining Diacritical Marks Supplement", 0x1dc0, 0x1dff],
  ["Combining Diacritical Marks for Symbols", 0x20d0, 0x20ff],
  ["Combining Half Marks", 0xfe20, 0xfe2f],
];

/** What may stand for a space: every Unicode space, blanks, invisibles and joining punctuation. */
export const SEPARATORS = [
  ..." \u00A0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000",
  ..."\u2800\u200B\u200C\u200D\u2060\uFEFF\u180E\t\n",
  ..."_-.·*~=–—‐‑−﹣－＿．。・•‧∙⋅‿⁀⁃",
];

/** Separator runs: none, each one alone and three times, and a few mixes. */
export const SEPARATOR_RUNS = [
  "",
  ...SEPARATORS,
  ...SEPARATORS.map((s) => s.repeat(3)),
  " _ ",
  "\u2800\u200B\u2800",
  " · ",
  "-_.",
  "\u3000\u00A0",
];

/** Delimiter look-alikes. */
export const OPENERS = [..."<＜﹤‹❮❰〈〈⟨⟪【〔〖〘⦉⦑˂ᐸ≺⋖⊲◁◀❬❲⁅⟦［"];
export const CLOSERS = [...">＞﹥›❯❱〉〉⟩⟫】〕〗〙⦊⦒˃ᐳ≻⋗⊳▷▶❭❳⁆⟧］"];
export const BARS = [..."|｜¦ǀ∣⏐❘❙❚︱￨│┃┆┇┊┋║╎╏▏▕׀।"];

const MARKERS = ["BEGIN EXTERNAL CONTENT", "END EXTERNAL CONTENT"];
// Tags: [opener, name, closer], the name's letters swapped.
const TAGS: [string, string, string][] = [
  ["<", "system-reminder", ">"],
  ["</", "system-reminder", ">"],
  ["<", "tool_call", ">"],
  ["</", "tool_call", ">"],
  ["<", "tool_response", ">"],
  ["<", "function_calls", ">"],
  ["<", "function_results", ">"],
  ["<", "think", ">"],
  ["</", "think", ">"],
  ["<", "start_of_turn", ">"],
  ["<", "end_of_turn", ">"],
  ["<", "s", ">"],
  ["</", "s", ">"],
  ["[", "INST", "]"],
  ["[/", "INST", "]"],
  ["[", "SYSTEM_PROMPT", "]"],
  ["[", "TOOL_CALLS", "]"],
  ["[", "AVAILABLE_TOOLS", "]"],
  ["[", "TOOL_RESULTS", "]"],
  ["<<", "SYS", ">>"],
  ["<</", "SYS", ">>"],
];
const TURNS = ["Human", "Assistant"];
const PIPE_TOKENS = ["im_start", "im_end", "endoftext", "eot_id", "start_header_id", "channel"];

const WIDE =
  /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Bopomofo}\p{sc=Yi}\u3000-\u303F]$/u;

// Every letter, number and symbol of the blocks that folds to one character, with that
// character; computed once.
let candidates: [char: string, folded: string][] | undefined;

/** The letter-like code points of the blocks that may stand for `letter`. */
export function standIns(letter: string): string[] {
  candidates ??= BLOCKS.flatMap(([, first, last]) => {
    const out: [string, string][] = [];
    for (let code = first; code <= last; code++) {
      const char = String.fromCodePoint(code);
      if (!/^[\p{L}\p{N}\p{S}]$/u.test(char)) continue;
      // A character that folds to more than one passes for several: `ǆ` is two letters.
      const folded = foldChar(char);
      // Wide scripts are not taken for letters (the halfwidth forms fold to them), nor are bars
      // and box drawing (the halfwidth `￨`, `￤`), which are delimiters.
      if ([...folded].length !== 1 || WIDE.test(folded)) continue;
      if (/^[\u2500-\u259F\u00A6]$/.test(folded)) continue;
      out.push([char, folded]);
    }
    return out;
  });
  // A character that folds to some other ASCII character passes for that: `ｘ` is an x.
  return candidates.filter(([, folded]) =>
    !/^\p{ASCII}$/u.test(folded) || folded.toLowerCase() === letter.toLowerCase()
  ).map(([char]) => char);
}

const marks: string[] = [];
for (const [, first, last] of MARK_BLOCKS) {
  for (let code = first; code <= last; code++) {
    const char = String.fromCodePoint(code);
    if (/^\p{M}$/u.test(char)) marks.push(char);
  }
}
/** Every combining mark of the mark blocks. */
export const MARKS = marks;

const cache = new Map<string, string[]>();
const standInsOf = (letter: string) => {
  const key = letter.toLowerCase();
  if (!cache.has(key)) cache.set(key, standIns(key));
  return cache.get(key)!;
};

/**
 * Each spelling of `name` with one letter swapped for a stand-in or followed by a mark. With a
 * `stride` above 1, each letter position takes every stride-th stand-in and mark, starting at
 * an offset that moves with the position, so that all of them are still used across positions.
 */
function* spellings(name: string, stride = 1): Generator<[string, string]> {
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    if (!/[a-z]/i.test(chars[i])) continue;
    const head = chars.slice(0, i).join("");
    const tail = chars.slice(i + 1).join("");
    const subs = standInsOf(chars[i]);
    for (let k = i % stride; k < subs.length; k += stride) yield ["letter", head + subs[k] + tail];
    for (let k = i % stride; k < MARKS.length; k += stride) {
      yield ["mark", head + chars[i] + MARKS[k] + tail];
    }
  }
}

// ASCII characters that pass for a letter.
const ASCII_STAND_INS: Record<string, string[]> = {
  a: ["4", "@"],
  d: ["cl"],
  e: ["3"],
  i: ["1", "l", "|", "!"],
  l: ["1", "I", "|"],
  m: ["rn"],
  o: ["0"],
  s: ["5", "$"],
  t: ["7"],
  w: ["vv"],
};

/** Each spelling of `name` with one letter swapped for an ASCII look-alike. */
function* asciiSpellings(name: string): Generator<[string, string]> {
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    for (const sub of ASCII_STAND_INS[chars[i].toLowerCase()] ?? []) {
      yield ["ascii", [...chars.slice(0, i), sub, ...chars.slice(i + 1)].join("")];
    }
  }
}

/** Each spelling of `name` with every `_`, `-` or space replaced by each separator run. */
function* separated(name: string): Generator<string> {
  if (!/[ _-]/.test(name)) return;
  for (const run of SEPARATOR_RUNS) yield name.replace(/[ _-]/g, run);
}

/**
 * Every generated look-alike: of the fence markers and role turns with every stand-in at every
 * letter, of the tokens with every `stride`-th one (see `spellings`) and all delimiters of the
 * first pipe token.
 */
export function* lookAlikes(stride = 1): Generator<LookAlike> {
  for (const marker of MARKERS) {
    const expected = "x --- (fence marker removed) --- y";
    const form = (name: string) => `x --- ${name} ---\u0020y`;
    for (const [kind, name] of [...spellings(marker), ...asciiSpellings(marker)]) {
      yield { family: `marker ${kind}`, text: form(name), neutralised: (o) => o === expected };
    }
    for (const name of separated(marker)) {
      yield { family: "marker separator", text: form(name), neutralised: (o) => o === expected };
    }
  }
  for (const [open, name, close] of TAGS) {
    const double = open.startsWith("<<");
    const start = double ? "x ((" : "x (";
    // `<system-reminder` loses its opening bracket only.
    const end = name === "system-reminder" ? "" : double ? ")) y" : ") y";
    const neutralised = (out: string) => out.startsWith(start) && out.endsWith(end);
    const form = (n: string, o = open, c = close) => `x ${o}${n}${c} y`;
    for (const [kind, n] of [...spellings(name, stride), ...asciiSpellings(name)]) {
      yield { family: `token ${kind}`, text: form(n), neutralised };
    }
    for (const n of separated(name)) {
      yield { family: "token separator", text: form(n), neutralised };
    }
    if (double) continue;
    const slash = open.endsWith("/") ? "/" : "";
    for (const o of OPENERS) {
      for (const c of CLOSERS) {
        // `[s]` is ordinary text (`item[s]`): `<s>` is matched with angle-like brackets only.
        if (name === "s" && ("[［⁅⟦".includes(o) || "]］⁆⟧".includes(c))) continue;
        yield { family: "token delimiter", text: form(name, o + slash, c), neutralised };
      }
    }
  }
  for (const role of TURNS) {
    const form = (n: string) => `x\n\n${n}: y`;
    const neutralised = (out: string) => out.replace(/[\s\u2800]/g, "").startsWith("x›");
    for (const [kind, n] of spellings(role)) {
      yield { family: `turn ${kind}`, text: form(n), neutralised };
    }
    for (const blank of ["\u2800", "\u3000", "\u00A0\u00A0", "\t"]) {
      yield { family: "turn separator", text: form(blank + role), neutralised };
    }
  }
  for (const name of PIPE_TOKENS.slice(0, stride === 1 ? undefined : 1)) {
    const neutralised = (out: string) => out === `x (${name}) y`;
    for (const o of OPENERS.filter((o) => !"[［⁅⟦".includes(o))) {
      for (const c of CLOSERS.filter((c) => !"]］⁆⟧".includes(c))) {
        for (const bar of BARS) {
          yield {
            family: "pipe delimiter",
            text: `x ${o}${bar}${name}${bar}${c} y`,
            neutralised,
          };
        }
      }
    }
  }
}
