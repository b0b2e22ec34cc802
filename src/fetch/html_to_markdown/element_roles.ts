/**
 * What an element may be for main-content detection, decided when it opens: page furniture
 * (navigation, banners, footers, sidebars, cookie bars, share bars, comment forms) by its tag,
 * ARIA role or class words, a landmark (`<main>`, `<article>`), or a block to watch.
 *
 * @module
 */
import { CLASS, HREF, ID, ROLE } from "./attributes.ts";
import type { Converter } from "./converter.ts";

// What an element may be, decided when it opens.
/** Nothing to watch. */
export const PLAIN = 0;
/** A form: furniture when small (a search box, a comment form), not when it wraps the page. */
export const FORM = 1;
/** A block: left out when it is mostly links (menus, tag clouds, link farms). */
export const BLOCK = 2;
/** `<main>` or `role="main"`. */
export const MAIN = 3;
/** `<article>`. */
export const ARTICLE = 4;
/**
 * `header` and `footer`: furniture of the page, declared (as ARIA reads them: a banner only
 * outside sectioning content); inside an article or a section, a footer is furniture by its tag.
 */
const PAGE_PART = 5;
/** `<a>`: a skip link ("Skip to content") is interface, not content. */
const LINK = 6;
/** A heading: the site's name when it is only a link to the site's home page. */
export const HEADING = 7;
// Furniture, of three kinds, from here on.
/** Furniture: its stretch is left out unless it holds a landmark or most of the page. */
export const FURNITURE = 8;
/**
 * Furniture by its tag or ARIA role (`<nav>`, `<aside>`, `role="complementary"`), not only by a
 * class word: cut however much text it holds (a live feed in the sidebar longer than the post).
 */
export const DECLARED = 9;
/**
 * A class that starts with `widget`: a sidebar's block (`widget_text`), or one of a post's that
 * a page builder names so (`widget-span`, `so-panel widget`), furniture unless nearly all text.
 */
export const WIDGET = 10;

/** What an element may be by its name alone: names listed after their role. */
const NAME_ROLES = new Map<string, number>();
for (
  const [role, names] of [
    [MAIN, "main"],
    [ARTICLE, "article"],
    [FORM, "form"],
    [LINK, "a"],
    [DECLARED, "nav aside button dialog menu search"],
    [PAGE_PART, "header footer"],
    [HEADING, "h1 h2 h3 h4 h5 h6"],
    [BLOCK, "div section ul ol dl p blockquote center details figure fieldset"],
  ] as const
) for (const name of names.split(" ")) NAME_ROLES.set(name, role);
const FURNITURE_ROLES = new Set(
  "navigation banner contentinfo complementary search menu menubar toolbar dialog".split(" "),
);
/**
 * Class and id words of furniture (much as Mozilla's Readability reads them), as whole words
 * between spaces, hyphens and underscores: `share-bar` is furniture, `shared-history` is not.
 * `widget` only starts a class (`widget`, `widget_text`: a sidebar's): page builders name every
 * block of a post `*-widget-*` (`elementor-widget-container`).
 * (The word's start is matched, not looked behind: V8 runs that faster.)
 */
const FURNITURE_NAMES = new RegExp(
  "(?:^|[^a-z0-9])(?:" +
    "ads?|adverts?|advertising|banner|breadcrumbs?|comments?|community|consent|cookies?|disqus|gdpr|legends|masthead|" +
    "menus?|(?:top|sub|main|site|primary|secondary|global)?nav(?:bar|igation)?|newsletter|" +
    "pagination|pager|popup|promos?|related|replies|share|sharing|sidebar|social|sponsors?|" +
    "subscribe|toolbar|skip|footer" +
    ")(?![a-z0-9])|(?:^|\\s)(widgets?)(?![a-z0-9])",
  "i",
);
/**
 * Words that say the element may hold the content after all: an embedded post
 * (`social-media-embed`) is quoted content, Blogger's `widget Blog` wraps the posts, and
 * SiteOrigin's page builder lays the post out in `so-panel widget` blocks, however short.
 */
const CONTENT_NAMES =
  /article|body|column|content|main|shadow|embed|so-panel|(?<![a-z0-9])blog(?![a-z0-9])/i;
/** Ids of more words than this are names of sections (`sharing-with-a-friend`), not furniture. */
const ID_WORDS = 3;
const SKIP_LINK = /^\s*skip\b/i;
/** A block that only labels an ad slot or a jump past one. */
export const AD_LINE =
  /^(?:advertisements?|sponsored|continue reading the main story|story continues below)$/i;

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
    case DECLARED:
      // A heading's button (an accordion's question) is the heading's text.
      return c.w.headings > 0 ? PLAIN : base;
    case ARTICLE:
    case FORM:
      return base;
    case PAGE_PART:
      if (c.landmarksOpen === 0 && !c.isOpen("section")) return DECLARED;
      // An article's footer is about it (its author, tags, licence, "Posted in"), not of it; its
      // header holds its title. Furniture, unless it holds most of the page.
      return name === "footer" ? FURNITURE : BLOCK;
    case LINK: {
      const href = c.get(HREF);
      if (href === undefined || href.trim().charCodeAt(0) !== 35) return PLAIN;
      // A jump within the page: past the menus ("Skip to content") or past an ad.
      const text = c.linkText(80) ?? "";
      return SKIP_LINK.test(text) || AD_LINE.test(text) ? FURNITURE : PLAIN;
    }
  }
  const className = c.get(CLASS);
  let id = c.get(ID);
  if (id !== undefined && wordCount(id) > ID_WORDS) id = undefined;
  // Read as they are, each time: a regular expression reads them faster than a cache would.
  const furniture = (className !== undefined && FURNITURE_NAMES.exec(className)) ||
    (id !== undefined && FURNITURE_NAMES.exec(id));
  // (One absent reads "undefined": no word of content.)
  if (furniture && !CONTENT_NAMES.test(`${className} ${id}`)) {
    return furniture[1] ? WIDGET : FURNITURE;
  }
  return base;
}

/** The words of `id` between hyphens and underscores, counted up to one past `ID_WORDS`. */
function wordCount(id: string): number {
  let words = 1;
  for (let i = 0; i < id.length && words <= ID_WORDS; i++) {
    const c = id.charCodeAt(i);
    if (c === 45 || c === 95) words++;
  }
  return words;
}

/** A site's home page: its root, or an index file. */
const HOME_PAGE = /^https?:\/\/[^/?#]+\/(?:(?:[^?#]*\/)?index\.\w+)?$/;

/** Whether a link's target is a site's home page (a logo's link, not a title's). */
export function isHomePage(url: string | undefined): boolean {
  return url !== undefined && HOME_PAGE.test(url);
}
