import { SetupError } from "../errors.ts";
import type { UrlPolicy } from "../url_policy.ts";
import {
  covers,
  type DomainRule,
  MAX_HOST,
  parseDomainRules,
  resolveTarget,
} from "./domain_rule.ts";
import {
  type HostedWebSearch,
  nativeWebSearch,
  type NativeWebSearchOptions,
} from "./native_web_search.ts";
import { mentionText } from "./mention_text.ts";
import {
  type HostedWebFetch,
  nativeWebFetch,
  type NativeWebFetchOptions,
} from "./native_web_fetch.ts";
import { readTranscript } from "./transcript.ts";

/**
 * One place where a transcript breaks a {@linkcode DomainPolicy}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DomainPolicy, type Violation } from "@outpost/agent-tools/hosted";
 * const v: Violation = { where: "url", url: "https://evil.example/", rule: "evil.example", messageIndex: 0 };
 * const answer = { role: "assistant", content: "See https://evil.example/" };
 * assert.deepEqual(DomainPolicy.block(["evil.example"]).audit([answer]), [v]);
 * ```
 */
export interface Violation {
  /**
   * What carried the URL: a hosted-search `source`, a `citation`, a `url` written in assistant
   * text (full URLs, and Markdown or HTML link targets, scheme-relative `//host/…` ones
   * included), or, in block mode, a bare `mention` of a blocked host in assistant text.
   */
  where: "source" | "citation" | "url" | "mention";
  /** The URL, or for a mention the host name, as the transcript wrote it. */
  url: string;
  /** The block rule it matched; absent in allow mode, where no rule matched. */
  rule?: string;
  /**
   * For a provider redirect (Gemini's grounding links), the site it was judged by; a redirect
   * with no site named is reported without one, since nothing shows where it leads.
   */
  site?: string;
  /** Index, in the transcript array, of the entry it came from (0 for a single object). */
  messageIndex: number;
}

/**
 * Options of {@linkcode DomainPolicy.audit}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AuditOptions, DomainPolicy } from "@outpost/agent-tools/hosted";
 * const onlyNew: AuditOptions = { since: 1 };
 * const transcript = [
 *   { role: "assistant", content: "Earlier: evil.example" },
 *   { role: "assistant", content: "Now: evil.example" },
 * ];
 * const policy = DomainPolicy.block(["evil.example"]);
 * assert.deepEqual(policy.audit(transcript, onlyNew).map((v) => v.messageIndex), [1]);
 * ```
 */
export interface AuditOptions {
  /**
   * Audit only entries from this transcript index on (to check just the latest turn). A value
   * that is not a non-negative number audits everything, erring toward more checking.
   */
  since?: number;
}

/**
 * Options of {@linkcode DomainPolicy.nativeWebSearch}: those of
 * {@linkcode nativeWebSearch} without the domain lists, which come from the policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DomainPolicy, type PolicyWebSearchOptions } from "@outpost/agent-tools/hosted";
 * const options: PolicyWebSearchOptions = { maxUses: 3 };
 * const search = DomainPolicy.allow(["deno.com"]).nativeWebSearch(options);
 * assert.equal(search.maxUses, 3);
 * ```
 */
export type PolicyWebSearchOptions = Omit<
  NativeWebSearchOptions,
  "allowedDomains" | "blockedDomains"
>;

/**
 * Options of {@linkcode DomainPolicy.nativeWebFetch}: those of {@linkcode nativeWebFetch}
 * without the domain lists, which come from the policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DomainPolicy, type PolicyWebFetchOptions } from "@outpost/agent-tools/hosted";
 * const options: PolicyWebFetchOptions = { maxUses: 2, citations: true };
 * const tool = DomainPolicy.allow(["deno.com"]).nativeWebFetch(options).toAnthropic();
 * assert.deepEqual(tool.allowed_domains, ["deno.com"]);
 * ```
 */
export type PolicyWebFetchOptions = Omit<
  NativeWebFetchOptions,
  "allowedDomains" | "blockedDomains"
>;

// A full URL, or a scheme-relative one (`//host/…`) where a link target stands: a Markdown
// `](…)` or `[ref]: …`, an HTML `href=` or `src=`. The look-behind follows the `//`, so it runs
// only there. Cut where another URL starts so that a redirect target is checked on its own, and
// at `](`, where a URL written as a Markdown link label ends and its target begins.
const LINK_URL =
  /(?:https?:\/\/|\/\/(?<=(?:\]\(\s*<?|\]:[ \t]*<?|\b(?:href|src)\s*=\s*["']?)\/\/))(?:(?!https?:\/\/|\]\()[^\s<>"'`])+/giu;
// A host name standing on its own: not preceded or followed by a name character or a dot-label.
const HOST_NAME =
  /(?<![\p{L}\p{N}\p{M}_.-])(?:[\p{L}\p{N}\p{M}_-]+\.)+[\p{L}\p{N}\p{M}_-]+(?![\p{L}\p{N}\p{M}_-]|\.[\p{L}\p{N}\p{M}_-])/gu;
const TRAILING = ".,;:!?*_~'\"";
const CLOSER_OF: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * A list of domain rules that both prevents and audits: it configures hosted web search,
 * guards `webFetch` and `webSearch` (it is a {@linkcode UrlPolicy}), and checks what a model
 * answered against the same list.
 *
 * Rules are bare ASCII domains covering their subdomains, optionally with a path prefix on
 * whole segments (`example.com/blog` covers `/blog/…`, not `/blogger`), with at most one `*`,
 * in the path. A rule must name a registrable domain: public suffixes (`com`, `co.uk`) and
 * single labels (`localhost`) are rejected. URLs are resolved as a browser would (userinfo,
 * ports, case, trailing dots, IDNA, percent-encoding and dot segments); IP literals match no
 * rule, and other schemes (`mailto:`) have no web host. A path must match every way a server
 * might read it to be allowed, and any way (ignoring case) to be blocked: as sent, with encoded
 * `/` and `\` as separators, other escapes decoded, `;params` dropped and `//` merged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DomainPolicy } from "@outpost/agent-tools/hosted";
 *
 * const policy = DomainPolicy.allow(["developer.mozilla.org", "deno.com/blog"]);
 * assert.equal(policy.permits("https://developer.mozilla.org/en-US/docs/Web"), true);
 * assert.equal(policy.permits("https://deno.com/blogger"), false);
 * assert.equal(policy.match("DENO.com./blog/v2"), "deno.com/blog");
 * ```
 */
export class DomainPolicy implements UrlPolicy {
  /** `"allow"`: only the rules' domains are permitted; `"block"`: all but them. */
  readonly mode: "allow" | "block";
  /** The rules in canonical form (lower-case hosts, normalized paths), duplicates removed. */
  readonly rules: readonly string[];
  readonly #rules: readonly DomainRule[];
  readonly #hosts: ReadonlySet<string>;
  /** The most labels in any rule host: no longer suffix of a name can be a rule host. */
  readonly #depth: number;

  private constructor(mode: "allow" | "block", rules: DomainRule[]) {
    this.mode = mode;
    this.#rules = rules;
    this.#hosts = new Set(rules.map((rule) => rule.host));
    this.#depth = rules.reduce((most, rule) => Math.max(most, rule.host.split(".").length), 0);
    this.rules = Object.freeze(rules.map((rule) => rule.text));
    Object.freeze(this);
  }

  /**
   * A policy that permits only URLs some rule covers. Throws {@linkcode SetupError} for an
   * invalid rule or an empty list.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const docsOnly = DomainPolicy.allow(["docs.python.org", "peps.python.org"]);
   * assert.equal(docsOnly.permits("https://docs.python.org/3/"), true);
   * assert.equal(docsOnly.permits("https://python.org/"), false);
   * ```
   */
  static allow(rules: readonly string[]): DomainPolicy {
    const parsed = parseDomainRules(rules, "DomainPolicy.allow rules");
    if (parsed.length === 0) {
      throw new SetupError("DomainPolicy.allow needs at least one rule; it would permit nothing.");
    }
    return new DomainPolicy("allow", parsed);
  }

  /**
   * A policy that permits every URL no rule covers. Throws {@linkcode SetupError} for an
   * invalid rule.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const noSpam = DomainPolicy.block(["pinterest.com", "quora.com"]);
   * assert.equal(noSpam.permits("https://www.pinterest.com/pin/1"), false);
   * assert.equal(noSpam.permits("https://deno.com/"), true);
   * ```
   */
  static block(rules: readonly string[]): DomainPolicy {
    return new DomainPolicy("block", parseDomainRules(rules, "DomainPolicy.block rules"));
  }

  /**
   * Hosted web search configured with this policy's list (`allowedDomains` or
   * `blockedDomains`); passing a domain list again is a {@linkcode SetupError}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const tool = DomainPolicy.allow(["deno.com"]).nativeWebSearch({ maxUses: 3 }).toAnthropic();
   * assert.deepEqual(tool.allowed_domains, ["deno.com"]);
   * assert.equal(tool.max_uses, 3);
   * ```
   */
  nativeWebSearch(options: PolicyWebSearchOptions = {}): HostedWebSearch {
    return nativeWebSearch(this.#withRules("nativeWebSearch", options));
  }

  /**
   * Hosted web fetch configured with this policy's list (`allowedDomains` or `blockedDomains`);
   * passing a domain list again is a {@linkcode SetupError}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const tool = DomainPolicy.block(["pinterest.com"]).nativeWebFetch({ useCache: false }).toAnthropic();
   * assert.deepEqual(tool, {
   *   type: "web_fetch_20260309",
   *   name: "web_fetch",
   *   blocked_domains: ["pinterest.com"],
   *   use_cache: false,
   * });
   * ```
   */
  nativeWebFetch(options: PolicyWebFetchOptions = {}): HostedWebFetch {
    return nativeWebFetch(this.#withRules("nativeWebFetch", options));
  }

  /** `options` with this policy's list added, refusing a list passed there too. */
  #withRules<T extends object>(factory: string, options: T): T {
    const given = options as { allowedDomains?: unknown; blockedDomains?: unknown };
    for (const key of ["allowedDomains", "blockedDomains"] as const) {
      if (typeof given === "object" && given !== null && given[key] !== undefined) {
        throw new SetupError(`Don't pass ${key} to policy.${factory}: the policy sets them.`, {
          hint: "Build another DomainPolicy for a different list.",
        });
      }
    }
    const list = this.mode === "allow" ? "allowedDomains" : "blockedDomains";
    return { ...options, [list]: this.rules };
  }

  /**
   * The first rule (in list order) that covers a URL or bare host, or `undefined`. Never throws.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const policy = DomainPolicy.block(["evil.example"]);
   * assert.equal(policy.match("https://good.example@cdn.evil.example/"), "evil.example");
   * ```
   */
  match(urlOrHost: string): string | undefined {
    return this.#judge(urlOrHost).rule;
  }

  /**
   * Whether a URL or bare host may be fetched or shown. A bare host may carry a port
   * (`example.com:8080/x`); any other `name:` prefix is a scheme. Anything without a web host
   * (`mailto:` and other schemes, unparsable input) is refused in both modes. Never throws.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const policy = DomainPolicy.allow(["example.com"]);
   * assert.equal(policy.permits("https://example.com@evil.example/"), false); // the host is evil.example
   * ```
   */
  permits(urlOrHost: string): boolean {
    return this.#judge(urlOrHost).permitted;
  }

  /**
   * Checks a transcript (the shapes {@linkcode sources} accepts) against the policy: sources
   * from hosted search, citations, every full URL in assistant text (and scheme-relative link
   * targets such as `[site](//host/x)` or `href="//host/x"`) and, in block mode, bare mentions
   * of a blocked host (whole names, case-insensitive), also when written to slip past a plain
   * match: with fullwidth letters or full stops (`ｅｖｉｌ．ｃｏｍ`, `evil。com`), invisible
   * characters (`evil\u200B.com`) or a defanged dot (`evil[.]com`, `evil(dot)com`, `evil\.com`,
   * `evil&#46;com`, `evil%2Ecom`, `evil .com`, `evil . com`). A full stop followed by a blank
   * only (`the end. com`) ends a sentence and joins nothing. Allow mode does not read host-like
   * words (`config.py`) as domains. Violations come in transcript order, each reported once per entry;
   * the transcript is never modified, odd entries inside it never throw (a value that is no
   * transcript at all is a `TypeError`, as for {@linkcode sources}), and the time taken grows
   * linearly with the text, however hostile. Sources behind a provider redirect (Gemini's
   * grounding links) are judged by the site the provider names for them, and reported when it
   * names none.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DomainPolicy } from "@outpost/agent-tools/hosted";
   * const policy = DomainPolicy.block(["evil.example"]);
   * const answer = { role: "assistant", content: "See https://evil.example/deal or EVIL.example." };
   * assert.deepEqual(policy.audit([answer]), [
   *   { where: "url", url: "https://evil.example/deal", rule: "evil.example", messageIndex: 0 },
   *   { where: "mention", url: "EVIL.example", rule: "evil.example", messageIndex: 0 },
   * ]);
   * const defanged = { role: "assistant", content: "Try evil[.]example." };
   * assert.equal(policy.audit([defanged])[0].url, "evil[.]example");
   * ```
   */
  audit(transcript: unknown, options?: AuditOptions): Violation[] {
    const violations: Violation[] = [];
    const seen = new Set<string>();
    const report = (
      where: Violation["where"],
      url: string,
      messageIndex: number,
      rule?: string,
      site?: string,
    ) => {
      const key = `${where} ${messageIndex} ${url}`;
      if (seen.has(key)) return;
      seen.add(key);
      violations.push({
        where,
        url,
        ...(rule !== undefined && { rule }),
        ...(site !== undefined && { site }),
        messageIndex,
      });
    };
    const check = (
      where: Violation["where"],
      url: string,
      messageIndex: number,
      redirect?: { site?: string },
    ) => {
      // A redirect is judged by the site it names; one that names none cannot be cleared.
      if (redirect && redirect.site === undefined) return report(where, url, messageIndex);
      const { permitted, rule } = this.#judge(redirect?.site ?? url);
      if (!permitted) report(where, url, messageIndex, rule, redirect?.site);
    };
    const items = readTranscript("DomainPolicy.audit", transcript, startIndex(options));
    for (const item of items) {
      if (item.kind === "source") {
        check("source", item.source.url, item.messageIndex, item.redirect && item.source);
      } else if (item.kind === "citation") {
        const { citation } = item;
        check("citation", citation.url, citation.messageIndex, item.redirect && citation);
      } else {
        const { urls, rest } = splitUrls(item.text);
        for (const url of urls) check("url", url, item.messageIndex);
        if (this.mode === "block") {
          // Mentions are read as a person would type them: folded, invisibles dropped, defanged
          // dots undone; each is reported as written.
          const { folded, original } = mentionText(rest);
          for (const match of folded.matchAll(HOST_NAME)) {
            const name = match[0];
            if (!this.#mayCover(name)) continue;
            const rule = this.match(name);
            if (rule === undefined) continue;
            const written = original(match.index, match.index + name.length);
            report("mention", written, item.messageIndex, rule);
          }
        }
      }
    }
    return violations;
  }

  /**
   * A cheap pre-check for mentions: an ASCII name can only be covered if it is a host name and
   * one of its last few parent names (as many labels as the longest rule host) is a rule host.
   * Non-ASCII names need IDNA, so they always go to `match`, which is linear in their length.
   */
  #mayCover(name: string): boolean {
    if (/[^\p{ASCII}]/u.test(name)) return true;
    if (name.length > MAX_HOST) return false;
    const host = name.toLowerCase();
    let end = host.length;
    for (let labels = 0; labels < this.#depth && end > 0; labels++) {
      const dot = host.lastIndexOf(".", end - 1);
      if (this.#hosts.has(host.slice(dot + 1))) return true;
      end = dot;
    }
    return false;
  }

  /** Resolves once, then answers both questions: the covering rule and the verdict. */
  #judge(urlOrHost: string): { permitted: boolean; rule?: string } {
    const target = resolveTarget(urlOrHost);
    if (!target) return { permitted: false };
    const strict = this.mode === "allow";
    const rule = this.#rules.find((rule) => covers(rule, target, strict))?.text;
    return { permitted: (rule !== undefined) === strict, rule };
  }
}

function startIndex(options: unknown): number {
  try {
    const since = (options as AuditOptions | undefined)?.since;
    return typeof since === "number" && since > 0 ? Math.ceil(since) : 0;
  } catch {
    return 0;
  }
}

/**
 * The URLs in `text` (full ones, and scheme-relative link targets), trimmed of surrounding prose
 * and Markdown, and the text without them.
 */
function splitUrls(text: string): { urls: string[]; rest: string } {
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
