/**
 * Main-content detection, in the same pass as the conversion: each element that could be page
 * furniture (navigation, banners, footers, sidebars, cookie bars, share bars, comment forms,
 * blocks that are mostly links) or a landmark (`<main>`, `<article>`) marks the stretch of
 * Markdown it wrote. When the page ends, what to keep is decided from those stretches: the
 * landmark if one stands out, else the whole page, and in either case without the furniture.
 *
 * @module
 */
import { CLASS, HREF, ID, ROLE } from "./attributes.ts";
import type { Converter, Open } from "./converter.ts";
import { flush, type Sink } from "./writer.ts";

// What an element may be, decided when it opens.
/** Nothing to watch. */
export const PLAIN = 0;
/** Furniture: its stretch is left out unless it holds a landmark or most of the page. */
const FURNITURE = 1;
/** A form: furniture when small (a search box, a comment form), not when it wraps the page. */
const FORM = 2;
/** A block: left out when it is mostly links (menus, tag clouds, link farms). */
const BLOCK = 3;
/** `<main>` or `role="main"`. */
const MAIN = 4;
/** `<article>`. */
const ARTICLE = 5;

/** A stretch of a sink's Markdown, with how much page text it holds. */
export interface Stretch {
  start: number;
  end: number;
  text: number;
  /** Of which link text. */
  links: number;
  /** Furniture by its tag or role (see `DECLARED`). */
  declared?: boolean;
}

/** `header` and `footer`: furniture of the page, not of an article. */
const PAGE_PART = 6;
/** `<a>`: a skip link ("Skip to content") is interface, not content. */
const LINK = 7;
/**
 * Furniture by its tag or ARIA role (`<nav>`, `<aside>`, `role="complementary"`), not only by a
 * class word: cut however much text it holds (a live feed in the sidebar longer than the post).
 */
const DECLARED = 8;
/** A heading: the site's name when it is only a link to the site's home page. */
const HEADING = 9;

/** What an element may be by its name alone. */
const NAME_ROLES = new Map<string, number>([
  ["main", MAIN],
  ["article", ARTICLE],
  ["form", FORM],
  ["a", LINK],
]);
for (const name of "nav aside button dialog menu search".split(" ")) {
  NAME_ROLES.set(name, DECLARED);
}
for (const name of "header footer".split(" ")) NAME_ROLES.set(name, PAGE_PART);
for (const name of "h1 h2 h3 h4 h5 h6".split(" ")) NAME_ROLES.set(name, HEADING);
for (const name of "div section ul ol dl p blockquote center details figure fieldset".split(" ")) {
  NAME_ROLES.set(name, BLOCK);
}
const FURNITURE_ROLES = new Set(
  "navigation banner contentinfo complementary search menu menubar toolbar dialog".split(" "),
);
/**
 * Class and id words of furniture (much as Mozilla's Readability reads them), as whole words
 * between spaces, hyphens and underscores: `share-bar` is furniture, `shared-history` is not.
 */
const FURNITURE_NAMES = new RegExp(
  "(?<![a-z0-9])(?:" +
    "ads?|adverts?|advertising|banner|breadcrumbs?|comments?|community|consent|cookies?|disqus|gdpr|masthead|" +
    "menus?|(?:top|sub|main|site|primary|secondary|global)?nav(?:bar|igation)?|newsletter|" +
    "pagination|pager|popup|promos?|related|replies|share|sharing|sidebar|social|sponsors?|" +
    "subscribe|toolbar|widgets?|skip|footer" +
    ")(?![a-z0-9])",
  "i",
);
/**
 * Words that say the element may hold the content after all: an embedded post
 * (`social-media-embed`) is quoted content, Blogger's `widget Blog` wraps the posts.
 */
const CONTENT_NAMES =
  /article|body|column|content|main|shadow|embed|(?<![a-z0-9])blog(?![a-z0-9])/i;
/** Ids of more words than this are names of sections (`sharing-with-a-friend`), not furniture. */
const ID_WORDS = 3;
/** A form holding less page text than this is furniture. */
const SMALL_FORM = 1_000;
/** A landmark must hold this much text to be taken as the page's content. */
const MIN_MAIN = 200;
/** Links whose text is this long on average are titles worth reading, not a menu's entries. */
const SHORT_LINK = 40;
const SKIP_LINK = /^\s*skip\b/i;

/** What the element being opened may be. */
export function classify(c: Converter, name: string): number {
  const base = NAME_ROLES.get(name) ?? PLAIN;
  if (base === MAIN) return MAIN;
  // An article inside furniture (a related-posts box, a sidebar) is a teaser, not the page's.
  if (base === ARTICLE && c.furnitureOpen > 0) return BLOCK;
  const role = c.get(ROLE);
  if (role !== undefined) {
    const value = role.trim().toLowerCase();
    if (value === "main") return MAIN;
    if (FURNITURE_ROLES.has(value)) return DECLARED;
  }
  switch (base) {
    case ARTICLE:
    case DECLARED:
    case FORM:
      return base;
    case PAGE_PART:
      return c.landmarksOpen === 0 ? DECLARED : BLOCK;
    case LINK: {
      const href = c.get(HREF);
      if (href === undefined || href.trim().charCodeAt(0) !== 35) return PLAIN;
      return SKIP_LINK.test(c.linkText(80) ?? "") ? FURNITURE : PLAIN;
    }
  }
  const className = c.get(CLASS);
  let id = c.get(ID);
  if (id !== undefined && id.split(/[-_]/, ID_WORDS + 1).length > ID_WORDS) id = undefined;
  // Read as they are, each time: a regular expression reads them faster than a cache would.
  const furniture = (className !== undefined && FURNITURE_NAMES.test(className)) ||
    (id !== undefined && FURNITURE_NAMES.test(id));
  if (
    furniture && !(className !== undefined && CONTENT_NAMES.test(className)) &&
    !(id !== undefined && CONTENT_NAMES.test(id))
  ) return FURNITURE;
  return base;
}

/** Notes where an element that may matter starts. */
export function enter(c: Converter, open: Open): void {
  const w = c.w;
  // Close markers held back belong before the stretch, not inside it.
  flush(w);
  open.sink = w;
  open.at = w.out.length;
  open.text = c.textChars;
  open.linkText = c.linkChars;
  open.links = c.linkCount;
  open.landmarks = c.landmarksSeen;
  open.titles = c.linkedTitles;
  open.homes = c.homeLinks;
  // A heading inside a link to the home page: a logo's.
  if (open.role === HEADING && w.links > 0 && isHomePage(c.linkUrl)) c.homeLinks++;
  open.inner = c.innerArticleText;
  if (open.role === MAIN || open.role === ARTICLE) {
    c.landmarksOpen++;
    c.landmarksSeen++;
  } else if (open.role === FURNITURE || open.role === DECLARED) {
    c.furnitureOpen++;
  }
}

/** Decides, as an element closes, whether its stretch is furniture or a landmark. */
export function leave(c: Converter, open: Open): void {
  const role = open.role;
  if (role === MAIN || role === ARTICLE) c.landmarksOpen--;
  else if (role === FURNITURE || role === DECLARED) c.furnitureOpen--;
  const w = c.w;
  if (open.sink !== w) return;
  flush(w);
  const text = c.textChars - open.text;
  const links = c.linkChars - open.linkText;
  const start = open.at;
  const end = w.out.length;
  if (end <= start) return;
  // Furniture that holds the page's landmark is its frame, not furniture.
  const holdsLandmark = c.landmarksSeen > open.landmarks && role !== MAIN && role !== ARTICLE;
  switch (role) {
    case FURNITURE:
      if (!holdsLandmark) w.cuts.push({ start, end, text, links });
      break;
    case DECLARED:
      if (!holdsLandmark) w.cuts.push({ start, end, text, links, declared: true });
      break;
    case FORM:
      if (!holdsLandmark && text < SMALL_FORM) w.cuts.push({ start, end, text, links });
      break;
    case BLOCK: {
      // Read from the last text written, not from the sink: reading a string built by appends
      // flattens it, and doing so at every block would be quadratic.
      if (c.lastTextAt === open.text && text >= 9 && text <= 31 && AD_LINE.test(c.lastText)) {
        w.cuts.push({ start, end, text, links });
        break;
      }
      const count = c.linkCount - open.links;
      // Three or more linked titles, each with little more than a summary: teasers ("Recommended
      // for You", "Most Popular"), however long their titles, and however much of the page.
      const titles = c.linkedTitles - open.titles;
      if (!holdsLandmark && titles >= MIN_TEASERS && text < TEASER_TEXT * titles) {
        w.cuts.push({ start, end, text, links, declared: true });
        break;
      }
      // Mostly links, and short ones: menus, tag clouds, link farms (not a list of titles, nor
      // a paragraph's sentence, whatever its links).
      if (
        !holdsLandmark && count >= 2 && links > 0.5 * text && links < SHORT_LINK * count &&
        !(open.name === "p" && text - links >= PROSE_PER_LINK * count &&
          SENTENCE_END.test(c.lastText))
      ) {
        w.cuts.push({ start, end, text, links });
      }
      break;
    }
    case HEADING:
      // The site's name over the page (a logo's heading), not the article's title.
      if (c.homeLinks > open.homes && links >= text) w.cuts.push({ start, end, text, links });
      break;
    case MAIN:
      if (w === c.root && c.mainStretch === undefined) c.mainStretch = { start, end, text, links };
      break;
    case ARTICLE:
      // Only outermost articles compete; one inside another is part of it, and one whose text
      // is mostly in several others is a list of teasers.
      if (c.landmarksOpen > 0) {
        c.innerArticleText += text;
      } else if (
        w === c.root && !isInsideMain(c, start, end) &&
        !(c.landmarksSeen - open.landmarks > 2 && c.innerArticleText - open.inner > 0.5 * text)
      ) {
        c.articles.push({ start, end, text, links });
      }
      break;
  }
}

/** A site's home page: its root, or an index file. */
const HOME_PAGE = /^https?:\/\/[^/?#]+\/(?:(?:[^?#]*\/)?index\.\w+)?$/;

/** Whether a link's target is a site's home page (a logo's link, not a title's). */
export function isHomePage(url: string | undefined): boolean {
  return url !== undefined && HOME_PAGE.test(url);
}

/** A block that only labels an ad slot or a jump past one. */
const AD_LINE =
  /^(?:advertisements?|sponsored|continue reading the main story|story continues below)$/i;
/** A list of teasers has at least this many linked titles … */
const MIN_TEASERS = 3;
/** … and no more text than this per title (a headline, a line of summary, a byline). */
const TEASER_TEXT = 400;
/** A sentence has at least this much text outside links per link; a list of names has less. */
const PROSE_PER_LINK = 3;
/**
 * A sentence's last mark, in Latin and CJK scripts, then closing quotes and brackets: how the
 * last text of a paragraph of prose ends (a link's text, last in a menu, does not).
 */
const SENTENCE_END = /[.!?…。！？]["'”’»)\]]*$/;

function isInsideMain(c: Converter, start: number, end: number): boolean {
  const main = c.mainStretch;
  return main !== undefined && main.start <= start && end <= main.end;
}

/** A cell's Markdown without its furniture; what was left out is counted on the converter. */
export function cutCell(c: Converter, cell: Sink): string {
  if (cell.cuts.length === 0) return cell.out;
  const kept = without(cell.out, 0, cell.out.length, merge(cell.cuts, ALL).stretches);
  c.cellsOmitted += cell.out.length - kept.length;
  return kept;
}

/**
 * The page's main content: its landmark (`<main>`, else a single dominant `<article>`) when one
 * stands out, else the whole page, without furniture either way. `undefined` when nothing
 * stands out from the rest, and the whole page is the answer.
 */
export function mainContent(c: Converter, out: string): string | undefined {
  const total = c.textChars;
  // A stretch holding most of the page's text is no furniture, whatever its name says; unless
  // it is mostly links (thousands of names of a list of kudos).
  const half: Half = { text: total / 2, prose: (total - c.linkChars) / 2 };
  const { stretches, text: cutText } = merge(c.root.cuts, half);
  let region: Stretch = { start: 0, end: out.length, text: total, links: c.linkChars };
  const landmark = landmarkOf(c, stretches);
  if (landmark) region = landmark;
  const inside = stretches.filter((s) => s.start >= region.start && s.end <= region.end);
  const kept = region.text - (landmark ? sumText(inside) : cutText);
  // Where little but furniture would remain, the furniture richest in prose was no furniture.
  if (kept < MIN_MAIN || kept < total / 20) return fallback(c, out, half);
  if (region === landmark || inside.length > 0 || c.cellsOmitted > 0) {
    return without(out, region.start, region.end, inside);
  }
  return undefined;
}

/**
 * The page without its furniture, except the stretch of it with the most text outside links
 * (a post wrapped in a class named like furniture), which keeps all but its menus. `undefined`
 * when no furniture holds enough prose to be content: then the page is all there is.
 */
function fallback(c: Converter, out: string, half: Half): string | undefined {
  const cuts = c.root.cuts.filter((s) => isCut(s, half));
  let best: Stretch | undefined;
  for (const cut of cuts) {
    const prose = cut.text - cut.links;
    if (prose >= MIN_MAIN && (!best || prose > best.text - best.links)) best = cut;
  }
  if (!best) return undefined;
  const { start, end } = best;
  const rest = cuts.filter((s) =>
    s.end <= start || s.start >= end ||
    (s.start >= start && s.end <= end && s !== best && s.links > 0.5 * s.text)
  );
  return without(out, 0, out.length, merge(rest, ALL).stretches);
}

/** The landmark to keep, when its text (without furniture) is enough to be the content. */
function landmarkOf(c: Converter, cuts: Stretch[]): Stretch | undefined {
  const net = (s: Stretch) =>
    s.text - sumText(cuts.filter((cut) => cut.start >= s.start && cut.end <= s.end));
  const main = c.mainStretch;
  if (main && net(main) >= MIN_MAIN) return main;
  let best: Stretch | undefined;
  let all = 0;
  for (const article of c.articles) {
    all += article.text;
    if (!best || article.text > best.text) best = article;
  }
  // Several articles of a size (a blog's index) are no single content.
  if (best && best.text >= 0.6 * all && net(best) >= MIN_MAIN) return best;
  return undefined;
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
 * `out` from `start` to `end` without the sorted, disjoint `cuts`. At each joint the larger of
 * the two sides' line breaks (at most a blank line) is kept. Linear: the pieces are joined once.
 */
function without(out: string, start: number, end: number, cuts: Stretch[]): string {
  const pieces: string[] = [];
  let owed = 0;
  const add = (from: number, to: number) => {
    let i = from;
    while (i < to && out.charCodeAt(i) === 10) i++;
    let j = to;
    while (j > i && out.charCodeAt(j - 1) === 10) j--;
    if (i === j) {
      owed = Math.max(owed, to - from);
      return;
    }
    if (pieces.length > 0) {
      pieces.push(Math.max(owed, i - from) > 1 ? "\n\n" : i > from || owed > 0 ? "\n" : "");
    }
    pieces.push(out.slice(i, j));
    owed = to - j;
  };
  let from = start;
  for (const cut of cuts) {
    if (cut.start > from) add(from, cut.start);
    from = Math.max(from, cut.end);
  }
  if (end > from) add(from, end);
  return pieces.join("").trim();
}
