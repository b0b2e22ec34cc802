/**
 * Code: `<pre>` blocks become fenced blocks with their language, `<code>` inline code spans.
 * Their text is gathered raw and written when they close.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { CLASS, DATA_LANG } from "./attributes.ts";
import { breakLine, lines, write } from "./writer.ts";
import { collapse } from "./text.ts";
import { markLayout } from "./tables.ts";

/** `language-x`, `lang-x`, `highlight-source-x`, `brush: x` (SyntaxHighlighter). */
const PREFIXED = /(?:^|\s)(?:(?:language|lang|highlight-source)-|brush:\s*)([\w#+.-]+)/i;
/** Classes that mark highlighted code (`hljs python`, `sourceCode r`): the other is the language. */
const MARKERS = new Set(["hljs", "sourcecode", "highlight", "prettyprint", "code", "notranslate"]);
/** Language names common enough to be taken from a bare class (`<pre class="javascript">`). */
const KNOWN = new Set(
  ("javascript js typescript ts python py ruby go rust java kotlin swift c cpp csharp php " +
    "bash sh shell sql html xml css json yaml r diff").split(" "),
);
const BACKTICKS = /`+/g;
/** Class words read for a language: a page's class of thousands of words is not split whole. */
const MAX_CLASS_WORDS = 32;

/**
 * A `<div>` opening: when its class names a language the way highlighters' wrappers
 * do (`highlight-source-rust`, `language-python`), the code blocks inside are in it. Returns
 * whether it did, so that its close ends it.
 */
export function openCodeWrapper(c: Converter): boolean {
  const className = c.get(CLASS);
  // Most blocks have classes, few name a language: two substring checks keep them cheap.
  if (
    className === undefined || (!className.includes("lang") && !className.includes("source-"))
  ) return false;
  const prefixed = PREFIXED.exec(className);
  if (!prefixed) return false;
  c.blockLang = prefixed[1].toLowerCase().slice(0, 32);
  return true;
}

/** Starts a `<pre>` block. */
export function openPre(c: Converter, name: string): void {
  breakLine(c.w, 2);
  c.preRaw = name === "xmp";
  c.preDepth = 1;
  c.preText = "";
  c.preLine = 0;
  c.preLang = "";
  setLanguage(c);
  if (c.preLang === "") c.preLang = c.blockLang;
}

/** Takes the language from the element being opened, unless one was found already. */
export function setLanguage(c: Converter): void {
  if (c.preLang !== "") return;
  c.preLang = codeLanguage(c.get(CLASS) ?? "", c.get(DATA_LANG) ?? "");
}

/** The language a code element's class or `data-lang` names, or "". */
function codeLanguage(className: string, dataLang: string): string {
  const named = dataLang.trim();
  if (/^[\w#+.-]{1,32}$/.test(named)) return named.toLowerCase();
  if (className === "") return "";
  const prefixed = PREFIXED.exec(className);
  if (prefixed) return prefixed[1].toLowerCase().slice(0, 32);
  const tokens = className.toLowerCase().split(/\s+/, MAX_CLASS_WORDS);
  const marked = tokens.some((token) => MARKERS.has(token));
  for (const token of tokens) {
    if (KNOWN.has(token)) return token;
  }
  if (marked) {
    for (const token of tokens) {
      if (!MARKERS.has(token) && /^[a-z][\w#+-]{0,31}$/.test(token)) return token;
    }
  }
  return "";
}

/**
 * A block opening or closing in code (a highlighter's line, `<div class="line">`): it starts a
 * line of a `<pre>`, unless one starts there already, and is a space in a code span.
 */
export function codeLine(c: Converter): void {
  if (c.preDepth === 0) c.codeText += " ";
  else if (c.preText.length !== c.preLine) {
    c.preText += "\n";
    c.preLine = c.preText.length;
  }
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
  // Code of several lines cannot sit in a pipe table's cell: the table prints as blocks.
  if (text.includes("\n")) markLayout(c);
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
