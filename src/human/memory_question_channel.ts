import type { Clock } from "../clock.ts";
import type { ApprovalDecision, HumanQuestion, QuestionRecord } from "./question.ts";
import type { QuestionLimits } from "./question_limits.ts";
import { MemoryQuestionStore } from "./memory_question_store.ts";
import { StoreQuestionChannel } from "./store_question_channel.ts";

/**
 * Options of {@linkcode MemoryQuestionChannel}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type MemoryQuestionChannelOptions } from "@outpost/agent-tools/human";
 * const options: MemoryQuestionChannelOptions = { remember: 1 };
 * const channel = new MemoryQuestionChannel(options);
 * for (const answer of ["first", "second"]) {
 *   const outcome = channel.ask({ question: "Next?", options: [], multiSelect: false });
 *   for await (const q of channel.questions()) {
 *     await channel.answer(q.id, answer);
 *     break;
 *   }
 *   await outcome;
 * }
 * // Only the most recent resolved question is remembered.
 * assert.deepEqual((await channel.resolved(10)).map((r) => r.status === "answered" && r.answer), ["second"]);
 * ```
 */
export interface MemoryQuestionChannelOptions {
  /**
   * How many answered or cancelled questions `get` and re-asks by key still know (default
   * 1000); the oldest are forgotten first, so a long-lived channel stays bounded.
   */
  remember?: number;
  /**
   * How long after a question was resolved an ask with its key still re-attaches to it and gets
   * its outcome, in milliseconds (default `REATTACH_WINDOW_MS`: 10 minutes); later,
   * the same ask is asked afresh.
   */
  reattachMs?: number;
  /**
   * Caps on the questions pending at once, in the channel and per session; beyond them `ask`
   * throws `TooManyQuestionsError`. A question waits here only while its ask does (an abort or
   * a timeout withdraws it), so it cannot outlive its asker.
   */
  limits?: QuestionLimits;
  /** Reads the time for `askedAt`, `resolvedAt` and the re-attach window (default the system's). */
  clock?: Clock;
}

/**
 * A {@linkcode QuestionChannel} that keeps questions in memory, for one process: an agent asks
 * through `askHuman`, and the operator side (a console, a chat bridge, a test) reads
 * `questions()` or `pending` and calls `answer` or `cancel`. It is `StoreQuestionChannel` over
 * a `MemoryQuestionStore`, whose answers come at once: its operator methods are synchronous, and
 * `close()` withdraws every pending question (nothing could re-attach to it later).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 *
 * const channel = new MemoryQuestionChannel();
 * const ask = askHuman(channel);
 * (async () => {
 *   for await (const q of channel.questions()) await channel.answer(q.id, "Staging");
 * })();
 * const reply = await ask.execute({ question: "Which environment?" });
 * assert.match(reply, /Staging/);
 * channel.close();
 * ```
 */
export class MemoryQuestionChannel extends StoreQuestionChannel {
  /** Creates an empty, open channel; throws `SetupError` for bad options. */
  constructor(options: MemoryQuestionChannelOptions = {}) {
    const { remember, ...lifecycle } = options;
    super(new MemoryQuestionStore({ remember }), lifecycle);
  }

  /** A snapshot of the questions waiting for an answer, oldest first. */
  override get pending(): readonly HumanQuestion[] {
    return super.pending as readonly HumanQuestion[];
  }

  /** What the channel knows of `id`, or `undefined` for an id it never had or has forgotten. */
  override get(id: string): QuestionRecord | undefined {
    return super.get(id) as QuestionRecord | undefined;
  }

  /**
   * The most recently resolved questions the channel still remembers (at most `remember`),
   * newest first, at most `limit` (capped at 100). Throws a `RangeError` for a `limit` that is
   * not a positive whole number.
   */
  override resolved(limit: number): readonly QuestionRecord[] {
    return super.resolved(limit) as readonly QuestionRecord[];
  }

  /**
   * Answers a pending question with a text or, for an approval, a decision; `true` also for the
   * same answer given again, `false` when `id` is unknown or was resolved otherwise. Throws a
   * `RangeError` for a text or reason longer than `MAX_ANSWER_LENGTH`.
   */
  override answer(id: string, answer: string | ApprovalDecision): boolean {
    return super.answer(id, answer) as boolean;
  }

  /**
   * Cancels a pending question; `true` also for the same cancel given again, `false` when `id`
   * is unknown or was resolved otherwise. Throws a `RangeError` for a reason longer than
   * `MAX_ANSWER_LENGTH`.
   */
  override cancel(id: string, reason?: string): boolean {
    return super.cancel(id, reason) as boolean;
  }

  /**
   * Closes the channel: every pending question is withdrawn (its record says
   * `withdrawn: <reason>`, and its asks resolve `{ status: "closed", reason }`), `questions()`
   * iterators end, and later asks resolve closed at once. Idempotent.
   */
  override close(reason?: string): void {
    void super.close(reason);
  }
}
