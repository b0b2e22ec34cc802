/**
 * The page's own site: its host, and the first host its canonical address names (a copy, a
 * mirror or an AMP page still says where it lives). In main-content mode a link to another page
 * of that site is written as its text: the site's own pages (topics, sections, authors, related
 * stories, an encyclopedia's cross-references) are its navigation, reachable from the site,
 * while a link to another site (a source, a reference, a download) keeps its address, and so
 * does a link that continues the page (the next or previous page of it). On a link-dense page
 * the site's targets were most of the output's links; `content: "full"` keeps every one.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { HREF, REL } from "./attributes.ts";
import { resolve } from "./urls.ts";

/** A link to the next or previous page, by its relation or its text. */
const PAGING_REL = /(?:^|\s)(?:next|prev)(?:\s|$)/i;
const PAGING_TEXT = /^(?:next|previous|prev|older|newer)\b/i;
const CANONICAL = /(?:^|\s)canonical(?:\s|$)/i;
const HOST = /^https?:\/\/(?:www\.)?([^/?#:]*)/i;

/** The host of a URL (resolved against the page), lowercase and without `www.`; else `""`. */
export function siteOf(c: Converter, href: string): string {
  return HOST.exec(resolve(href.trim(), c.base) ?? "")?.[1].toLowerCase() ?? "";
}

/** A `<link>`: the first `rel=canonical` names the page's own site. */
export function canonical(c: Converter): void {
  const href = c.get(HREF);
  if (href !== undefined && c.canonicalSite === "" && CANONICAL.test(c.get(REL) ?? "")) {
    c.canonicalSite = siteOf(c, href);
  }
}

/**
 * Whether the `<a>` being opened links to another page of the site that it can do without.
 * `url` is resolved already (see `resolve`): its scheme and host are lowercase, so its host is
 * compared in place, without resolving it again or copying it.
 */
export function isSiteLink(c: Converter, url: string): boolean {
  if (!isOwnSite(c, url)) return false;
  const rel = c.get(REL);
  return !(rel !== undefined && PAGING_REL.test(rel)) && !PAGING_TEXT.test(c.linkText(40) ?? "");
}

/** Whether the resolved web address `url` is on the page's own site. */
export function isOwnSite(c: Converter, url: string): boolean {
  return onSite(url, c.site) || onSite(url, c.canonicalSite);
}

/** Whether the resolved web address `url` is on `site` (a host as `siteOf` gives it). */
function onSite(url: string, site: string): boolean {
  if (site === "") return false;
  let at = url.indexOf("//") + 2;
  if (url.startsWith("www.", at)) at += 4;
  if (!url.startsWith(site, at)) return false;
  // The host ends where `HOST` ends it.
  const end = at + site.length;
  if (end === url.length) return true;
  const next = url.charCodeAt(end);
  return next === 47 || next === 63 || next === 35 || next === 58; // / ? # :
}
