/**
 * Contract suites for the seams Outpost's stores plug into, to run against an implementation
 * of your own (Redis, Postgres, another KV): the checks the bundled ones pass. Web APIs only;
 * each suite takes your test runner's registration function.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import { type ContractCase, urlCacheContract } from "@outpost/agent-tools/testing";
 * // In a test file: test: Deno.test (or an adapter to node:test or Vitest).
 * const cases: ContractCase[] = [];
 * urlCacheContract({
 *   name: "MemoryUrlCache",
 *   create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
 *   test: (definition) => cases.push(definition),
 * });
 * for (const { fn } of cases) await fn();
 * assert.ok(cases.length > 10);
 * ```
 *
 * @module
 */
export { FakeClock } from "./fake_clock.ts";
export type { ContractCase } from "./contract_case.ts";
export { ContractViolation } from "./checks.ts";
// The UrlCache seam (src/fetch/url_cache.ts).
export {
  urlCacheContract,
  type UrlCacheContractOptions,
  type UrlCacheFixture,
  type UrlCacheSetup,
} from "./url_cache_contract.ts";
// The QuestionChannel seam (src/human/question_channel.ts).
export {
  questionChannelContract,
  type QuestionChannelContractOptions,
  type QuestionChannelFixture,
  type QuestionChannelSetup,
} from "./question_channel_contract.ts";
