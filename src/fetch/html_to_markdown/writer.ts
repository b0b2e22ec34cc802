/**
 * The Markdown writer: a sink that owes line breaks and spaces lazily, writes line prefixes
 * (quotes, list indents) and inline marker pairs (emphasis, links) only around real content.
 *
 * @module
 */

import { escapeLineStart } from "./escape.ts";
import { formatUrl } from "./urls.ts";
import type { Stretch } from "./stretches.ts";

/** Lists and quotes nested deeper than this indent no further, so output stays linear. */
const MAX_INDENT = 12;
/** Inline markers (emphasis, links) nested deeper than this are not written. */
const MAX_INLINE = 32;

/** A pending or written inline marker pair: emphasis or a link. */
export interface Inline {
  open: string;
  close: string;
  written: boolean;
  link: boolean;
  /** A link's target. */
  url: string;
}

/** One level of line prefix: a quote's `> ` or a list item's indent, with its marker to write once. */
interface Indent {
  text: string;
  marker: string;
}

/**
 * Where Markdown is written. The page has one; table cells get their own, so a cell's text can
 * be flattened or unwrapped once the table's shape is known.
 */
export interface Sink {
  /** The Markdown written since the last {@linkcode seal}. */
  out: string;
  /**
   * What was written before, in the pieces sealed at the edges of stretches (main-content
   * mode), and their length: the kept pieces are joined once at the end, where cutting one
   * string built by appends would copy the whole of it first.
   */
  sealed: string[];
  sealedLength: number;
  /** Newlines owed before the next content: 0, 1 or 2 (a blank line); never more. */
  breaks: number;
  /** A collapsed space owed before the next content on the same line. */
  space: boolean;
  lineStart: boolean;
  empty: boolean;
  /** A heading's `## `, written with its first content. */
  lead: string;
  headings: number;
  links: number;
  inline: Inline[];
  unwritten: number;
  /**
   * Close markers of inline elements that ended, held back until more is written so that the
   * same marker reopened at once (`<b>a</b><b>b</b>`) merges instead of reading as `****`.
   * Innermost first.
   */
  pending: string[];
  indents: Indent[];
  /** `prefixes[i]` is the joined text of the first `i` indents. */
  prefixes: string[];
  /** Index of the lowest indent whose marker is still to be written, or -1. */
  markFrom: number;
  /** How many indents the last written line had. */
  depth: number;
  /** The last thing written was a link: a link right after it needs a space between. */
  afterLink: boolean;
  /** Stretches of `out` that are page furniture, for main-content mode. */
  cuts: Stretch[];
}

/** A fresh, empty sink. */
export function newSink(): Sink {
  return {
    out: "",
    sealed: [],
    sealedLength: 0,
    breaks: 0,
    space: false,
    lineStart: true,
    empty: true,
    lead: "",
    headings: 0,
    links: 0,
    inline: [],
    unwritten: 0,
    pending: [],
    indents: [],
    prefixes: [""],
    markFrom: -1,
    depth: 0,
    afterLink: false,
    cuts: [],
  };
}

/**
 * Writes inline content: owed newlines and prefix, or a space, then pending markers. Page
 * `text` that starts a line is escaped so that it cannot open a block.
 */
export function write(w: Sink, content: string, text = false): void {
  if (w.pending.length > 0) settle(w);
  if (w.breaks > 0) {
    if (!w.empty) {
      w.out += w.breaks > 1 ? "\n" + blank(w) + "\n" : "\n";
    }
    w.breaks = 0;
    w.lineStart = true;
  }
  let start = false;
  if (w.lineStart) {
    w.depth = w.indents.length;
    start = w.lead === "";
    w.out += linePrefix(w) + w.lead;
    w.lead = "";
    w.lineStart = false;
  } else if (w.space) {
    w.out += " ";
  }
  w.space = false;
  if (w.unwritten > 0) {
    for (const entry of w.inline) {
      if (!entry.written) {
        w.out += entry.open;
        entry.written = true;
        start = false;
      }
    }
    w.unwritten = 0;
  }
  w.out += start && text ? escapeLineStart(content) : content;
  w.empty = false;
  w.afterLink = false;
}

/**
 * Writes whole lines (a code block, a table) at the current indent, markers not reopened. An
 * empty line is a paragraph gap, or in `code` a line of its own.
 */
export function lines(w: Sink, lines: string[], code = false): void {
  flush(w);
  for (const line of lines) {
    if (line === "") {
      if (code) w.out += "\n" + blank(w);
      else if (!w.empty) w.breaks = 2;
      continue;
    }
    if (w.breaks > 0 || !w.lineStart) {
      if (!w.empty) w.out += w.breaks > 1 ? "\n" + blank(w) + "\n" : "\n";
    }
    w.breaks = 1;
    w.depth = w.indents.length;
    w.out += linePrefix(w) + line;
    w.lineStart = false;
    w.space = false;
    w.empty = false;
  }
}

/** Where the next character written goes: the length of all the sink holds. */
export function position(w: Sink): number {
  return w.sealedLength + w.out.length;
}

/** Ends the current piece, so that a stretch starts or ends at a piece's edge. */
export function seal(w: Sink): void {
  const out = w.out;
  if (out === "") return;
  w.sealed.push(out);
  w.sealedLength += out.length;
  w.out = "";
}

/** All the sink holds, built by appends as it was written (nothing is copied). */
export function contents(w: Sink): string {
  let all = "";
  for (const piece of w.sealed) all += piece;
  return all + w.out;
}

/** Owes `n` newlines before the next content; inside a heading a break is only a space. */
export function breakLine(w: Sink, n: number): void {
  if (w.headings > 0) {
    w.space = true;
    return;
  }
  closeWritten(w);
  w.space = false;
  if (w.markFrom >= 0) n = 1; // an item's first block stays on the marker's line
  if (n > w.breaks) w.breaks = n;
}

/** A `<br>`: a line break, or a blank line after another; in a heading or link only a space. */
export function lineBreak(w: Sink): void {
  if (w.headings > 0 || w.links > 0) {
    w.space = true;
  } else {
    closeWritten(w);
    w.space = false;
    w.breaks = w.breaks === 0 ? 1 : 2;
  }
}

/**
 * Opens a marker pair, written lazily with the next content. Returns whether it was opened:
 * the same emphasis inside itself adds nothing, and deep nesting adds no more markers.
 */
export function openInline(w: Sink, marker: string, close = marker): boolean {
  if (w.inline.length >= MAX_INLINE) return false;
  for (const entry of w.inline) if (entry.open === marker) return false;
  w.inline.push({ open: marker, close, written: false, link: false, url: "" });
  w.unwritten++;
  return true;
}

/** Opens a link to `url`, written lazily with the next content like any marker pair. */
export function openLink(w: Sink, url: string): boolean {
  if (w.inline.length >= MAX_INLINE) return false;
  w.inline.push({
    open: "[",
    close: `](${formatUrl(url)})`,
    written: false,
    link: true,
    url,
  });
  w.unwritten++;
  w.links++;
  return true;
}

/** Closes the innermost marker pair; its close marker is held back (see `pending`). */
export function closeInline(w: Sink): void {
  const entry = w.inline.pop();
  if (!entry) return;
  if (entry.link) w.links--;
  if (!entry.written) {
    w.unwritten--;
    return;
  }
  w.pending.push(entry.close);
  if (entry.link) w.afterLink = true;
}

/** Adds a line prefix level: `text` on every line, `marker` instead on the first. */
export function indent(w: Sink, text: string, marker: string): void {
  const depth = w.indents.length;
  const shown = depth < MAX_INDENT ? text : "";
  w.indents.push({ text: shown, marker });
  w.prefixes.push(w.prefixes[depth] + shown);
  if (marker !== "" && w.markFrom < 0) w.markFrom = depth;
}

/** Removes the innermost line prefix level. */
export function outdent(w: Sink): void {
  w.indents.pop();
  w.prefixes.pop();
  if (w.markFrom >= w.indents.length) w.markFrom = -1;
  // A blank line after a closed quote must not carry its `>`, or the next quote joins it.
  if (w.depth > w.indents.length) w.depth = w.indents.length;
}

/** The line prefix: indents, with each item's marker written on its first line only. */
function linePrefix(w: Sink): string {
  const from = w.markFrom;
  if (from < 0) return w.prefixes[w.indents.length];
  let prefix = w.prefixes[from];
  const indents = w.indents;
  for (let i = from; i < indents.length; i++) {
    const indent = indents[i];
    if (indent.marker !== "") {
      prefix += indent.marker;
      indent.marker = "";
    } else {
      prefix += indent.text;
    }
  }
  w.markFrom = -1;
  return prefix;
}

/**
 * The prefix of a blank line: the indents shared by the lines around it, where a quote keeps
 * its `>` and list indents vanish.
 */
function blank(w: Sink): string {
  return w.prefixes[Math.min(w.depth, w.indents.length)].trimEnd();
}

/** Writes the close markers held back in `pending`. */
export function flush(w: Sink): void {
  const pending = w.pending;
  if (pending.length === 0) return;
  for (let i = 0; i < pending.length; i++) w.out += pending[i];
  pending.length = 0;
}

/**
 * Before more content: a marker that closed and reopens with nothing between them is dropped
 * both ways (`*a**b*` would not parse), and the other held-back close markers are written.
 */
function settle(w: Sink): void {
  if (w.unwritten > 0 && w.breaks === 0 && !w.space) {
    const pending = w.pending;
    for (const entry of w.inline) {
      if (entry.written) continue;
      if (entry.link || pending[pending.length - 1] !== entry.open) break;
      pending.pop();
      entry.written = true;
      w.unwritten--;
    }
  }
  flush(w);
}

/**
 * Closes written inline markers before a line break; emphasis reopens with the next content,
 * a link does not: one `<a>` wrapping several blocks is one link, on its first.
 */
function closeWritten(w: Sink): void {
  flush(w);
  const inline = w.inline;
  for (let i = inline.length - 1; i >= 0; i--) {
    const entry = inline[i];
    if (entry.written) {
      w.out += entry.close;
      entry.written = false;
      w.unwritten++;
      if (entry.link) {
        entry.open = "";
        entry.close = "";
        entry.url = "";
      }
    }
  }
}
