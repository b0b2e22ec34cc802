import type {
  ApprovalDecision,
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "./question.ts";

/**
 * Carries `ask_human` questions to an operator and their answers back. `MemoryQuestionChannel` keeps
 * them in memory; `DenoKvQuestionChannel` (`@outpost/agent-tools/deno`) and `DurableObjectQuestionChannel`
 * (`@outpost/agent-tools/cloudflare`, on a Durable Object) keep them durably, and any store with
 * atomic writes can stand behind the same interface. Operator methods
 * may return promises so that durable channels fit; `answer` and `cancel` resolve to `false`,
 * never throw, for a question that is unknown or no longer pending.
 *
 * Every implementation follows the same re-attach rule (see {@linkcode QuestionRequest.key}):
 * an ask re-attaches by key to a pending question, or to one resolved within the re-attach
 * window (a `reattachMs` option, default {@linkcode REATTACH_WINDOW_MS}, counted from the
 * record's `resolvedAt`); never to a withdrawn one. The window is what stops a stale answer from
 * being handed to a later, identical question under a reused key; it must cover a retry after a
 * dropped connection or a restart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionChannel } from "@outpost/agent-tools/human";
 * async function approveAll(channel: QuestionChannel): Promise<void> {
 *   for await (const q of channel.questions()) await channel.answer(q.id, "yes");
 * }
 * const channel = new MemoryQuestionChannel();
 * const operator = approveAll(channel);
 * const outcome = await channel.ask({ question: "Proceed?", options: [], multiSelect: false });
 * assert.deepEqual(outcome, { status: "answered", answer: "yes" });
 * channel.close(); // ends `questions()`, and so the operator's loop
 * await operator;
 * ```
 */
export interface QuestionChannel {
  /**
   * Asks a question and waits for its outcome. Aborting `signal` withdraws the question from
   * `pending` at once and rejects with the signal's reason.
   */
  ask(request: QuestionRequest, options?: { signal?: AbortSignal }): Promise<QuestionOutcome>;
  /** A snapshot of the questions still waiting for an answer, oldest first. */
  readonly pending: readonly HumanQuestion[] | Promise<readonly HumanQuestion[]>;
  /** The questions as they are asked, for one consumer; ends when the channel closes. */
  questions(): AsyncIterableIterator<HumanQuestion>;
  /** What the channel knows of `id`: `undefined` for an id it never had or has forgotten. */
  get(id: string): QuestionRecord | undefined | Promise<QuestionRecord | undefined>;
  /**
   * Answers a pending question with a text or, for an approval, an {@linkcode ApprovalDecision};
   * `true` when the question now has this answer: this call resolved it, or an earlier call gave
   * it the very same answer (a retry after a lost response succeeds; a different answer does
   * not). Throws a `RangeError`, and changes nothing, for a text or reason longer than
   * {@linkcode MAX_ANSWER_LENGTH}, and a `TypeError` for a malformed decision.
   */
  answer(id: string, answer: string | ApprovalDecision): boolean | Promise<boolean>;
  /**
   * Cancels a pending question; `true` when this call resolved it, or an earlier cancel did with
   * the same reason (a retry). Throws a `RangeError`, and changes nothing, for a reason longer
   * than {@linkcode MAX_ANSWER_LENGTH}.
   */
  cancel(id: string, reason?: string): boolean | Promise<boolean>;
  /**
   * Optional: the most recently resolved questions the channel still keeps (answered, cancelled
   * or withdrawn), newest resolution first, at most `limit` of them and never more than 100 (a
   * larger `limit` is taken as 100). Throws a `RangeError` for a `limit` that is not a positive
   * whole number. A channel keeps resolved questions for a while only (`remember`, `retainMs`),
   * so this is a recent history, not an archive. The operator console lists it as its history;
   * without it the console shows only what it saw resolved itself.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoryQuestionChannel, type QuestionChannel } from "@outpost/agent-tools/human";
   * async function lastOutcomes(channel: QuestionChannel): Promise<string[]> {
   *   const records = (await channel.resolved?.(10)) ?? [];
   *   return records.map((r) => r.status === "answered" ? r.answer : `(${r.status})`);
   * }
   * const channel = new MemoryQuestionChannel();
   * const outcome = channel.ask({ question: "Proceed?", options: [], multiSelect: false });
   * for await (const q of channel.questions()) {
   *   await channel.answer(q.id, "Yes");
   *   break;
   * }
   * await outcome;
   * assert.deepEqual(await lastOutcomes(channel), ["Yes"]);
   * ```
   */
  resolved?(limit: number): readonly QuestionRecord[] | Promise<readonly QuestionRecord[]>;
  /**
   * Optional: yields once it is watching (a read after that misses no change), then each time
   * the questions may have changed (one was asked, answered or cancelled), and ends when
   * `signal` aborts or the channel closes. A channel that can push its changes offers this so
   * that watchers (the operator console's event stream) need not poll `pending`; without it they
   * poll. A yield carries no detail: read `pending` and `get` again.
   */
  changes?(signal: AbortSignal): AsyncIterable<void>;
  /**
   * Cancels everything outstanding and refuses later asks. Idempotent. A durable channel ends
   * the waits of this object only and keeps its stored questions pending, so that a restarted
   * process can re-attach to them.
   */
  close(reason?: string): void | Promise<void>;
}

/**
 * How long after a question was resolved an ask with the same key still re-attaches to it and
 * gets its outcome (10 minutes), unless a channel's `reattachMs` says otherwise. Long enough for
 * a retry after a dropped connection or a restarted agent; short enough that a later, identical
 * question under a reused key is asked afresh instead of getting an old answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, REATTACH_WINDOW_MS } from "@outpost/agent-tools/human";
 * assert.equal(REATTACH_WINDOW_MS, 10 * 60_000);
 * const channel = new MemoryQuestionChannel({ reattachMs: REATTACH_WINDOW_MS / 2 });
 * ```
 */
export const REATTACH_WINDOW_MS = 10 * 60_000;
