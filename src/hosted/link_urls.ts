// A full URL, or a scheme-relative one (`//host/…`) where a link target stands: a Markdown
// `](…)` or `[ref]: …`, an HTML `href=` or `src=`. The look-behind follows the `//`, so it runs
// only there. Cut where another URL starts so that a redirect target is checked on its own, and
// at `](`, where a URL written as a Markdown link label ends and its target begins.
const LINK_URL =
  /(?:https?:\/\/|\/\/(?<=(?:\]\(\s*<?|\]:[ \t]*<?|\b(?:href|src)\s*=\s*["']?)\/\/))(?:(?!https?:\/\/|\]\()[^\s<>"'`])+/giu;
const TRAILING = ".,;:!?*_~'\"";
const CLOSER_OF: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * The URLs in `text` (full ones, and scheme-relative link targets), trimmed of surrounding prose
 * and Markdown, and the text without them.
 */
export function splitUrls(text: string): { urls: string[]; rest: string } {
  const urls: string[] = [];
  let rest = "";
  let last = 0;
  for (const match of text.matchAll(LINK_URL)) {
    const url = trimUrl(match[0]);
    if (!/^(?:https?:)?\/\/./i.test(url)) continue;
    urls.push(url);
    rest += text.slice(last, match.index) + " ";
    last = match.index + url.length;
  }
  return { urls, rest: rest + text.slice(last) };
}

/** Drops trailing prose punctuation and closing brackets the URL did not open, in one pass. */
function trimUrl(url: string): string {
  // How many more of each closer than its opener, counted once.
  const unopened: Record<string, number> = { ")": 0, "]": 0, "}": 0 };
  for (const char of url) {
    if (char in unopened) unopened[char]++;
    else if (char in CLOSER_OF) unopened[CLOSER_OF[char]]--;
  }
  let end = url.length;
  while (end > 0) {
    const char = url[end - 1];
    if (TRAILING.includes(char)) end--;
    else if (unopened[char] > 0) {
      unopened[char]--;
      end--;
    } else break;
  }
  return url.slice(0, end);
}
