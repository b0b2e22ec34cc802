/**
 * Where the first `<base href>` may be: browsers resolve every link against it, even links
 * before it, so it is looked for in the head before the main pass.
 *
 * @module
 */

/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;
/** A `<base` tag's start, in any case. */
const BASE_TAG = /<base[\t\n\f\r />]/gi;

/**
 * The first few `<base …>` tags of the page's head (the first 64 KB), each up to its `>`, in
 * order: the first whose href a converter reads is the page's base.
 */
export function* baseTags(page: string): Generator<string> {
  const html = page.length > BASE_SCAN ? page.slice(0, BASE_SCAN) : page;
  let tries = 0;
  for (const { index } of html.matchAll(BASE_TAG)) {
    if (tries++ === 4) return;
    const end = html.indexOf(">", index);
    yield html.slice(index, end < 0 ? html.length : end + 1);
  }
}
