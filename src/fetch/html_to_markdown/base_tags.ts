/**
 * Where the first `<base href>` may be: browsers resolve every link against it, even links
 * before it, so it is looked for in the head before the main pass.
 *
 * @module
 */

/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;

/**
 * The first few `<base …>` tags of the page's head (the first 64 KB), each up to its `>`, in
 * order: the first whose href a converter reads is the page's base.
 */
export function* baseTags(page: string): Generator<string> {
  const html = page.length > BASE_SCAN ? page.slice(0, BASE_SCAN) : page;
  let tries = 0;
  for (let index = nextBase(html, 0); index >= 0; index = nextBase(html, index + 1)) {
    if (tries++ === 4) return;
    const end = html.indexOf(">", index);
    yield html.slice(index, end < 0 ? html.length : end + 1);
  }
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
