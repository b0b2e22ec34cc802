/**
 * Contract suites for the seams Outpost's stores plug into, to run against an implementation
 * of your own (Redis, Postgres, another KV): the checks the bundled ones pass. Web APIs only;
 * each suite takes your test runner's registration function.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import { urlCacheContract } from "@outpost/agent-tools/testing";
 * // In a test file: test: Deno.test (or node:test's test, Vitest's it).
 * let cases = 0;
 * await urlCacheContract({
 *   name: "MemoryUrlCache",
 *   create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
 *   test: async (_name, fn) => {
 *     await fn();
 *     cases++;
 *   },
 *   expiresOnClock: true,
 * });
 * assert.ok(cases > 10);
 * ```
 *
 * @module
 */
export { FakeClock } from "./fake_clock.ts";
// The UrlCache seam (src/fetch/url_cache.ts).
export {
  urlCacheContract,
  type UrlCacheContractOptions,
  type UrlCacheUnderTest,
} from "./url_cache_contract.ts";
// The QuestionChannel seam: its suite is ./question_channel_contract.ts.
