// What nativeWebSearch and nativeWebFetch check alike: the options object, its keys, the two
// domain lists, the logger, and the one-note-per-option warning about ignored settings.
import { SetupError } from "../errors.ts";
import { checkOption, implementing } from "../option_checks.ts";
import { describeValue } from "../validation.ts";
import { parseDomainRules } from "./domain_rule.ts";
import { isPublicSuffix } from "./public_suffix.ts";

/**
 * Receives the notes about options a provider cannot honour and that are therefore ignored.
 * `console` is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HostedSearchLogger, nativeWebSearch } from "@outpost/agent-tools/hosted";
 * const notes: string[] = [];
 * const logger: HostedSearchLogger = { warn: (message) => notes.push(message) };
 * nativeWebSearch({ maxUses: 2, logger }).toOpenAI();
 * assert.match(notes[0], /maxUses is ignored for OpenAI/);
 * ```
 */
export interface HostedSearchLogger {
  /** Called once per ignored option and provider. */
  warn(message: string): void;
}

/** The domain lists, canonical, and the warning function of a hosted tool's options. */
export interface HostedBasics {
  allowed?: readonly string[];
  blocked?: readonly string[];
  /** `ignore(provider)(option, why)` notes, once, that `option` is ignored for `provider`. */
  ignore(provider: string): (option: string, why: string) => void;
}

/**
 * Checks what every hosted tool's options share: an object of known keys, at most one of
 * `allowedDomains` and `blockedDomains` (valid rules, an allow list not empty), the logger.
 */
export function hostedBasics(
  factory: string,
  options: unknown,
  keys: ReadonlySet<string>,
): HostedBasics {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new SetupError(`${factory} options must be an object, not ${describeValue(options)}.`);
  }
  const given = options as Record<string, unknown>;
  const unknown = Object.keys(given).filter((key) => !keys.has(key));
  if (unknown.length > 0) {
    throw new SetupError(
      `Unknown ${factory} option${unknown.length === 1 ? "" : "s"} ${
        unknown.map((k) => `\`${k}\``).join(", ")
      }.`,
      { hint: `Known options: ${[...keys].join(", ")}.` },
    );
  }
  const { allowedDomains, blockedDomains } = given;
  if (allowedDomains !== undefined && blockedDomains !== undefined) {
    throw new SetupError("Pass allowedDomains or blockedDomains, not both.", {
      hint: "An allow list already blocks everything else.",
    });
  }
  const allowed = allowedDomains === undefined
    ? undefined
    : parseDomainRules(allowedDomains as string[], "allowedDomains", isPublicSuffix).map((rule) =>
      rule.text
    );
  if (allowed?.length === 0) {
    throw new SetupError("allowedDomains is empty, which would allow no domain at all.", {
      hint: "List at least one domain, or leave allowedDomains out.",
    });
  }
  const blocked = blockedDomains === undefined
    ? undefined
    : parseDomainRules(blockedDomains as string[], "blockedDomains", isPublicSuffix).map((rule) =>
      rule.text
    );
  const logger = checkOption(
    "logger",
    given.logger ?? console,
    implementing<HostedSearchLogger>("HostedSearchLogger", ["warn"], "warn(message)"),
  );
  const warned = new Set<string>();
  return {
    ...(allowed && { allowed: Object.freeze(allowed) }),
    ...(blocked && { blocked: Object.freeze(blocked) }),
    ignore: (provider) => (option, why) => {
      const key = `${provider}:${option}`;
      if (warned.has(key)) return;
      warned.add(key);
      logger.warn(`${factory}: ${option} is ignored for ${provider}: ${why}.`);
    },
  };
}

/**
 * Options of a hosted tool's `toGemini`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type GeminiHostedOptions, nativeWebSearch } from "@outpost/agent-tools/hosted";
 * const options: GeminiHostedOptions = { auditOnly: true };
 * const tool = nativeWebSearch({ allowedDomains: ["deno.com"] }).toGemini(options);
 * assert.deepEqual(tool, { googleSearch: {} });
 * ```
 */
export interface GeminiHostedOptions {
  /**
   * Gemini's hosted tools take no domain filter, so a tool built from domain rules throws
   * {@linkcode SetupError} unless you pass `true` here, accepting that the rules are only
   * checked afterwards, by `DomainPolicy.audit`. Default `false`.
   */
  auditOnly?: boolean;
}
