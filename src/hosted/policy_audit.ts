import type { HostMentions } from "./host_mentions.ts";
import { splitUrls } from "./link_urls.ts";
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

/** A policy's answer for one URL or host: whether it is permitted, and the rule covering it. */
export interface Verdict {
  permitted: boolean;
  rule?: string;
}

/**
 * The violations of a policy in a transcript: what `judge` refuses among sources, citations and
 * URLs in assistant text, and, given `mentions` (block mode), the bare mentions it finds.
 */
export function auditTranscript(
  transcript: unknown,
  options: AuditOptions | undefined,
  judge: (urlOrHost: string) => Verdict,
  mentions: HostMentions | undefined,
): Violation[] {
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
    const { permitted, rule } = judge(redirect?.site ?? url);
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
      for (const { written, rule } of mentions?.in(rest) ?? []) {
        report("mention", written, item.messageIndex, rule);
      }
    }
  }
  return violations;
}

function startIndex(options: unknown): number {
  try {
    const since = (options as AuditOptions | undefined)?.since;
    return typeof since === "number" && since > 0 ? Math.ceil(since) : 0;
  } catch {
    return 0;
  }
}
