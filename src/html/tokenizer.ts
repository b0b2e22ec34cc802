/**
 * The converter's HTML tokenizer: one forward pass that reports where text, tags and
 * attributes are in the page, as offsets, with no copies and no character references decoded
 * (the converter decodes the few pieces it keeps). It splits the page as htmlparser2's
 * tokenizer does in HTML mode, but jumps with `indexOf` through text, values, comments and raw
 * text instead of stepping a state machine character by character.
 *
 * @module
 */

/** What the tokenizer reports, in page order. */
export interface TokenSink {
  /** Text from `start` to `end` (raw text of scripts and styles included). */
  ontext(start: number, end: number): void;
  /** An opening tag's name. */
  onopentagname(start: number, end: number): void;
  /** An attribute of the tag being opened; a value-less attribute has an empty value. */
  onattribute(nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void;
  /** The `>` at `end` ends the tag being opened; `selfClosing` when it is `/>`. */
  onopentagend(end: number, selfClosing: boolean): void;
  /** A closing tag's name. */
  onclosetag(start: number, end: number): void;
  /** The page has ended. */
  onend(): void;
  /**
   * Whether an element `name` is open: inside `<svg>`, `<title>`, `<style>` and `<script>` are
   * elements (an icon's `<title/>`), not raw text. Asked when such a tag ends.
   */
  isOpen?(name: string): boolean;
}

/** Tags whose content is raw text up to their own closing tag (`plaintext`: to the end). */
const RAW_TEXT = new Set([
  "iframe",
  "noembed",
  "noframes",
  "plaintext",
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
]);

/** Whether `c` is HTML whitespace (the tokenizer's: no vertical tab). */
function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 12 || c === 13;
}

/** Whether `c` ends a tag or attribute name: whitespace, `/` or `>`. */
function endsName(c: number): boolean {
  return c === 62 || c === 47 || isSpace(c);
}

function isAlpha(c: number): boolean {
  return ((c | 32) - 97) >>> 0 < 26;
}

/**
 * Reports `html`'s text, tags and attributes to `sink`. A tag cut short by the end of the page
 * is left out, as are comments, doctypes, CDATA and processing instructions.
 */
export function tokenize(html: string, sink: TokenSink): void {
  const n = html.length;
  let text = 0;
  let at = 0;
  while (true) {
    const lt = html.indexOf("<", at);
    if (lt < 0) break;
    if (lt > text) sink.ontext(text, lt);
    text = lt;
    const c = html.charCodeAt(lt + 1);
    let end: number;
    if (isAlpha(c)) {
      end = openTag(html, lt + 1, sink);
    } else if (c === 47) {
      const c2 = html.charCodeAt(lt + 2);
      if (isAlpha(c2)) {
        let j = lt + 3;
        while (j < n && !endsName(html.charCodeAt(j))) j++;
        if (j >= n) return sink.onend();
        sink.onclosetag(lt + 2, j);
        end = html.indexOf(">", j) + 1;
      } else if (c2 === 62) {
        end = lt + 3;
      } else if (lt + 2 >= n) {
        break; // `</` ends the page: it is text
      } else {
        end = html.indexOf(">", lt + 3) + 1; // a bogus comment
      }
    } else if (c === 33) {
      end = declaration(html, lt);
    } else if (c === 63) {
      end = html.indexOf(">", lt + 2) + 1;
    } else {
      at = lt + 1; // a `<` that opens nothing is text
      continue;
    }
    if (end <= 0) return sink.onend(); // cut short: the rest of the page is inside it
    text = at = end;
  }
  if (n > text) sink.ontext(text, n);
  sink.onend();
}

/**
 * Reads the opening tag whose name starts at `start`, up to its `>`, and the raw text after it
 * if it has some; returns the index after what it read, or 0 when the page ends first.
 */
function openTag(html: string, start: number, sink: TokenSink): number {
  const n = html.length;
  let j = start + 1;
  while (j < n && !endsName(html.charCodeAt(j))) j++;
  if (j >= n) return 0;
  sink.onopentagname(start, j);
  const raw = rawTextName(html, start, j);
  while (j < n) {
    let c = html.charCodeAt(j);
    if (c === 62) {
      sink.onopentagend(j, false);
      return raw === undefined || sink.isOpen?.("svg") ? j + 1 : rawText(html, j + 1, raw, sink);
    }
    if (c === 47) {
      do j++; while (j < n && isSpace(html.charCodeAt(j)));
      if (html.charCodeAt(j) === 62) {
        sink.onopentagend(j, true);
        return raw === undefined || sink.isOpen?.("svg") ? j + 1 : rawText(html, j + 1, raw, sink);
      }
      continue; // a stray `/` is skipped
    }
    if (isSpace(c)) {
      j++;
      continue;
    }
    // An attribute's name starts with any other character, `=` included.
    const nameStart = j;
    do j++; while (j < n && (c = html.charCodeAt(j)) !== 61 && !endsName(c));
    const nameEnd = j;
    while (j < n && isSpace(html.charCodeAt(j))) j++;
    if (j >= n) return 0;
    if (html.charCodeAt(j) !== 61) {
      sink.onattribute(nameStart, nameEnd, nameEnd, nameEnd);
      continue;
    }
    do j++; while (j < n && isSpace(html.charCodeAt(j)));
    if (j >= n) return 0;
    c = html.charCodeAt(j);
    if (c === 34 || c === 39) {
      const close = html.indexOf(c === 34 ? '"' : "'", j + 1);
      if (close < 0) return 0;
      sink.onattribute(nameStart, nameEnd, j + 1, close);
      j = close + 1;
    } else {
      // Unquoted, the value runs to whitespace or `>` (a `/` is part of it).
      const valueStart = j;
      while (j < n && (c = html.charCodeAt(j)) !== 62 && !isSpace(c)) j++;
      if (j >= n) return 0;
      sink.onattribute(nameStart, nameEnd, valueStart, j);
    }
  }
  return 0;
}

/** Per length, the {@linkcode RAW_TEXT} names of that length. */
const RAW_TEXT_BY_LENGTH: string[][] = [];
for (const name of RAW_TEXT) (RAW_TEXT_BY_LENGTH[name.length] ??= []).push(name);

/** The tag name from `start` to `end`, lowercase, when it is one of {@linkcode RAW_TEXT}. */
function rawTextName(html: string, start: number, end: number): string | undefined {
  // Compared in place: a copy of every tag's name, lowercased and hashed, cost more.
  const names = RAW_TEXT_BY_LENGTH[end - start];
  if (names === undefined) return undefined;
  for (const name of names) {
    let i = 0;
    // The names are letters: `| 32` folds only a letter's case onto them.
    while (i < name.length && (html.charCodeAt(start + i) | 32) === name.charCodeAt(i)) i++;
    if (i === name.length) return name;
  }
  return undefined;
}

/**
 * Reads the raw text from `start` to the element's closing tag and that tag; returns the index
 * after it, or 0 when the page ends first (all of it text then).
 */
function rawText(html: string, start: number, name: string, sink: TokenSink): number {
  const n = html.length;
  if (name === "plaintext") {
    if (n > start) sink.ontext(start, n);
    return 0;
  }
  for (let at = html.indexOf("</", start); at >= 0; at = html.indexOf("</", at + 1)) {
    const nameStart = at + 2;
    const nameEnd = nameStart + name.length;
    if (!endsName(html.charCodeAt(nameEnd))) continue;
    let same = true;
    for (let i = 0; i < name.length && same; i++) {
      same = (html.charCodeAt(nameStart + i) | 32) === name.charCodeAt(i);
    }
    if (!same) continue;
    if (at > start) sink.ontext(start, at);
    sink.onclosetag(nameStart, nameEnd);
    return html.indexOf(">", nameEnd) + 1;
  }
  if (n > start) sink.ontext(start, n);
  return 0;
}

/** Reads the `<!…` at `lt` (comment, CDATA, doctype); returns the index after it, or 0. */
function declaration(html: string, lt: number): number {
  if (html.startsWith("--", lt + 2)) {
    const from = lt + 4;
    // `<!-->` and `<!--->` are empty comments.
    if (html.charCodeAt(from) === 62) return from + 1;
    if (html.startsWith("->", from)) return from + 2;
    for (let at = html.indexOf("--", from); at >= 0; at = html.indexOf("--", at + 1)) {
      const c = html.charCodeAt(at + 2);
      if (c === 62) return at + 3;
      if (c === 33 && html.charCodeAt(at + 3) === 62) return at + 4;
    }
    return 0;
  }
  if (html.startsWith("[CDATA[", lt + 2)) {
    const close = html.indexOf("]]>", lt + 9);
    return close < 0 ? 0 : close + 3;
  }
  return html.indexOf(">", lt + 2) + 1;
}
