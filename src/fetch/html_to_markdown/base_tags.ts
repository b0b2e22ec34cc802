/**
 * Where the first `<base href>` may be: browsers resolve every link against it, even links
 * before it, so it is looked for in the head before the main pass.
 *
 * @module
 */
import { isSpace } from "./text.ts";

/** How far into the page the first `<base href>` is looked for before the main pass. */
const BASE_SCAN = 65_536;

/**
 * The first few `<base …>` tags of the page's head (the first 64 KB), each up to its `>`, in
 * order: the first whose href a converter reads is the page's base.
 */
export function* baseTags(page: string): Generator<string> {
  const html = page.length > BASE_SCAN ? page.slice(0, BASE_SCAN) : page;
  for (let from = 0, tries = 0; tries < 4; tries++) {
    const at = indexOfTag(html, "<base", from);
    if (at < 0) return;
    const end = html.indexOf(">", at);
    yield html.slice(at, end < 0 ? html.length : end + 1);
    from = at + 5;
  }
}

/** The first `tag` (given lowercase, e.g. `<base`) from `from`, in lower or upper case. */
function indexOfTag(html: string, tag: string, from: number): number {
  const upper = tag.toUpperCase();
  let lowerAt = html.indexOf(tag, from);
  let upperAt = html.indexOf(upper, from);
  while (lowerAt >= 0 || upperAt >= 0) {
    const at = lowerAt < 0 ? upperAt : upperAt < 0 ? lowerAt : Math.min(lowerAt, upperAt);
    const next = html.charCodeAt(at + tag.length);
    if (isSpace(next) || next === 47 || next === 62) return at;
    if (at === lowerAt) lowerAt = html.indexOf(tag, at + 1);
    else upperAt = html.indexOf(upper, at + 1);
  }
  return -1;
}
