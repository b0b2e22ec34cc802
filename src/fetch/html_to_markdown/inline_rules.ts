/**
 * The rules of inline elements: links (which target is worth writing), emphasis markers, and
 * controls set apart from the text around them.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import type { Open } from "./element_stack.ts";
import { cutThumbnail } from "./images.ts";
import { HREF } from "./attributes.ts";
import { fragmentLink } from "./footnotes.ts";
import { isHomePage } from "./element_roles.ts";
import { isOwnSite, isSiteLink } from "./own_site.ts";
import { formatUrl, isWebUrl, resolve, stripTracking } from "./urls.ts";
import { closeInline, openInline, openLink, write } from "./writer.ts";
import { BOX, define, LINK, type Rule } from "./rule.ts";

function closeMarker(c: Converter, element: Open): void {
  if (element.flag) closeInline(c.w);
}

/**
 * The web address of the `<a>` being opened, without tracking parameters: `undefined` when it
 * links nowhere (no `href`, a fragment of this page, not a URL, or a script: a `javascript:`
 * link is a button), `OFF_WEB` when it links off the web (`mailto:`, `file:`, an app's scheme…).
 */
function linkTarget(c: Converter): string | undefined {
  const href = c.get(HREF);
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (trimmed === "" || trimmed.charCodeAt(0) === 35 /* # */) return undefined;
  const url = resolve(trimmed, c.base);
  if (url === undefined) return undefined;
  if (!isWebUrl(url)) return SCRIPT.test(url) ? undefined : OFF_WEB;
  // A place on this very page, written in full, is a fragment all the same.
  // (The page's address has no `#`: one right after it is the first.)
  if (url.charCodeAt(c.page.length) === 35 /* # */ && url.startsWith(c.page)) return undefined;
  return stripTracking(url);
}
const OFF_WEB = "";
/**
 * Targets longer than this carry a payload (an ad's click, a mail's tracking, an affiliate's
 * redirect, a shop's session): hundreds of tokens each that no reader needs. Such a link prints
 * as its text: a shortened target could lead elsewhere (a search without its query).
 */
const LONG_TARGET = 300;
/** Schemes of links that run a script or hold their content: controls, not links. */
const SCRIPT = /^(?:javascript|vbscript|data):/;

export const LINK_RULE: Rule = define({
  kind: LINK,
  implies: (c) => c.closeImplied("a"),
  // A link off the web (`mailto:`, `file:`…) is only text, but a link all the same to tell
  // page furniture: a share bar of mail links is one.
  // So is, in main-content mode, a heading that is only a link: a title, a teaser's or the
  // post's own permalink, whose text is what a reader needs and whose target one more click the
  // agent can do without.
  choose(c) {
    const url = c.linkUrl = linkTarget(c);
    if (c.w.headings > 0) {
      // A heading's link to its own place on the page (a permalink mark) is no title elsewhere.
      if (!c.titleLinked && url !== undefined) {
        c.titleLinked = true;
        c.linkedTitles++;
      }
      // The site's own home page: its logo's (another's names a brand the article is about).
      if (isHomePage(url) && isOwnSite(c, url!)) c.homeLinks++;
      if (c.main && url !== undefined) cutThumbnail(c, url);
    }
    // Main-content mode writes links it can do without as their text, unless asked to keep them.
    const short = c.main && !c.keepLinks;
    if (url === OFF_WEB || (short && url !== undefined && c.w.lead !== "" && isWholeHeading(c))) {
      return TEXT_LINK_RULE;
    }
    // In main-content mode a link to the page's own site is its text (see `own_site.ts`).
    const site = c.main && url !== undefined && isSiteLink(c, url);
    if (site) c.siteLinks++;
    c.siteLink = short && site;
    if (c.siteLink) return TEXT_LINK_RULE;
    // In main-content mode a target is written once: the same address again is only its text.
    // Not counting targets written in open furniture, which is likely cut.
    if (short && url !== undefined) {
      if (url.length > LONG_TARGET || c.linked.has(url)) return TEXT_LINK_RULE;
      if (c.furnitureOpen === 0) c.linked.add(url);
    }
    return LINK_RULE;
  },
  open(c) {
    // Links the browser shows side by side must not read as one word.
    if (c.w.afterLink) c.w.space = true;
    const url = c.linkUrl;
    if (url === undefined) {
      const href = c.get(HREF)?.trim();
      if (href !== undefined && href.length > 1 && href.charCodeAt(0) === 35 /* # */) {
        fragmentLink(c, href.slice(1));
      }
      return false;
    }
    countLink(c, url);
    // A link whose text is its own address is printed once, as the address.
    const text = c.linkText(2 * url.length);
    if (text !== undefined && sameAddress(text, url) && formatUrl(url) === url) {
      c.skipTextUntil = c.html.indexOf("<", c.tagEnd + 1);
      c.textChars += text.length;
      c.linkChars += text.length;
      write(c.w, url);
      return false;
    }
    return openLink(c.w, url);
  },
  close(c, element) {
    closeMarker(c, element);
    c.w.afterLink = true;
  },
});

/**
 * Counts a link for telling menus, unless it leads where the link before it did: a section's
 * title and its "More in …" link, a card's image and its title, are one way to go, not a choice.
 */
function countLink(c: Converter, url: string): void {
  if (url === OFF_WEB || url !== c.lastLinkUrl) c.linkCount++;
  c.lastLinkUrl = url;
}

/** A link written as its text (off the web, or a title): counted as a link's all the same. */
const TEXT_LINK_RULE: Rule = define({
  kind: LINK,
  implies: LINK_RULE.implies,
  open(c) {
    if (c.w.afterLink) c.w.space = true;
    countLink(c, c.linkUrl!);
    c.textLinks++;
  },
  close(c) {
    c.textLinks--;
    c.w.afterLink = true;
  },
});

/** Controls and other inline boxes the browser sets apart from the text around them. */
export const BOX_RULE: Rule = define({
  kind: BOX,
  open(c) {
    c.w.space = true;
  },
  close(c) {
    c.w.space = true;
  },
});

const SCHEME = /^(?:https?:\/\/)?(?:www\.)?/i;
/** A link's end, then the end of the heading it is in. */
const LINK_THEN_HEADING_END = /^<\/a\s*>\s*<\/h[1-6]\s*>/i;

/** Whether the `<a>` being opened, with plain text, is all that is left of its heading. */
function isWholeHeading(c: Converter): boolean {
  const text = c.linkText(200);
  if (text === undefined) return false;
  const at = c.html.indexOf("</", c.tagEnd + 1);
  return LINK_THEN_HEADING_END.test(c.html.slice(at, at + 40));
}

/** Whether link text shows the link's own address, give or take its scheme and a final slash. */
function sameAddress(text: string, url: string): boolean {
  if (text === url) return true;
  // Most link text is words: longer, shorter or spaced, it is no address.
  if (text.length > url.length + 1 || text.length < url.length - 13 || text.includes(" ")) {
    return false;
  }
  const a = text.replace(SCHEME, "");
  const b = url.replace(SCHEME, "");
  return a !== "" && (a === b || a + "/" === b || a === b + "/");
}

export function marker(kind: number, text: string): Rule {
  return define({ kind, open: (c) => openInline(c.w, text), close: closeMarker });
}
