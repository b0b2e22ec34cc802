/**
 * Character references decoded as the HTML standard decodes them in text and in attribute
 * values (legacy references without `;` included). The tokenizer reports raw offsets, which lets
 * it skip through text and attribute values: most have no `&`, and only those read and kept are
 * decoded here.
 *
 * @module
 */
import { LONGEST_LEGACY_NAME, NAMED_REFERENCES } from "./named_references.ts";

/** `text` with its character references decoded, as in an attribute value if `attribute`. */
export function decode(text: string, attribute: boolean): string {
  let at = text.indexOf("&");
  if (at < 0) return text;
  let out = "";
  let from = 0;
  while (at >= 0) {
    const found = text.charCodeAt(at + 1) === 0x23
      ? numeric(text, at + 2)
      : named(text, at + 1, attribute);
    if (found) {
      out += text.slice(from, at) + found[0];
      from = found[1];
    }
    at = text.indexOf("&", Math.max(at + 1, from));
  }
  return out + text.slice(from);
}

// At most one character more than the longest name, so that a longer run is seen as one.
const NAME = /[\dA-Za-z]{0,33}/y;
const DECIMAL = /\d*/y;
const HEXADECIMAL = /[\dA-Fa-f]*/y;

/**
 * The named reference at `start` (after the `&`) and where it ends: the name followed by `;`,
 * or else the longest legacy name it starts with — which in an attribute value stays as written
 * when a `=`, letter or digit follows it.
 */
function named(text: string, start: number, attribute: boolean): [string, number] | undefined {
  NAME.lastIndex = start;
  const run = NAME.exec(text)![0];
  const references = namedReferences();
  const end = start + run.length;
  if (text.charCodeAt(end) === 0x3b) {
    const value = references.get(`${run};`);
    if (value !== undefined) return [value, end + 1];
  }
  for (let length = Math.min(run.length, LONGEST_LEGACY_NAME); length > 0; length--) {
    const value = references.get(run.slice(0, length));
    if (value === undefined) continue;
    if (attribute && /[=\dA-Za-z]/.test(text.charAt(start + length))) return undefined;
    return [value, start + length];
  }
  return undefined;
}

/** The numeric reference whose digits (after `#`, or `#x` in hexadecimal) start at `start`. */
function numeric(text: string, start: number): [string, number] | undefined {
  const hexadecimal = (text.charCodeAt(start) | 0x20) === 0x78;
  const digits = hexadecimal ? HEXADECIMAL : DECIMAL;
  digits.lastIndex = hexadecimal ? start + 1 : start;
  const run = digits.exec(text)![0];
  if (run === "") return undefined;
  let end = digits.lastIndex;
  if (text.charCodeAt(end) === 0x3b) end++;
  // Past eight significant digits, any number is beyond Unicode (and beyond exact arithmetic).
  const significant = run.replace(/^0+/, "");
  const point = significant.length > 8
    ? Infinity
    : parseInt(significant || "0", hexadecimal ? 16 : 10);
  return [String.fromCodePoint(replaceCodePoint(point)), end];
}

/** What the standard reads a numeric reference to `point` as: C1 controls as Windows-1252. */
function replaceCodePoint(point: number): number {
  if (point === 0 || (point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return 0xfffd;
  return (point >= 0x80 && point <= 0x9f && WINDOWS_1252[point - 0x80]) || point;
}

let references: Map<string, string> | undefined;

/**
 * What each named reference stands for, by what follows the `&`: `name;` for every name, and
 * `name` alone for those whose `;` may go. Read from the table on first use: no work at import.
 */
function namedReferences(): Map<string, string> {
  if (references) return references;
  references = new Map();
  let previous = 0;
  for (const group of NAMED_REFERENCES.replace(/\n/g, "").split(";")) {
    const [head, names] = group.split(":");
    const [first, second] = head.split("+");
    previous += parseInt(first, 36);
    const value = String.fromCodePoint(previous, ...(second ? [parseInt(second, 36)] : []));
    for (const name of names.split(",")) {
      if (name.endsWith("!")) references.set(name.slice(0, -1), value);
      references.set(`${name.replace("!", "")};`, value);
    }
  }
  return references;
}

// The characters Windows-1252 has at 0x80 to 0x9F (0: none, the code point stays).
const WINDOWS_1252 = [
  0x20ac,
  0,
  0x201a,
  0x192,
  0x201e,
  0x2026,
  0x2020,
  0x2021,
  0x2c6,
  0x2030,
  0x160,
  0x2039,
  0x152,
  0,
  0x17d,
  0,
  0,
  0x2018,
  0x2019,
  0x201c,
  0x201d,
  0x2022,
  0x2013,
  0x2014,
  0x2dc,
  0x2122,
  0x161,
  0x203a,
  0x153,
  0,
  0x17e,
  0x178,
];
