import { SetupError } from "../errors.ts";
import type { NativeWebFetchOptions } from "./native_web_fetch.ts";
import type { NativeWebSearchOptions } from "./native_web_search.ts";

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

/** `options` with a policy's list added, refusing a list passed there too. */
export function withRules<T extends object>(
  factory: string,
  options: T,
  mode: "allow" | "block",
  rules: readonly string[],
): T {
  const given = options as { allowedDomains?: unknown; blockedDomains?: unknown };
  for (const key of ["allowedDomains", "blockedDomains"] as const) {
    if (typeof given === "object" && given !== null && given[key] !== undefined) {
      throw new SetupError(`Don't pass ${key} to policy.${factory}: the policy sets them.`, {
        hint: "Build another DomainPolicy for a different list.",
      });
    }
  }
  const list = mode === "allow" ? "allowedDomains" : "blockedDomains";
  return { ...options, [list]: rules };
}
