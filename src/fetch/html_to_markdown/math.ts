/**
 * MathML: a `<math>` that carries its TeX (`<annotation encoding="application/x-tex">`, as
 * MathJax, KaTeX and Wikipedia write it) prints once as `$TeX$`, not as its rendered symbols
 * followed by the TeX again.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { decode } from "../../html/decode.ts";
import { collapse } from "./text.ts";
import { breakLine, write } from "./writer.ts";

/** Annotations of one `<math>` looked at for TeX. */
const MAX_ANNOTATIONS = 4;
const TEX_ENCODING = /\sencoding\s*=\s*["']?[^"'>]*tex/i;
/** `display="block"` in the `<math>` tag: read from the tag, as no other element needs it. */
const DISPLAY_BLOCK = /\sdisplay\s*=\s*["']?block\b/i;

/**
 * Where `needle` next occurs in the page from `from` (the page's length when nowhere), from a
 * cache of the last answer: each search starts past the last one found, so all are linear.
 */
function next(c: Converter, needle: string, from: number, cached: number): number {
  if (cached >= from) return cached;
  const at = c.html.indexOf(needle, from);
  return at < 0 ? c.html.length : at;
}

/**
 * For a `<math>` being opened: writes its TeX and returns `true` (the MathML is then dropped),
 * or returns `false` when it carries none and its text is read as it shows.
 */
export function writeTex(c: Converter): boolean {
  const html = c.html;
  const from = c.tagEnd + 1;
  const end = c.mathEnd = next(c, "</math", from, c.mathEnd);
  let tex = "";
  let at = from;
  for (let i = 0; i < MAX_ANNOTATIONS && tex === ""; i++) {
    at = c.annotationAt = next(c, "<annotation", at, c.annotationAt);
    if (at >= end) break;
    const gt = html.indexOf(">", at);
    if (gt < 0 || gt >= end) break;
    const close = html.indexOf("</annotation", gt);
    if (close < 0 || close > end) break;
    if (TEX_ENCODING.test(html.slice(at, gt))) {
      tex = collapse(decode(html.slice(gt + 1, close), false)).trim();
    }
    at = close;
  }
  if (tex === "") return false;
  c.textChars += tex.length;
  const tag = html.slice(html.lastIndexOf("<", c.tagEnd), c.tagEnd);
  if (DISPLAY_BLOCK.test(tag)) {
    breakLine(c.w, 2);
    write(c.w, "$$" + tex + "$$");
    breakLine(c.w, 2);
  } else {
    write(c.w, "$" + tex + "$");
  }
  return true;
}
