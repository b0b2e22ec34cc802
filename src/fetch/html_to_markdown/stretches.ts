/**
 * The stretches of Markdown that elements which may matter wrote: as each closes, whether its
 * stretch is furniture (cut), a landmark (a candidate for the content), or neither.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import type { Open } from "./element_stack.ts";
import { flush, seal } from "./writer.ts";
import { isOwnSite } from "./own_site.ts";
import { LIST } from "./rule.ts";
import {
  AD_LINE,
  ARTICLE,
  BLOCK,
  DECLARED,
  FORM,
  FURNITURE,
  HEADING,
  isHomePage,
  MAIN,
  WIDGET,
} from "./element_roles.ts";

/** A stretch of a sink's Markdown, with how much page text it holds. */
export interface Stretch {
  start: number;
  end: number;
  text: number;
  /** Of which link text. */
  links: number;
  /** Cut however much text it holds: furniture by its tag or role (see `DECLARED` in
   * `element_roles.ts`), a list named as furniture, teasers. */
  declared?: boolean;
  /** Furniture by its tag or role (`<nav>`, `<aside>`, `role="dialog"`), not by its shape. */
  tagged?: boolean;
  /** Teasers or links whose entries run long (cards with summaries, no comments): a listing's
   * content when little else is (see `fallback` in `main_content.ts`). */
  cards?: boolean;
}

/** A form holding less page text than this is furniture. */
const SMALL_FORM = 1_000;
/** Links whose text is this long on average are titles worth reading, not a menu's entries. */
const SHORT_LINK = 40;

/** Notes where an element that may matter starts. */
export function enter(c: Converter, open: Open): void {
  const w = c.w;
  // Close markers held back belong before the stretch, not inside it.
  flush(w);
  seal(w);
  open.sink = w;
  open.at = w.sealedLength;
  open.text = c.textChars;
  open.linkText = c.linkChars;
  open.links = c.linkCount;
  open.landmarks = c.landmarksSeen;
  open.titles = c.linkedTitles;
  open.homes = c.homeLinks;
  open.sites = c.siteLinks;
  // A heading inside a link to the home page: a logo's.
  if (
    open.role === HEADING && (w.links > 0 || c.textLinks > 0) && isHomePage(c.linkUrl) &&
    isOwnSite(c, c.linkUrl!)
  ) {
    c.homeLinks++;
  }
  open.inner = c.innerArticleText;
  open.replies = c.replies;
  open.prices = c.prices;
  open.cutText = c.cutText;
  open.cutTitles = c.cutTitles;
  open.cutLinks = c.cutLinks;
  if (open.role === MAIN || open.role === ARTICLE) {
    c.landmarksOpen++;
    c.landmarksSeen++;
  } else if (open.role >= FURNITURE) {
    c.furnitureOpen++;
  }
}

/**
 * Decides, as an element closes (at stack index `depth`), whether its stretch is furniture or a
 * landmark.
 */
export function leave(c: Converter, open: Open, depth: number): void {
  const role = open.role;
  if (role === MAIN || role === ARTICLE) c.landmarksOpen--;
  else if (role >= FURNITURE) c.furnitureOpen--;
  const w = c.w;
  if (open.sink !== w) return;
  flush(w);
  seal(w);
  const text = c.textChars - open.text;
  const links = c.linkChars - open.linkText;
  const start = open.at;
  const end = w.sealedLength;
  if (end <= start) return;
  // Every field set here, in one order: one shape for every stretch, which the engine reads
  // fastest (a field added later makes another).
  const s: Stretch = { start, end, text, links, declared: false, tagged: false, cards: false };
  // Furniture that holds the page's landmark is its frame, not furniture.
  const holdsLandmark = c.landmarksSeen > open.landmarks && role !== MAIN && role !== ARTICLE;
  const list = open.rule.kind === LIST;
  const main = c.mainStretch;
  // A sentence or two may introduce a list ("Here is a selection."); a long paragraph ends a
  // post, and a feed may follow it.
  if (open.name === "p") {
    c.introAt = text <= INTRO && SENTENCE_END.test(c.lastText) ? c.textChars : -1;
  }
  // The blocks right after a list cut as a menu that a sentence introduced, in what holds it.
  const listed = c.listed;
  if (listed !== undefined && depth === c.listedDepth && start - c.listedEnd <= JOINT) {
    if (role === HEADING || open.name === "figure") {
      // A section's title, a figure: the article may yet go on.
      c.listedEnd = end;
    } else {
      // The article's prose goes on after it: a selection it names ("Here are a few."), not a
      // feed after its last paragraph. Its links read as text, as in an introduced list.
      if (
        open.name === "p" && text - links >= PROSE && links <= 0.5 * text &&
        (SENTENCE_END.test(c.lastText) || c.lastText.endsWith(":")) &&
        w.cuts[c.listedIndex] === listed
      ) {
        // Only the cuts inside this paragraph come after it: linear.
        w.cuts.splice(c.listedIndex, 1);
        c.linkChars -= listed.links;
      }
      c.listed = undefined;
    }
  }
  switch (role) {
    case WIDGET:
      // A page builder's block of the post: much text, nearly all outside links (a sidebar's
      // text box holds a few lines).
      if (text >= SMALL_FORM && links <= 0.1 * text) break;
    // falls through
    case FURNITURE:
      // A list named as furniture (a feed, a gallery's legends, a comment thread) is a collection,
      // not a wrapper of the post: cut however much of the page it holds.
      if (!holdsLandmark) cut(c, open, s, list);
      break;
    case DECLARED:
      s.tagged = true;
      if (!holdsLandmark) cut(c, open, s, true);
      break;
    case FORM:
      if (!holdsLandmark && text < SMALL_FORM) cut(c, open, s);
      break;
    case BLOCK: {
      // Read from the last text written, not from the sink: reading a string built by appends
      // flattens it, and doing so at every block would be quadratic.
      if (c.lastTextAt === open.text && text >= 9 && text <= 31 && AD_LINE.test(c.lastText)) {
        cut(c, open, s);
        break;
      }
      // A list whose items each offer a "Reply": reader comments, whatever its class says.
      if (!holdsLandmark && list && c.replies - open.replies >= MIN_REPLIES) {
        cut(c, open, s, true);
        break;
      }
      const count = c.linkCount - open.links;
      // A product's box shows its price: a product named in the article (a reader wants its name
      // and price with its bullets), no menu however many links it has; nor a teaser list.
      const prices = c.prices - open.prices;
      // Teasers may each be an `<article>` (cards, mostly their links): three or more of them,
      // with little prose beside them, are no frame of the page's own article.
      const cards = c.landmarksSeen - open.landmarks >= MIN_TEASERS && links > 0.5 * text &&
        !(main && main.start >= start) &&
        text - links - (c.cutText - open.cutText - (c.cutLinks - open.cutLinks)) <
          2 * TEASER_TEXT;
      if ((!holdsLandmark || cards) && isTeasers(c, open, text, links)) {
        cut(c, open, s, true);
        break;
      }
      // A list its text introduces ("… are worth a look:") names what the article enumerates,
      // not a menu, however short its links: they read as its text, and that of what holds it.
      if (list && open.flag) {
        c.linkChars -= links;
        break;
      }
      // Mostly links, and short ones: menus, tag clouds, link farms (not a list of titles, nor
      // a paragraph's sentence, whatever its links). Mostly links to the site's own pages, three
      // or more, is its feed or teasers ("Latest news", "Most read", cards of an image and a
      // title) however long their titles, unless a paragraph: sources and references lead to
      // other sites.
      // Not a block with prose of its own beside them (a chapter's paragraph after its table of
      // contents): a paragraph outside what was cut inside it, whose rest is not mostly links.
      const own = text - c.cutText + open.cutText;
      const ownLinks = links - c.cutLinks + open.cutLinks;
      if (
        !holdsLandmark && prices === 0 && count >= 2 && links > 0.5 * text &&
        !(c.proseAt >= open.text && 2 * ownLinks < own && own - ownLinks >= PARAGRAPH) &&
        (links < SHORT_LINK * count ||
          open.name !== "p" && count >= MIN_TEASERS && 2 * (c.siteLinks - open.sites) > count) &&
        !(open.name === "p" && text - links >= PROSE_PER_LINK * count &&
          SENTENCE_END.test(c.lastText))
      ) {
        cut(c, open, s);
        if (list && open.text === c.introAt) {
          c.listed = s;
          c.listedDepth = depth;
          c.listedEnd = end;
          c.listedIndex = w.cuts.length - 1;
        }
      }
      break;
    }
    case HEADING:
      // The site's name over the page (a logo's heading), not the article's title.
      if (c.homeLinks > open.homes && links >= text) cut(c, open, s);
      else if (w === c.root) c.headings.push({ ...s, level: open.name });
      break;
    case MAIN:
      // The first `<main>`; or one around it, closing later: a `<main>` nested in blocks of the
      // page's own (a place's description on a map) is part of the page's.
      if (w === c.root && (!main || start <= main.start)) c.mainStretch = s;
      break;
    case ARTICLE:
      // Only outermost articles compete; one inside another is part of it, and one whose text
      // is mostly in several others is a list of teasers.
      if (c.landmarksOpen > 0) {
        c.innerArticleText += text;
      } else if (
        c.landmarksSeen - open.landmarks > 2 && c.innerArticleText - open.inner > 0.5 * text
      ) {
        if (isTeasers(c, open, text, links)) {
          cut(c, open, s, true);
        }
      } else if (text < TEASER_TEXT && links > 0.5 * text) {
        // A small article that is mostly its link (a tile: a thumbnail, a headline) is a teaser.
        cut(c, open, s, true);
      } else if (w === c.root && !(main && main.start <= start && end <= main.end)) {
        c.articles.push(s);
      }
      break;
  }
}

/**
 * Three or more linked titles, each with little more than a summary: teasers ("Recommended for
 * You", "Most Popular"), however long their titles, and however much of the page. Counted
 * without the stretches cut inside (a wrapper of menus and of the post is no list), or with
 * them when what remains, but for two teasers' worth, is a third links or more, and its text
 * outside links is no more than two teasers' (else it holds the post: a page's wrapper of a
 * mega menu, the post and a sidebar). A product's box shows its price: a product named in the
 * article, not a teaser, however many links it has.
 */
function isTeasers(c: Converter, open: Open, text: number, links: number): boolean {
  const titles = c.linkedTitles - open.titles;
  const restTitles = titles - c.cutTitles + open.cutTitles;
  const rest = text - c.cutText + open.cutText;
  const restLinks = links - c.cutLinks + open.cutLinks;
  return titles >= MIN_TEASERS && c.prices - open.prices < titles &&
    (restTitles >= MIN_TEASERS && rest < TEASER_TEXT * restTitles ||
      text < TEASER_TEXT * titles && 3 * restLinks + 2 * TEASER_TEXT > rest &&
        rest - restLinks < 2 * TEASER_TEXT);
}

/**
 * Cuts `stretch`, what `open` wrote. One cut however much it holds (`declared`, see
 * `Stretch.declared`), or mostly links (a menu), is counted, with what was cut inside it; others
 * may yet be kept, as most of the page.
 */
function cut(c: Converter, open: Open, stretch: Stretch, declared = false): void {
  const count = c.linkCount - open.links;
  stretch.declared = declared;
  stretch.cards = (open.role === BLOCK || open.role === ARTICLE) && c.replies === open.replies &&
    count > 0 && stretch.text > CARD * count;
  c.w.cuts.push(stretch);
  // A paragraph cut is no prose of the block around (see `PARAGRAPH`).
  if (c.proseAt >= open.text) c.proseAt = -1;
  if (!declared && 2 * stretch.links <= stretch.text) return;
  c.cutText = open.cutText + stretch.text;
  c.cutTitles = open.cutTitles + c.linkedTitles - open.titles;
  c.cutLinks = open.cutLinks + stretch.links;
}

/** Text per link of cards with summaries; a menu's entries or a list of headlines hold less. */
const CARD = 150;
/** A text this long is a paragraph's, not a label's or a menu entry's. */
export const PARAGRAPH = 100;
/** Texts this short are read for a comment's control or a price. */
export const SHORT_TEXT = 40;
/** A text that is only a comment's control. */
const REPLY = /^(?:reply|respond)$/i;
/**
 * A text that starts with a price (after a word at most: "from $610", "Price: 29 €"): a
 * currency sign before a number, or a currency after it. (A headline's sum is further in.)
 */
const PRICE = /^(?:\S+ )?(?:[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|£|USD|EUR|GBP)(?![a-z]))/i;
/**
 * Counts a short text that is a comment's "Reply" or starts with a price. Most texts are ruled
 * out by their length or by their first character and the one after their first space, without
 * a regular expression: this runs on every short text of the page.
 */
export function noteShortText(c: Converter, text: string): void {
  const n = text.length;
  if ((n === 5 || n === 7) && REPLY.test(text)) c.replies++;
  const space = text.indexOf(" ");
  if (
    (mayStartPrice(text.charCodeAt(0)) ||
      (space > 0 && mayStartPrice(text.charCodeAt(space + 1)))) &&
    PRICE.test(text)
  ) c.prices++;
}

/** A digit or a currency sign. */
function mayStartPrice(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 36 || code === 163 || code === 165 ||
    code === 8364 ||
    code === 8377;
}

/**
 * Markdown characters between two stretches or blocks that still count as touching, one right
 * after the other (a line break).
 */
export const JOINT = 2;
/** A paragraph that introduces a list holds this much text at most. */
const INTRO = 250;
/** A paragraph of prose (a sentence, or one introducing what follows) has this much text outside
 * links at least. */
const PROSE = 60;
/** A list of comments offers this many replies at least. */
const MIN_REPLIES = 2;
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
