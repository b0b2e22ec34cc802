/**
 * The one thing `web_fetch` and `web_search` ask of a domain policy: whether a URL may be
 * used. `DomainPolicy` implements it; so can any object of your own.
 *
 * @example
 * ```ts
 * import type { UrlPolicy } from "@outpost/agent-tools";
 * const onlyDocs: UrlPolicy = { permits: (url) => new URL(url).hostname.endsWith("docs.example.com") };
 * ```
 */
export interface UrlPolicy {
  /** Whether `url` (an absolute URL, or a bare host) may be fetched or shown. */
  permits(url: string): boolean;
}
