/**
 * Main-content detection, in the same pass as the conversion: each element that could be page
 * furniture (navigation, banners, footers, sidebars, cookie bars, share bars, comment forms,
 * blocks that are mostly links) or a landmark (`<main>`, `<article>`) marks the stretch of
 * Markdown it wrote. When the page ends, what to keep is decided from those stretches: the
 * landmark if one stands out, else the whole page, and in either case without the furniture.
 * This module decides, from the stretches marked (`stretches.ts`).
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { contents, position, type Sink } from "./writer.ts";
import { JOINT, type Stretch } from "./stretches.ts";

/** A landmark must hold this much text to be taken as the page's content. */
const MIN_MAIN = 200;

/**
 * A table cell's Markdown without its furniture; what was left out is counted on the converter.
 * When furniture holds most of the cell's text (`text`, of which `links` in links), `held` is the
 * cell with it: in a layout table the cell may wrap the whole post in a class named like
 * furniture, and the page, not the cell, judges it (see `finishTable`).
 */
export function cutCell(
  c: Converter,
  cell: Sink,
  text: number,
  links: number,
): { markdown: string; held?: HeldCell } {
  if (cell.cuts.length === 0) return { markdown: contents(cell) };
  const length = position(cell);
  const markdown = without(cell, 0, length, merge(cell.cuts, ALL).stretches);
  c.cellsOmitted += length - markdown.length;
  const half: Half = { text: text / 2, prose: (text - links) / 2 };
  if (!cell.cuts.some((s) => !isCut(s, half))) return { markdown };
  const kept = without(cell, 0, length, merge(cell.cuts, half).stretches);
  return { markdown, held: { markdown: kept, kept: kept.length - markdown.length, text, links } };
}

/**
 * A cell with the furniture that holds most of its text, the characters it keeps beyond the
 * cell without it, and the cell's page text.
 */
export interface HeldCell {
  markdown: string;
  kept: number;
  text: number;
  links: number;
}

/**
 * The page's main content: its landmark (`<main>`, else a single dominant `<article>`) when one
 * stands out, else the whole page, without furniture either way. `undefined` when nothing
 * stands out from the rest, and the whole page is the answer.
 */
export function mainContent(c: Converter, out: Sink): string | undefined {
  const total = c.textChars;
  // A stretch holding most of the page's text is no furniture, whatever its name says; unless
  // it is mostly links (thousands of names of a list of kudos).
  const half: Half = { text: total / 2, prose: (total - c.linkChars) / 2 };
  const { stretches, text: cutText } = merge(withoutBodies(c, c.root.cuts), half);
  let region: Stretch = { start: 0, end: position(out), text: total, links: c.linkChars };
  const landmark = landmarkOf(c, stretches);
  if (landmark) region = landmark;
  const inside = stretches.filter((s) => within(s, region));
  const kept = region.text - (landmark ? sumText(inside) : cutText);
  // Where little but furniture would remain, the furniture richest in prose was no furniture;
  // little beside the page's text but the prose of furniture by tag or role, which may dwarf the
  // post (a dialog of the site's policies).
  let tagged = 0;
  for (const s of stretches) if (s.tagged) tagged += s.text - s.links;
  if (kept < MIN_MAIN || kept < (total - tagged) / 20) return fallback(c, out, half);
  if (region === landmark || inside.length > 0 || c.cellsOmitted > 0) {
    return without(out, region.start, region.end, withOrphans(c, inside, region.end));
  }
  return undefined;
}

/**
 * The sorted, disjoint `cuts` and the headings left with nothing under them: a heading whose
 * section was cut whole ("Related articles" over its teasers), up to the next heading of its
 * level or above, or to `end`.
 */
function withOrphans(c: Converter, cuts: Stretch[], end: number): Stretch[] {
  const headings = c.headings;
  if (cuts.length === 0 || headings.length === 0) return cuts;
  const all: Stretch[] = [];
  let h = 0;
  for (let i = 0; i < cuts.length; i++) {
    const first = cuts[i];
    // The cuts that touch, one after another, as one.
    let last = i;
    while (last + 1 < cuts.length && cuts[last + 1].start - cuts[last].end <= JOINT) last++;
    while (h < headings.length && headings[h].end < first.start - JOINT) h++;
    const heading = headings[h];
    let after = last + 1 < cuts.length ? cuts[last + 1].start : end;
    const gapEnd = cuts[last].end;
    // The next heading, if it is what comes right after the cut section.
    let k = h;
    while (k < headings.length && headings[k].start < gapEnd) k++;
    const next = headings[k];
    if (next !== undefined && next.start < after) after = next.start;
    if (
      heading !== undefined && heading.end <= first.start && after - gapEnd <= JOINT &&
      (after === end || (next !== undefined && after === next.start && next.level <= heading.level))
    ) {
      all.push(heading);
    }
    for (let j = i; j <= last; j++) all.push(cuts[j]);
    i = last;
  }
  return all;
}

/**
 * The page without its furniture, except the stretch of it with the most text outside links
 * (a post wrapped in a class named like furniture), which keeps all but its menus, and the cards
 * of the page's `<main>`, whose text counts whole (a listing's, cut as teasers). `undefined`
 * when no furniture holds enough prose to be content: then the page is all there is.
 */
function fallback(c: Converter, out: Sink, half: Half): string | undefined {
  const cuts = c.root.cuts.filter((s) => isCut(s, half));
  let best: Stretch | undefined;
  const main = c.mainStretch;
  const cards = (s: Stretch) => s.cards && (!main || within(s, main));
  const worth = (s: Stretch) => cards(s) ? s.text : s.text - s.links;
  for (const cut of cuts) {
    const prose = worth(cut);
    if (prose >= MIN_MAIN && (!best || prose > worth(best))) best = cut;
  }
  if (!best) return undefined;
  const { start, end } = best;
  const rest = cuts.filter((s) =>
    !cards(s) && (s.end <= start || s.start >= end ||
      (within(s, best) && s !== best && s.links >= 0.5 * s.text))
  );
  const length = position(out);
  return without(out, 0, length, withOrphans(c, merge(rest, ALL).stretches, length));
}

/**
 * `cuts` without those that hold most of the text and prose of `<main>` or of the largest
 * `<article>`: the landmark's body (a post wrapped in `div.entry.share`), whatever its class
 * says. What it holds that is cut stays cut.
 */
function withoutBodies(c: Converter, cuts: Stretch[]): Stretch[] {
  let article: Stretch | undefined;
  for (const a of c.articles) if (!article || a.text > article.text) article = a;
  return cuts.filter((s) =>
    s.declared === true || !(isBody(s, c.mainStretch) || isBody(s, article))
  );
}

/** Whether `s` holds most of `landmark`'s text and prose. */
function isBody(s: Stretch, landmark: Stretch | undefined): boolean {
  return within(s, landmark) && s.text > 0.5 * landmark.text &&
    s.text - s.links > 0.5 * (landmark.text - landmark.links);
}

/** The landmark to keep, when its text (without furniture) is enough to be the content. */
function landmarkOf(c: Converter, cuts: Stretch[]): Stretch | undefined {
  const net = (s: Stretch) => s.text - sumText(cuts.filter((cut) => within(cut, s)));
  const main = c.mainStretch;
  if (main && net(main) >= MIN_MAIN) return main;
  let best: Stretch | undefined;
  let all = 0;
  // Articles and cuts come in order, each disjoint: a teaser card inside a cut list is none.
  let k = 0;
  for (const article of c.articles) {
    while (k < cuts.length && cuts[k].end < article.end) k++;
    if (k < cuts.length && cuts[k].start <= article.start && cuts[k].declared) continue;
    all += article.text;
    if (!best || article.text > best.text) best = article;
  }
  // Several articles of a size (a blog's index) are no single content.
  if (best && best.text >= 0.6 * all && net(best) >= MIN_MAIN) return best;
  return undefined;
}

/** Whether `s` lies within `r`. */
function within(s: Stretch, r: Stretch | undefined): r is Stretch {
  return r !== undefined && s.start >= r.start && s.end <= r.end;
}

function sumText(stretches: Stretch[]): number {
  let sum = 0;
  for (const s of stretches) sum += s.text;
  return sum;
}

/** No limit: every stretch is cut. */
const ALL: Half = { text: Infinity, prose: Infinity };
/** Half the page's text, and half of it outside links. */
interface Half {
  text: number;
  prose: number;
}

/**
 * Whether furniture is cut: unless it holds half the page's text, or, when mostly links, half
 * of its prose.
 */
function isCut(s: Stretch, half: Half): boolean {
  return s.declared === true || s.text <= half.text ||
    (s.links > 0.5 * s.text && s.text - s.links <= half.prose);
}

/** Stretches sorted and merged (an outer one swallows those inside), those not cut dropped. */
function merge(cuts: Stretch[], half: Half): { stretches: Stretch[]; text: number } {
  const sorted = cuts.filter((s) => isCut(s, half)).sort((a, b) =>
    a.start - b.start || b.end - a.end
  );
  const stretches: Stretch[] = [];
  let text = 0;
  for (const s of sorted) {
    const last = stretches[stretches.length - 1];
    if (last && s.start < last.end) {
      if (s.end > last.end) last.end = s.end;
      continue;
    }
    stretches.push({ ...s });
    text += s.text;
  }
  return { stretches, text };
}

/**
 * What `out` holds from `start` to `end` without the sorted, disjoint `cuts`. At each joint the
 * larger of the two sides' line breaks (at most a blank line) is kept.
 */
function without(out: Sink, start: number, end: number, cuts: Stretch[]): string {
  const all = contents(out);
  let kept = "";
  // Line breaks owed at the next joint: those ending what was kept, or a gap of only breaks.
  let owed = 0;
  const add = (from: number, to: number) => {
    let i = from;
    while (i < to && all.charCodeAt(i) === 10) i++;
    if (i === to) {
      owed = Math.max(owed, to - from);
      return;
    }
    let j = to;
    while (all.charCodeAt(j - 1) === 10) j--;
    if (kept !== "") {
      kept += Math.max(owed, i - from) > 1 ? "\n\n" : i > from || owed > 0 ? "\n" : "";
    }
    kept += all.slice(i, j);
    owed = to - j;
  };
  let from = start;
  for (const cut of cuts) {
    if (cut.start > from) add(from, cut.start);
    from = Math.max(from, cut.end);
  }
  if (end > from) add(from, end);
  return kept.trim();
}
