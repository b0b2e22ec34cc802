import type { Clock } from "../clock.ts";
import type { QuestionLimits } from "./question_limits.ts";

/**
 * Options of `StoreQuestionChannel`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   MemoryQuestionStore,
 *   StoreQuestionChannel,
 *   type StoreQuestionChannelOptions,
 * } from "@outpost/agent-tools/human";
 * const options: StoreQuestionChannelOptions = { leaseMs: 30_000, limits: { maxPendingPerSession: 5 } };
 * const channel = new StoreQuestionChannel(new MemoryQuestionStore(), options);
 * assert.deepEqual(await channel.pending, []);
 * ```
 */
export interface StoreQuestionChannelOptions {
  /**
   * How long after a question was resolved an ask with its key still re-attaches to it and gets
   * its outcome, in milliseconds (default `REATTACH_WINDOW_MS`: 10 minutes); later,
   * the same ask is asked afresh.
   */
  reattachMs?: number;
  /**
   * How long a question asked without a `key` stays pending after its asker was last heard from
   * (default `Infinity`: for a store no other process shares). A waiting ask renews its hold
   * three times per period; a question whose holds all lapsed (its process died) is withdrawn by
   * the next channel that reads it, and an answer to it is refused.
   */
  leaseMs?: number;
  /**
   * How long a question asked with a `key` stays pending once no ask waits on it (default
   * `Infinity`): a retry of the same call within it re-attaches, after it the question is
   * withdrawn. With `Infinity`, `close()` withdraws keyed questions too, since they would never
   * lapse.
   */
  expireMs?: number;
  /** Caps on the questions pending at once, in the store and per session. */
  limits?: QuestionLimits;
  /** Reads the time for records, holds and windows, and times renewals (default the system's). */
  clock?: Clock;
}
