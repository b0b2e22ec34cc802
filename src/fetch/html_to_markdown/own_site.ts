/**
 * The page's own site: its host, and the host its canonical address names (a copy, a mirror or
 * an AMP page still says where it lives). In main-content mode a link to another page of that
 * site is written as its text: the site's own pages (topics, sections, authors, related
 * stories, an encyclopedia's cross-references) are its navigation, reachable from the site,
 * while a link to another site (a source, a reference, a download) keeps its address, and so
 * does a link that continues the page (the next or previous page of it). On a link-dense page
 * the site's targets were most of the output's links; `content: "full"` keeps every one.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { REL } from "./attributes.ts";
import { resolve } from "./urls.ts";

/** A link to the next or previous page, by its relation or its text. */
const PAGING_REL = /(?:^|\s)(?:next|prev)(?:\s|$)/i;
const PAGING_TEXT = /^(?:next|previous|prev|older|newer)\b/i;

/** Hosts of the page's own site kept: the page's, its canonical link's, its `og:url`'s. */
const MAX_SITES = 3;

const HOST = /^https?:\/\/(?:www\.)?([^/?#:]*)/i;

/** The host of an absolute http(s) URL, lowercase and without `www.`; `""` for any other. */
function siteOf(url: string): string {
  return HOST.exec(url)?.[1].toLowerCase() ?? "";
}

/** Notes the site a canonical address (`<link rel=canonical>`, `og:url`) names. */
export function addOwnSite(c: Converter, href: string): void {
  const url = resolve(href.trim(), c.base);
  const site = url === undefined ? "" : siteOf(url);
  // The page's host and one or two canonical ones: a page naming more is not heard further.
  if (site !== "" && c.ownSites.length < MAX_SITES && !c.ownSites.includes(site)) {
    c.ownSites.push(site);
  }
}

/** Whether a link's resolved target is on the page's own site. */
function isOwnSite(c: Converter, url: string): boolean {
  const site = siteOf(url);
  return site !== "" && c.ownSites.includes(site);
}

/** Whether the `<a>` being opened is a link to another page of the site that it can do without. */
export function isSiteLink(c: Converter, url: string): boolean {
  if (!isOwnSite(c, url)) return false;
  const rel = c.get(REL);
  return !(rel !== undefined && PAGING_REL.test(rel)) && !PAGING_TEXT.test(c.linkText(40) ?? "");
}
