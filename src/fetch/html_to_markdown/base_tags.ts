/**
 * Where the first `<base href>` may be: browsers resolve every link against it, even links
 * before it, so it is looked for in the head before the main pass.
 *
 * @module
 */

/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;

/**
 * How much of the page's head (its first 64 KB) holds its first few `<base …>` tags: up to the
 * `>` of the last, 0 when there is none. A converter of that much reads the first `<base href>`
 * as the main pass would, and as browsers do, not one in a comment or a script.
 */
export function baseScanEnd(page: string): number {
  const html = page.length > BASE_SCAN ? page.slice(0, BASE_SCAN) : page;
  let end = 0;
  let tries = 0;
  for (let index = nextBase(html, 0); index >= 0 && tries++ < 4; index = nextBase(html, end)) {
    const close = html.indexOf(">", index);
    end = close < 0 ? html.length : close + 1;
  }
  return end;
}

/**
 * Where the next `<base` tag (in any case, then a space, `/` or `>`) starts from `from`, or -1.
 * Searched as `<b` and `<B` with `indexOf`: twice as fast as a case-insensitive expression.
 */
function nextBase(html: string, from: number): number {
  let lower = html.indexOf("<b", from);
  let upper = html.indexOf("<B", from);
  while (lower >= 0 || upper >= 0) {
    let at: number;
    if (upper < 0 || (lower >= 0 && lower < upper)) {
      at = lower;
      lower = html.indexOf("<b", at + 1);
    } else {
      at = upper;
      upper = html.indexOf("<B", at + 1);
    }
    if (isBaseTag(html, at)) return at;
  }
  return -1;
}

/** Whether `<b` at `at` goes on as `ase` in any case, then a space, `/` or `>`. */
function isBaseTag(html: string, at: number): boolean {
  if (
    (html.charCodeAt(at + 2) | 32) !== 97 || (html.charCodeAt(at + 3) | 32) !== 115 ||
    (html.charCodeAt(at + 4) | 32) !== 101
  ) return false;
  const next = html.charCodeAt(at + 5);
  // \t \n \f \r space / >
  return next === 9 || next === 10 || next === 12 || next === 13 || next === 32 || next === 47 ||
    next === 62;
}
