import { SetupError } from "../errors.ts";
import {
  type ApprovalDecision,
  type HumanQuestion,
  MAX_ANSWER_LENGTH,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
} from "./question_channel.ts";

// What every question channel shares, so that the in-memory and the durable channels behave
// alike: a new question from a request, the outcome of a resolved record, and the checks and
// wording of answers and withdrawals.

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

/** The outcome an ask resolves with for a question that is no longer pending. */
export function outcomeOf(record: QuestionRecord): QuestionOutcome {
  switch (record.status) {
    case "answered": {
      const { answer, decision, reason } = record;
      return {
        status: "answered",
        answer,
        ...(decision === undefined ? {} : { decision }),
        ...(reason === undefined ? {} : { reason }),
      };
    }
    case "cancelled":
      return { status: "cancelled", reason: record.reason };
    case "pending":
      throw new TypeError("outcomeOf needs a resolved question.");
  }
}

/**
 * Whether `request` asks what `question` asked: the same text, options, `kind` and
 * `multiSelect`.
 */
export function asksSame(question: HumanQuestion, request: QuestionRequest): boolean {
  return question.question === request.question &&
    question.multiSelect === request.multiSelect &&
    question.kind === request.kind &&
    question.options.length === request.options.length &&
    question.options.every(({ label, description }, index) =>
      label === request.options[index].label && description === request.options[index].description
    );
}

/**
 * Whether an ask may re-attach to the question its key points to: the same question, not
 * withdrawn, and pending or resolved at most `reattachMs` before `now` (the rule every channel
 * follows).
 */
export function reattaches(
  record: QuestionRecord,
  withdrawn: boolean,
  request: QuestionRequest,
  reattachMs: number,
  now: number,
): boolean {
  if (withdrawn || !asksSame(record.question, request)) return false;
  return record.status === "pending" || now - Date.parse(record.resolvedAt) <= reattachMs;
}

/** Refuses, before anything changes, an answer or reason longer than MAX_ANSWER_LENGTH. */
export function checkLength(what: "answer" | "reason", text: string): void {
  if (text.length > MAX_ANSWER_LENGTH) {
    throw new RangeError(
      `The ${what} is ${text.length} characters long; a question channel takes at most ` +
        `${MAX_ANSWER_LENGTH} (MAX_ANSWER_LENGTH). Shorten it, or share a longer text by link.`,
    );
  }
}

type Answered = Extract<QuestionOutcome, { status: "answered" }>;

const LABELS = { approve: "Approve", deny: "Deny" } as const;

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
  const { decision, reason } = (answer ?? {}) as Partial<ApprovalDecision>;
  if (decision !== "approve" && decision !== "deny") {
    throw new TypeError('An answer is a text or a decision, { decision: "approve" | "deny" }.');
  }
  if (reason !== undefined && typeof reason !== "string") {
    throw new TypeError("A decision's reason must be a string when given.");
  }
  if (reason !== undefined) checkLength("reason", reason);
  return { status: "answered", answer: LABELS[decision], decision, ...(reason ? { reason } : {}) };
}

/**
 * What an approval's answer decided: its decision when it carries one; else, for a text, the
 * label `Approve` or `Deny` (trimmed, in any case) as that decision, and any other text as a
 * denial whose reason is the text. Channels apply it once, when the answer is given, so that the
 * record carries the decision as data.
 */
export function approvalAnswer(outcome: Answered): Answered {
  if (outcome.decision !== undefined) return outcome;
  const text = outcome.answer.trim().toLowerCase();
  if (text === "approve") {
    return { status: "answered", answer: LABELS.approve, decision: "approve" };
  }
  if (text === "deny") return { status: "answered", answer: LABELS.deny, decision: "deny" };
  return { status: "answered", answer: LABELS.deny, decision: "deny", reason: outcome.answer };
}

/**
 * The record of `question` resolved with `outcome` at `resolvedAt`: an approval's answer with
 * its decision (see {@linkcode approvalAnswer}), a closed channel's as a cancel, and a
 * withdrawal marked as one.
 */
export function resolvedRecord(
  question: HumanQuestion,
  outcome: QuestionOutcome,
  resolvedAt: string,
  withdrawn = false,
): Exclude<QuestionRecord, { status: "pending" }> {
  if (outcome.status !== "answered") {
    return {
      status: "cancelled",
      question,
      reason: outcome.reason,
      ...(withdrawn ? { withdrawn: true as const } : {}),
      resolvedAt,
    };
  }
  const { answer, decision, reason } = question.kind === "approval"
    ? approvalAnswer(outcome)
    : outcome;
  return {
    status: "answered",
    question,
    answer,
    ...(decision === undefined ? {} : { decision }),
    ...(reason === undefined ? {} : { reason }),
    resolvedAt,
  };
}

/**
 * Whether `record` already is what an operator's `outcome` would make of it — the same answer
 * (and decision and reason), or a cancel with the same reason that was not a withdrawal — so
 * that a retried request after a lost response succeeds again instead of conflicting.
 */
export function alreadyResolved(record: QuestionRecord, outcome: QuestionOutcome): boolean {
  if (outcome.status === "cancelled") {
    return record.status === "cancelled" && !record.withdrawn && record.reason === outcome.reason;
  }
  if (outcome.status !== "answered" || record.status !== "answered") return false;
  const same = resolvedRecord(record.question, outcome, record.resolvedAt);
  return same.status === "answered" && same.answer === record.answer &&
    same.decision === record.decision && same.reason === record.reason;
}

/** Why a question was withdrawn, as its record keeps it. */
export function withdrawalReason(reason: unknown): string {
  return reason instanceof DOMException && reason.name === "TimeoutError"
    ? "withdrawn: the asking call timed out"
    : "withdrawn: the asking call was aborted";
}

/** The question a request asks, with a fresh id and `now` as the time of asking. */
export function newQuestion(request: QuestionRequest, now: number): HumanQuestion {
  // Frozen, because operators receive this very object from a memory channel.
  return Object.freeze({
    id: crypto.randomUUID(),
    question: request.question,
    options: Object.freeze(
      request.options.map(({ label, description }) => Object.freeze({ label, description })),
    ) as HumanQuestion["options"],
    multiSelect: request.multiSelect,
    ...(request.kind === undefined ? {} : { kind: request.kind }),
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(request.toolCallId === undefined ? {} : { toolCallId: request.toolCallId }),
    askedAt: new Date(now).toISOString(),
  });
}

/** Checks a channel's `reattachMs` option. */
export function reattachOption(reattachMs: number): number {
  if (!(Number.isSafeInteger(reattachMs) && reattachMs >= 0)) {
    throw new SetupError(
      `reattachMs must be a whole number of milliseconds, 0 or more, not ${reattachMs}.`,
    );
  }
  return reattachMs;
}
