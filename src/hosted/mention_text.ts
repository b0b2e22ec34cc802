import { replaceMapped } from "../mapped_replace.ts";

// Text as `DomainPolicy.audit` reads it for bare mentions of a host: what a reader would type
// into a browser after seeing it. Compatibility forms are folded (NFKC: fullwidth letters and
// full stops), invisible characters dropped (zero-width, bidirectional and other
// default-ignorable ones, controls), the full stops a browser reads as dots (`。`, `．`, `｡`)
// made dots, and the usual ways of defanging a dot undone: `[.]`, `(.)`, `{.}`, `[dot]`,
// `(dot)`, `{dot}`, `\.`, `&#46;`, `&#x2E;`, `&period;`, `%2E`, and a dot with blanks before it
// (`evil .com`, `evil . com`).
//
// What is not a mention: a full stop with a blank after it only (`the end. com` ends a
// sentence), a dot across a line break, and `dot` as a bare word (`evil dot com`).

/** Text folded for mentions, and where each folded code unit came from in the original. */
export interface MentionText {
  folded: string;
  /** The original text behind folded code units `[from, to)`. */
  original(from: number, to: number): string;
}

// Controls (but tab, line feed and carriage return) and every default-ignorable code point.
const INVISIBLE =
  // deno-lint-ignore no-control-regex
  /^[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u061C\p{Default_Ignorable_Code_Point}]$/u;
// Full stops that IDNA maps to a dot (NFKC makes `․` and `﹒` dots already).
const FULL_STOPS = new Set(["\u3002", "\uFF0E", "\uFF61"]);
// Characters that may change: anything outside printable ASCII, and what starts a defanged dot.
const MAY_CHANGE = /[^\t\n\r\x20-\x7E]|[[({\\&%]|[^\S\n]\./;
// Code points that step 1 may change.
const NOT_PRINTABLE_ASCII = /[^\t\n\r\x20-\x7E]/gu;
// Defanged dots between two characters of a label (others join nothing), each form bounded so
// that no run is scanned twice.
const DEFANGED = new RegExp(
  String
    .raw`(?<=[\p{L}\p{N}\p{M}_-])(?:[^\S\n]?[[({][^\S\n]{0,2}(?:\.|dot)[^\S\n]{0,2}[\])}][^\S\n]?|\\\.|&#0{0,4}46;|&#x0{0,4}2e;|&period;|%2e|[^\S\n]{1,4}\.[^\S\n]{0,4})(?=[\p{L}\p{N}\p{M}_-])`,
  "giu",
);

/**
 * Folds `text` for mention matching, in two passes that are each linear in the text:
 * `ｅｖｉｌ．ｃｏｍ or evil[.]com` reads `evil.com or evil.com`.
 */
export function mentionText(text: string): MentionText {
  if (!MAY_CHANGE.test(text)) {
    return { folded: text, original: (from, to) => text.slice(from, to) };
  }
  const seen = new Map<string, string>();
  const step1 = replaceMapped(text, NOT_PRINTABLE_ASCII, (char) => {
    let out = seen.get(char);
    if (out === undefined) {
      out = INVISIBLE.test(char) ? "" : char.normalize("NFKC");
      if (FULL_STOPS.has(out)) out = ".";
      seen.set(char, out);
    }
    return out;
  });
  const step2 = replaceMapped(step1.text, DEFANGED, () => ".");
  return {
    folded: step2.text,
    original: (from, to) =>
      to > from ? text.slice(step1.start(step2.start(from)), step1.end(step2.end(to - 1) - 1)) : "",
  };
}
