import type { QuestionLimits } from "../../src/human/question_limits.ts";
import type { Clock } from "../../src/clock.ts";

/**
 * The part of a Durable Object namespace binding that {@linkcode DurableObjectQuestionChannel} uses: pass
 * the binding (`env.OUTPOST_QUESTIONS`) as it is.
 *
 * @example
 * ```ts
 * // Not asserted: a namespace is a Durable Object binding, which only workerd provides.
 * import type { DurableObjectNamespaceLike } from "@outpost/agent-tools/cloudflare";
 * function channelStub(namespace: DurableObjectNamespaceLike) {
 *   return namespace.get(namespace.idFromName("default"));
 * }
 * ```
 */
export interface DurableObjectNamespaceLike {
  /** The id of the object named `name`, the same on every call. */
  idFromName(name: string): { toString(): string };
  /** A stub for the object `id`, to send it requests. */
  get(id: { toString(): string }): {
    fetch(input: string, init?: RequestInit): Promise<Response>;
  };
}

/**
 * Options of {@linkcode DurableObjectQuestionChannel}.
 *
 * @example
 * ```ts
 * // Not asserted: the channel needs a Durable Object binding, which only workerd provides.
 * import type { DurableObjectQuestionChannelOptions } from "@outpost/agent-tools/cloudflare";
 * const options: DurableObjectQuestionChannelOptions = { waitSliceMs: 20_000 };
 * ```
 */
export interface DurableObjectQuestionChannelOptions {
  /**
   * How long one wait request to the object lasts before the ask sends the next (default 30 s):
   * a waiting ask costs 60 / `waitSliceMs` × 1000 requests a minute.
   */
  waitSliceMs?: number;
  /**
   * How long an asker's lease outlasts its wait slice (default 30 s). A question without a key
   * whose asker stops renewing it (the request was cut off) is withdrawn once its lease lapses,
   * within about a minute more.
   */
  leaseGraceMs?: number;
  /** How long answered and cancelled questions are kept, for `get` (default 7 days). */
  retainMs?: number;
  /**
   * How long after a question was resolved a retry with its key still gets its outcome (default
   * `REATTACH_WINDOW_MS`, 10 minutes); a later ask with the key asks afresh.
   */
  reattachMs?: number;
  /**
   * How long a question asked with a key stays pending once no ask waits on it (default 1 hour):
   * a retry of the same call within it re-attaches; after it the object's alarm withdraws the
   * question, and the key asks afresh.
   */
  expireMs?: number;
  /**
   * Caps on the questions pending at once in the object and per session; beyond them `ask`
   * throws `TooManyQuestionsError` and stores nothing.
   */
  limits?: QuestionLimits;
  /**
   * Times this side's pauses between retries (default the system's clock). The object reads its
   * own runtime's time for leases, slices and expiry.
   */
  clock?: Clock;
}
