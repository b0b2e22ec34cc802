import { defined } from "../defined.ts";
import { type ApprovalDecision, MAX_ANSWER_LENGTH } from "./question.ts";
import { type Answered, APPROVAL_LABELS } from "./question_lifecycle.ts";

// The checks every question channel makes of what it is given (answers, ids, limits, options),
// with the same limits and wording everywhere; the lifecycle itself is question_lifecycle.ts.

/**
 * The longest question id a channel looks up. Channels make UUIDs; a longer id is nobody's, and
 * would not fit some stores' keys (Deno KV's end at 2 KiB), so it is unknown before any store
 * sees it.
 */
export const MAX_QUESTION_ID_LENGTH = 256;

/** The most resolved questions `QuestionChannel.resolved` lists in one call. */
export const MAX_RESOLVED_LIMIT = 100;

/**
 * `limit` as `QuestionChannel.resolved` takes it: at most {@linkcode MAX_RESOLVED_LIMIT}; a
 * `RangeError` for anything but a positive whole number.
 */
export function resolvedLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be a positive whole number, not ${limit}.`);
  }
  return Math.min(limit, MAX_RESOLVED_LIMIT);
}

/** Refuses, before anything changes, an answer or reason longer than MAX_ANSWER_LENGTH. */
export function checkLength(what: "answer" | "reason" | "by", text: string): void {
  if (text.length > MAX_ANSWER_LENGTH) {
    throw new RangeError(
      `The ${what} is ${text.length} characters long; a question channel takes at most ` +
        `${MAX_ANSWER_LENGTH} (MAX_ANSWER_LENGTH). Shorten it, or share a longer text by link.`,
    );
  }
}

/**
 * The outcome `QuestionChannel.answer` records for `answer`, checked before anything changes:
 * a `RangeError` for a text or reason longer than MAX_ANSWER_LENGTH, a `TypeError` for a
 * malformed decision. A decision's answer is its label.
 */
export function answerOutcome(answer: string | ApprovalDecision): Answered {
  if (typeof answer === "string") {
    checkLength("answer", answer);
    return { status: "answered", answer };
  }
  const { decision, reason, by } = (answer ?? {}) as Partial<ApprovalDecision>;
  if (decision !== "approve" && decision !== "deny") {
    throw new TypeError('An answer is a text or a decision, { decision: "approve" | "deny" }.');
  }
  for (const [what, text] of [["reason", reason], ["by", by]] as const) {
    if (text === undefined) continue;
    if (typeof text !== "string") {
      throw new TypeError(`A decision's ${what} must be a string when given.`);
    }
    checkLength(what, text);
  }
  // An empty reason or decider is none.
  return defined({
    status: "answered",
    answer: APPROVAL_LABELS[decision],
    decision,
    reason: reason || undefined,
    by: by || undefined,
  });
}
