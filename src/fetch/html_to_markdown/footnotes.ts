/**
 * In-page links that are not text: a footnote reference (`<a href="#fn1">1</a>`) becomes
 * `[^1]`, its note's list item `[^1]: …`; a back-link (`↩`) or a heading's permalink mark (`#`,
 * `¶`) is left out, as it only serves a pointer.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { ID } from "./attributes.ts";
import { decode } from "../../html/decode.ts";
import { write } from "./writer.ts";

/** How far a fragment link's text is looked at, tags included. */
const LOOK_AHEAD = 80;
/** A note's label: a number, in brackets or pointing at a note's id. */
const LABEL = /^(\[)?(\d{1,4})\]?$/;
const NOTE_ID = /fn|note|cite|ref/i;
/** Marks of back-links and permalinks: arrows, carets, `#`, `¶`, `§`, a link symbol. */
const MARKS = /^[\s#¶§^↩↑⤴⏎🔗\ufe0e\ufe0f]+$/u;
const TAG = /<[^>]*>/g;

/**
 * For an `<a>` to a fragment of the page, being opened: writes a footnote reference, or skips
 * a mark's text. Returns whether its text was dealt with (it is skipped).
 */
export function fragmentLink(c: Converter, id: string): boolean {
  const html = c.html;
  const from = c.tagEnd + 1;
  const window = html.slice(from, from + LOOK_AHEAD);
  let close = window.indexOf("</a");
  while (close >= 0) {
    const after = window.charCodeAt(close + 3);
    if (after === 62 || after === 32 || Number.isNaN(after)) break;
    close = window.indexOf("</a", close + 3);
  }
  if (close < 0) return false;
  const text = decode(window.slice(0, close).replace(TAG, ""), false).trim();
  const label = LABEL.exec(text);
  if (label && (label[1] !== undefined || NOTE_ID.test(id))) {
    c.notes.set(id, label[2]);
    write(c.w, `[^${label[2]}]`);
    c.textChars += label[2].length;
  } else if (text === "" || !MARKS.test(text)) {
    return false;
  }
  c.skipTextUntil = from + close;
  return true;
}

/** The marker of a list item that is a note referred to earlier (`[^1]: `), or undefined. */
export function noteMarker(c: Converter): string | undefined {
  if (c.notes.size === 0) return undefined;
  const label = c.notes.get(c.get(ID) ?? "");
  return label === undefined ? undefined : `[^${label}]: `;
}
