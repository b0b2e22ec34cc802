/**
 * One case of a contract suite, in the shape `Deno.test` takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import { type ContractCase, urlCacheContract } from "@outpost/agent-tools/testing";
 * const registered: ContractCase[] = [];
 * const test = (definition: ContractCase) => registered.push(definition);
 * urlCacheContract({ name: "MemoryUrlCache", create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }), test });
 * assert.ok(registered.length > 0 && registered.every((c) => typeof c.fn === "function"));
 * ```
 */
export interface ContractCase {
  /** The case's name: what it checks, and on which implementation. */
  name: string;
  /** Runs the case; rejects when the implementation breaks the contract. */
  fn(): Promise<void>;
  /** Set when the case cannot run on this implementation; its name says why. */
  ignore?: boolean;
  /** The case's time limit, in milliseconds. */
  timeout?: number;
}
