import { showUrl } from "./fence.ts";
import { showHost } from "./shown_host.ts";
import { ToolError } from "./errors.ts";

/**
 * The one thing `web_fetch` and `web_search` ask of a domain policy: whether a URL may be
 * used. `DomainPolicy` implements it; so can any object of your own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UrlPolicy } from "@outpost/agent-tools";
 * const onlyDocs: UrlPolicy = { permits: (url) => new URL(url).hostname.endsWith("docs.example.com") };
 * assert.equal(onlyDocs.permits("https://docs.example.com/intro"), true);
 * assert.equal(onlyDocs.permits("https://example.org/"), false);
 * ```
 */
export interface UrlPolicy {
  /** Whether `url` (an absolute URL, or a bare host) may be fetched or shown. */
  permits(url: string): boolean;
}

/**
 * The model-facing refusal of a URL the policy does not permit; `from` names the URL the model
 * asked for, which redirected there. A redirect's target is named by its host only: the rest
 * was chosen by the site and is printed outside the fence.
 */
export function policyRefusal(url: string, from?: string): ToolError {
  const what = from === undefined
    ? `The URL ${showUrl(url, 300)} is`
    : `${showUrl(from, 300)} redirected to a page on ${showHost(url)}, which is`;
  return new ToolError(`${what} not permitted by this tool's domain policy.`, {
    hint: "Choose a source on a permitted site.",
    code: "policy_refused",
  });
}
