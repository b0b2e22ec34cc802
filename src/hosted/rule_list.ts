import { SetupError } from "../errors.ts";
import type { UrlPolicy } from "../url_policy.ts";
import { covers, type DomainRule, parseDomainRules, resolveTarget } from "./domain_rule.ts";
import type { Verdict } from "./policy_audit.ts";

/**
 * A validated list of domain rules in one mode, judging URLs: the matching part of
 * `DomainPolicy`, and all of what a runtime without the public suffix list (the Worker)
 * applies. Matching needs no public suffix list; only refusing a rule that names a suffix does.
 */
export class RuleList implements UrlPolicy {
  /** `"allow"`: only the rules' domains are permitted; `"block"`: all but them. */
  readonly mode: "allow" | "block";
  /** The rules, validated, duplicates removed. */
  readonly rules: readonly DomainRule[];

  /**
   * Validates `rules` (named `where` in errors; `isPublicSuffix` refuses suffixes, see
   * `parseDomainRules`). Throws `SetupError` for an invalid rule or an empty allow list.
   */
  constructor(
    mode: "allow" | "block",
    rules: unknown,
    where: string,
    isPublicSuffix?: (host: string) => boolean,
  ) {
    this.mode = mode;
    this.rules = parseDomainRules(rules, where, isPublicSuffix);
    if (mode === "allow" && this.rules.length === 0) {
      throw new SetupError(`${where} is empty: an allow list without rules would permit nothing.`);
    }
  }

  /** Resolves once, then answers both questions: the first covering rule and the verdict. */
  judge(urlOrHost: string): Verdict {
    const target = resolveTarget(urlOrHost);
    if (!target) return { permitted: false };
    const strict = this.mode === "allow";
    const rule = this.rules.find((rule) => covers(rule, target, strict))?.text;
    return { permitted: (rule !== undefined) === strict, rule };
  }

  /** Whether a URL or bare host may be fetched or shown; see `DomainPolicy.permits`. */
  permits(urlOrHost: string): boolean {
    return this.judge(urlOrHost).permitted;
  }
}
