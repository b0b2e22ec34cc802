import type { Clock } from "../clock.ts";
import type { QuestionChannel } from "../human/question_channel.ts";
import type { QuestionLimits } from "../human/question_limits.ts";
import type { ContractCase } from "./contract_case.ts";
import { FakeClock } from "./fake_clock.ts";
import { ASKING_CASES } from "./question_contract_asking.ts";
import { KEY_CASES } from "./question_contract_keys.ts";
import { WATCHING_CASES } from "./question_contract_watching.ts";
import { RECORD_CASES } from "./question_contract_records.ts";
import { check, handled } from "./question_contract_support.ts";

/**
 * What {@linkcode questionChannelContract} asks a channel's factory to build for one case: give
 * the channel `clock` (when it takes one) and the options given here; leave the rest at their
 * defaults.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import { questionChannelContract, type QuestionChannelSetup } from "@outpost/agent-tools/testing";
 * const create = ({ clock, reattachMs, limits }: QuestionChannelSetup) => {
 *   const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *   return { channel, close: () => channel.close() };
 * };
 * // Registered here by a no-op instead of Deno.test, which a test file would use:
 * assert.ok(questionChannelContract({ name: "memory", create, test: () => {} }) > 0);
 * ```
 */
export interface QuestionChannelSetup {
  /** The case's clock, which only the case moves; a channel that reads a clock reads this. */
  clock: Clock;
  /** The re-attach window the case needs, when it needs one (else the channel's default). */
  reattachMs?: number;
  /** The caps the case needs, when it needs them (else the channel's defaults). */
  limits?: QuestionLimits;
}

/**
 * The channel one case runs against, as a channel's factory builds it for
 * {@linkcode questionChannelContract}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import type { QuestionChannelFixture } from "@outpost/agent-tools/testing";
 * const channel = new MemoryQuestionChannel();
 * const fixture: QuestionChannelFixture = { channel, close: () => channel.close() };
 * assert.equal(fixture.peer, undefined); // one object, no second process: peer cases are ignored
 * await fixture.close();
 * ```
 */
export interface QuestionChannelFixture {
  /** The channel the case asks through. */
  channel: QuestionChannel;
  /**
   * A second channel object on the same store, as another process would open it, made with the
   * same setup: a durable channel gives one, and the case then answers, cancels and reads
   * through it, and checks what must hold across processes. Without it the case uses `channel`.
   */
  peer?: QuestionChannel;
  /** Closes the channels and releases the store; called once the case ends, pass or fail. */
  close(): void | Promise<void>;
}

/**
 * How to run {@linkcode questionChannelContract} against a channel.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import {
 *   questionChannelContract,
 *   type QuestionChannelContractOptions,
 * } from "@outpost/agent-tools/testing";
 * const options: QuestionChannelContractOptions = {
 *   name: "memory",
 *   create: ({ clock, reattachMs, limits }) => {
 *     const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *     return { channel, close: () => channel.close() };
 *   },
 *   test: Deno.test,
 * };
 * // Registered here by a no-op instead of Deno.test, which a test file would use:
 * assert.ok(questionChannelContract({ ...options, test: () => {} }) > 0);
 * ```
 */
export interface QuestionChannelContractOptions {
  /** Names the implementation in every case's name. */
  name: string;
  /** Builds a fresh channel, on a store of its own, for one case. */
  create(setup: QuestionChannelSetup): QuestionChannelFixture | Promise<QuestionChannelFixture>;
  /**
   * Registers one case with the test runner: `Deno.test` as it is, or an adapter to another
   * runner (`ignore` marks a case that cannot run here, `timeout` bounds it in milliseconds).
   */
  test(definition: ContractCase): unknown;
  /**
   * Whether the channel reads `setup.clock` for `askedAt`, `resolvedAt` and its windows (default
   * `true`). A channel that reads its runtime's clock instead (a Durable Object) says `false`:
   * the cases that need to move the time are then registered as ignored, saying so in their name.
   */
  readsClock?: boolean;
  /**
   * Whether `create` gives a `peer`, a second channel object on the same store (default
   * `false`): the cases of what holds across processes need one, and are ignored without it.
   */
  peer?: boolean;
  /** Each case's time limit, in milliseconds (default 60 000). */
  timeoutMs?: number;
}

/**
 * Registers the contract suite of {@linkcode QuestionChannel} with `options.test`: every behaviour
 * the package's channels share (the lifecycle pending → answered, cancelled or withdrawn;
 * re-attaching by key within the window; idempotent re-answers; approvals' decisions as data;
 * `questions()`, `resolved()` and `changes()`; the caps; `close()`; the answer and id limits),
 * each case on a fresh channel from `options.create`, with a {@linkcode FakeClock} instead of
 * sleeps. Someone writing a channel on another store (Redis, Postgres) runs it against theirs.
 * Returns how many cases were registered to run (ignored ones not counted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import { type ContractCase, questionChannelContract } from "@outpost/agent-tools/testing";
 * const cases: ContractCase[] = [];
 * const count = questionChannelContract({
 *   name: "memory",
 *   create: ({ clock, reattachMs, limits }) => {
 *     const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *     return { channel, close: () => channel.close() };
 *   },
 *   test: (definition) => cases.push(definition), // or Deno.test
 * });
 * assert.ok(count > 20);
 * await cases[0].fn();
 * ```
 */
export function questionChannelContract(options: QuestionChannelContractOptions): number {
  const { name, create, test, readsClock = true, peer: hasPeer = false } = options;
  const { timeoutMs = 60_000 } = options;
  let running = 0;
  for (const contractCase of CASES) {
    const needs = contractCase.needs ?? {};
    const missing = needs.clock && !readsClock
      ? "the channel does not read the suite's clock"
      : needs.peer && !hasPeer
      ? "the fixture has no second channel object (peer)"
      : undefined;
    running += missing ? 0 : 1;
    test({
      name: `${name}: ${contractCase.name}${missing ? ` (skipped: ${missing})` : ""}`,
      ignore: missing !== undefined,
      timeout: timeoutMs,
      fn: async () => {
        const clock = new FakeClock();
        const fixture = await create({ clock, ...contractCase.setup });
        try {
          const { channel, peer } = fixture;
          check(!peer === !hasPeer, `the fixture ${peer ? "has" : "has no"} peer: say so`);
          // resolved() and changes() are optional: a channel without them is not checked there.
          if (needs.resolved && !channel.resolved) return;
          if (needs.changes && !channel.changes) return;
          await contractCase.run({
            asker: handled(channel),
            operator: handled(peer ?? channel),
            ...(peer ? { peer: handled(peer) } : {}),
            clock,
            tick: async () => {
              await clock.advance(1);
              if (readsClock) return;
              // The channel reads its runtime's clock, which only real time moves.
              const start = Date.now();
              while (Date.now() <= start + 1) await new Promise((r) => setTimeout(r, 1));
            },
          });
        } finally {
          await fixture.close();
        }
      },
    });
  }
  return running;
}

const CASES = [...ASKING_CASES, ...KEY_CASES, ...WATCHING_CASES, ...RECORD_CASES];
