/**
 * Code: `<pre>` blocks become fenced blocks with their language, `<code>` inline code spans.
 * Their text is gathered raw and written when they close.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { CLASS } from "./attributes.ts";
import { breakLine, lines, write } from "./writer.ts";
import { collapse } from "./text.ts";

const LANGUAGE = /(?:^|\s)(?:language|lang|highlight-source)-([\w#+.-]+)/;
const BACKTICKS = /`+/g;

/** Starts a `<pre>` block. */
export function openPre(c: Converter): void {
  breakLine(c.w, 2);
  c.preDepth = 1;
  c.preText = "";
  c.preLang = "";
  setLanguage(c);
}

/** Takes the language from the element being opened, unless one was found already. */
export function setLanguage(c: Converter): void {
  const match = LANGUAGE.exec(c.get(CLASS) ?? "");
  if (match && c.preLang === "") c.preLang = match[1];
}

/** Writes the gathered `<pre>` text as a fenced block. */
export function finishPre(c: Converter): void {
  let text = c.preText.replace(/\r\n?/g, "\n");
  if (text.charCodeAt(0) === 10) text = text.slice(1);
  // Trailing blank lines go, and runs of blank lines shrink to one, as everywhere else.
  text = text.trimEnd().replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, "\n\n");
  c.preText = "";
  if (text.trim() === "") return;
  const fence = "`".repeat(Math.max(3, longestRun(text) + 1));
  breakLine(c.w, 2);
  lines(c.w, [fence + c.preLang, ...text.split("\n"), fence], true);
  breakLine(c.w, 2);
}

/** Writes the gathered `<code>` text as a code span. */
export function finishCode(c: Converter): void {
  const raw = collapse(c.codeText);
  c.codeText = "";
  const text = raw.trim();
  const w = c.w;
  if (text === "") {
    if (raw !== "") w.space = true;
    return;
  }
  if (raw.charCodeAt(0) === 32) w.space = true;
  const fence = "`".repeat(longestRun(text) + 1);
  const pad = text.charCodeAt(0) === 96 || text.charCodeAt(text.length - 1) === 96 ? " " : "";
  write(w, fence + pad + text + pad + fence);
  if (raw.charCodeAt(raw.length - 1) === 32) w.space = true;
}

function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(BACKTICKS)) longest = Math.max(longest, match[0].length);
  return longest;
}
