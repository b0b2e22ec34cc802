/**
 * URLs as the converter writes them: resolved against the page, in a form Markdown reads back.
 *
 * @module
 */

// Links already in the form the URL parser would serialise them to: an absolute http(s) URL
// with a plain lowercase host, or a root-relative path, without dot segments and without
// characters the parser would escape. They skip the parser, which costs a fifth of the run.
// (Parentheses stay as they are everywhere, an apostrophe in the path and the fragment.)
const PLAIN_ABSOLUTE = /^https?:\/\/(?![^/]*xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*(?<![.\d])\//;
// Sticky: it reads an absolute URL's path in place, from its `lastIndex`, without a copy.
const PLAIN_PATH =
  /[\w\-.~!$&'()*+,;=:@%/]*(?:\?[\w\-.~!$&()*+,;=:@%/?]*)?(?:#[\w\-.~!$&'()*+,;=:@%/?#]*)?$/y;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)|%2e/i;
/** A plain absolute URL of a host alone, maybe then a query: the parser adds the root path `/`. */
const PLAIN_HOST = /^https?:\/\/(?![^/]*xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*(?<![.\d])(?=[?#]|$)/;
// A URL of a scheme other than the web's (and than the other special ones) whose path is opaque
// (`mailto:`, `tel:`, `javascript:`, `data:`): it ignores the base and always parses, and
// it is no web address, so only its scheme is read. A long `data:` image costs the parser most.
const OPAQUE = /^(?!(?:https?|ftp|file|wss?):)[a-z][a-z0-9+.-]*:(?!\/)/;

let lastBase: URL | undefined;
let lastOrigin = "";
let lastScheme = "";

/**
 * Resolves `href` against `base` as the URL parser does; `undefined` when it is not a URL. A URL
 * of another scheme with an opaque path (`mailto:`, `data:`) comes back as written.
 */
export function resolve(href: string, base: URL): string | undefined {
  // A URL's getters compute their strings on every call: the last base's are kept.
  if (base !== lastBase) {
    lastBase = base;
    const web = base.protocol === "https:" || base.protocol === "http:";
    lastOrigin = web ? base.origin : "";
    lastScheme = web ? base.protocol : "";
  }
  const slash = href.charCodeAt(0) === 47 && lastOrigin !== "";
  // A scheme-relative `//host/…` takes the base's scheme.
  const url = slash && href.charCodeAt(1) === 47 ? lastScheme + href : href;
  const root = slash && url === href;
  if ((root || PLAIN_ABSOLUTE.test(url)) && !DOT_SEGMENT.test(url)) {
    PLAIN_PATH.lastIndex = root ? 0 : url.indexOf("/", 8);
    if (PLAIN_PATH.test(url)) return root ? lastOrigin + url : url;
  }
  const host = PLAIN_HOST.exec(url)?.[0];
  if (host !== undefined) {
    PLAIN_PATH.lastIndex = host.length;
    if (PLAIN_PATH.test(url)) return host + "/" + url.slice(host.length);
  }
  // (Tested after the plain forms, which all start with `/` or `http`: most links skip it.)
  if (OPAQUE.test(href)) return href;
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

/**
 * `href` resolved against `base` when it is a web address (`http:` or `https:`), else
 * `undefined`. Every other scheme (`file:`, `javascript:`, `data:`, `mailto:`, `tel:`, custom
 * app schemes…) reads local files, runs code or leaves the web wherever a host renders the
 * Markdown, so such links and images become text. The scheme is read from the resolved URL, as
 * the URL parser writes it: case, surrounding spaces, tabs and line breaks inside, character
 * references, and a relative URL against a base of another scheme all end up there.
 */
export function webUrl(href: string, base: URL): string | undefined {
  const url = resolve(href, base);
  return url !== undefined && isWebUrl(url) ? url : undefined;
}

/** Whether a URL as {@linkcode resolve} returns it is a web address. */
export function isWebUrl(url: string): boolean {
  // Read by its characters: `startsWith`, called on every link, is not inlined in Deno's V8.
  if (url.charCodeAt(0) !== 104 || url.charCodeAt(3) !== 112) return false; // h, p
  const c = url.charCodeAt(4);
  return url.charCodeAt(1) === 116 && url.charCodeAt(2) === 116 &&
    (c === 58 || (c === 115 && url.charCodeAt(5) === 58)); // t t, then `:` or `s:`
}

/**
 * A link target as Markdown reads it: in angle brackets when spaces or parentheses would end it,
 * with the characters that would end or escape the brackets percent-encoded.
 */
export function formatUrl(href: string): string {
  return /[\s()<>\\]/.test(href) ? `<${href.replace(/[<>\s\\]/g, encodeURIComponent)}>` : href;
}

/** Query parameters that only track the click (campaigns, ad and mail clicks, shares). */
const TRACKING = new Set(
  ("fbclid gclid dclid gbraid wbraid msclkid yclid twclid ttclid li_fat_id mc_cid mc_eid _hsenc " +
    "_hsmi igshid mkt_tok oly_anon_id oly_enc_id vero_id _ga _gl ref_src s_cid").split(" "),
);
/** A quick look for any of them, so most URLs skip the split. */
const MAYBE_TRACKING = new RegExp(`[?&](?:utm_|${[...TRACKING].join("|")})`, "i");
/**
 * On Amazon's stores, the parameters of an affiliate's link (Associates: its id, its kind of
 * link, its campaign, its language) and of the click that led to it (search, ranking; a shopping
 * ad's `hv*`): they cost a list of products more tokens than its names.
 */
const AMAZON_TRACKING = new Set(
  ("tag ref ref_ linkcode linkid ascsubtag camp creative creativeasin language qid sr crid " +
    "sprefix content-id dib dib_tag hydadcr").split(" "),
);
/** An Amazon store's host, as `resolve` writes it (lowercase), up to the end of the authority. */
const AMAZON_HOST = /^https?:\/\/(?:[a-z0-9-]+\.)*amazon\.(?:com?\.)?[a-z]{2,3}(?=[/?#]|:\d+\/)/;
/**
 * A product's page there: its path names the product, so its query only tells the click's (the
 * search's words, the ad group, the store's section), but for the variant and the seller picked.
 */
const AMAZON_PRODUCT = /^[^?#]*\/(?:dp|gp\/product|gp\/aw\/d)\/[A-Z0-9]{10}(?:[/?#]|$)/;
const PRODUCT_CHOICE = new Set(["th", "psc", "smid"]);

/**
 * `url` without its tracking parameters (`utm_*`, `fbclid`, `gclid`, …; on Amazon's stores, an
 * affiliate's `tag`, `linkCode`, `linkId`, `ref_`, an ad's `hvadid`, …).
 */
export function stripTracking(url: string): string {
  // Only a query holds parameters: none without a `?` (most links), nor after the `#`.
  const question = url.indexOf("?");
  let hash = url.indexOf("#");
  if (hash < 0) hash = url.length;
  if (question < 0 || question > hash) return url;
  const amazon = AMAZON_HOST.test(url);
  if (!amazon && !MAYBE_TRACKING.test(url)) return url;
  const product = amazon && AMAZON_PRODUCT.test(url);
  const kept: string[] = [];
  for (const pair of url.slice(question + 1, hash).split("&")) {
    const equals = pair.indexOf("=");
    const name = (equals < 0 ? pair : pair.slice(0, equals)).toLowerCase();
    if (
      pair !== "" && !name.startsWith("utm_") && !TRACKING.has(name) &&
      !(amazon && (AMAZON_TRACKING.has(name) || name.startsWith("hv"))) &&
      !(product && !PRODUCT_CHOICE.has(name))
    ) kept.push(pair);
  }
  const query = kept.length > 0 ? "?" + kept.join("&") : "";
  return url.slice(0, question) + query + url.slice(hash);
}
