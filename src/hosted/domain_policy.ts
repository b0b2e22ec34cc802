import type { UrlPolicy } from "../url_policy.ts";
import { RuleList } from "./rule_list.ts";
import { isPublicSuffix } from "./public_suffix.ts";
import { HostMentions } from "./host_mentions.ts";
import { type HostedWebFetch, nativeWebFetch } from "./native_web_fetch.ts";
import { type HostedWebSearch, nativeWebSearch } from "./native_web_search.ts";
import { type AuditOptions, auditTranscript, type Violation } from "./policy_audit.ts";
import {
  type PolicyWebFetchOptions,
  type PolicyWebSearchOptions,
  withRules,
} from "./policy_options.ts";

export type { AuditOptions, PolicyWebFetchOptions, PolicyWebSearchOptions, Violation };

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
  readonly #list: RuleList;
  /** Block mode only: allow mode does not read host-like words as domains. */
  readonly #mentions: HostMentions | undefined;

  private constructor(mode: "allow" | "block", rules: readonly string[]) {
    this.mode = mode;
    this.#list = new RuleList(mode, rules, `DomainPolicy.${mode} rules`, isPublicSuffix);
    this.#mentions = mode === "block"
      ? new HostMentions(this.#list.rules.map((rule) => rule.host), (name) => this.match(name))
      : undefined;
    this.rules = Object.freeze(this.#list.rules.map((rule) => rule.text));
    Object.freeze(this);
  }

  /**
   * A policy that permits only URLs some rule covers. Throws `SetupError` for an
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
    return new DomainPolicy("allow", rules);
  }

  /**
   * A policy that permits every URL no rule covers. Throws `SetupError` for an
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
    return new DomainPolicy("block", rules);
  }

  /**
   * Hosted web search configured with this policy's list (`allowedDomains` or
   * `blockedDomains`); passing a domain list again is a `SetupError`.
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
    return nativeWebSearch(withRules("nativeWebSearch", options, this.mode, this.rules));
  }

  /**
   * Hosted web fetch configured with this policy's list (`allowedDomains` or `blockedDomains`);
   * passing a domain list again is a `SetupError`.
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
    return nativeWebFetch(withRules("nativeWebFetch", options, this.mode, this.rules));
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
    return this.#list.judge(urlOrHost).rule;
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
    return this.#list.judge(urlOrHost).permitted;
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
    return auditTranscript(transcript, options, (url) => this.#list.judge(url), this.#mentions);
  }
}
