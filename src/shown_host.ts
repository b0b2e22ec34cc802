/**
 * What of a third party's URL may be printed outside the fence: its host, and only a host that
 * is a DNS name or an IP address. A redirect chooses the path and query freely (words, spaces
 * encoded or not), so messages and status lines outside the fence name the host alone; a host
 * with other characters (a WHATWG host may hold `!`, `'`, `{`…) is not named at all.
 */

/** Letters, digits, hyphens and dots, an optional port; or an IPv6 literal in brackets. */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** Longer than any DNS name (253) with a port. */
const MAX_HOST = 260;

/**
 * The host (and port) of `url` for a message outside the fence, or a neutral phrase when it is
 * not a plain DNS name or address (or `url` is no URL).
 */
export function showHost(url: URL | string): string {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return "an unreadable address";
  }
  return host.length <= MAX_HOST && PLAIN_HOST.test(host) ? host : "a host with an unusual name";
}
