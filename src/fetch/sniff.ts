// What a body is, from its declared type and, when that says nothing, its first bytes.

/** How much of a body sniffing looks at. */
export const SNIFF_BYTES = 1_024;
/** Types whose bodies are not text. */
export const BINARY_TYPE =
  /^(?:image\/(?!svg\+xml)|audio\/|video\/|font\/|model\/|application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|x-bzip2|java-archive|wasm|vnd\.ms-|msword|vnd\.openxmlformats|x-shockwave-flash|font-))/;
export const HTML_TYPE = /^(?:text\/html|application\/xhtml\+xml)$/;
export const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json$|^text\/json$/;
/** A media type as RFC 6838 spells it, in any case: a header that says anything else declares no type. */
const MEDIA_TYPE = /^[a-z0-9][\w!#$&^.+-]{0,63}\/[a-z0-9][\w!#$&^.+-]{0,63}$/i;
/** The tags the WHATWG MIME sniffing rules look for (plus the head's own tags). */
const HTML_OPENING =
  /^<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|meta|link|base)[\s/>]/i;
/** Control characters that plain text does not contain (tab, line breaks and form feed do). */
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const NOT_TEXT = /[\x00-\x08\x0b\x0e-\x1f\ufffd]/;

/** The media type a `Content-Type` declares, lower case; `""` for none or a malformed one. */
export function declaredType(contentType: string | null): string {
  const mediaType = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return MEDIA_TYPE.test(mediaType) ? mediaType : "";
}

/** The type of an untyped body from its decoded start: HTML, plain text, or `""` for neither. */
export function sniffText(start: string): "text/html" | "text/plain" | "" {
  if (looksHtml(start)) return "text/html";
  return NOT_TEXT.test(start) ? "" : "text/plain";
}

/**
 * Whether an untyped body is HTML: after whitespace and comments, it opens with one of the
 * {@linkcode HTML_OPENING} tags. Comments are skipped by hand, each ending at its first `-->`
 * as in a browser: a pattern `(?:\s|<!--[\s\S]*?-->)*` tries every way of grouping a run of
 * comments, exponential in their number.
 */
function looksHtml(text: string): boolean {
  let at = 0;
  while (true) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (!text.startsWith("<!--", at)) break;
    const end = text.indexOf("-->", at + 4);
    if (end < 0) return false;
    at = end + 3;
  }
  return HTML_OPENING.test(text.slice(at));
}
