import type {
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "./question.ts";

import { defined } from "../defined.ts";

// The question lifecycle every channel follows, whatever stores its questions: a question is
// asked (or an ask re-attaches to one by key), then resolved once — answered, cancelled by an
// operator, or withdrawn because its askers went away — and a later resolution is a retry of
// that one or refused. A channel keeps the records and wakes the waits; the decisions are here.

/** An answered outcome. */
export type Answered = Extract<QuestionOutcome, { status: "answered" }>;

/** The labels of an approval's decisions, which are also its answers. */
export const APPROVAL_LABELS = { approve: "Approve", deny: "Deny" } as const;

/** Why a question was withdrawn, as its record keeps it, for each way its askers go away. */
export const WITHDRAWN = {
  /** Its ask was aborted. */
  aborted: "withdrawn: the asking call was aborted",
  /** Its ask timed out. */
  timedOut: "withdrawn: the asking call timed out",
  /** Nobody renewed the lease of a question without a key: its asker is gone. */
  lapsed: "withdrawn: the asking call went away",
  /** Nobody waited on a keyed question for the channel's `expireMs`, nor re-attached to it. */
  expired: "withdrawn: no call waited for the answer any more",
  /** The channel object its asks waited through was closed. */
  closed: (reason: string) => `withdrawn: ${reason}`,
} as const;

/** The outcome an ask resolves with for a question that is no longer pending. */
export function outcomeOf(record: QuestionRecord): QuestionOutcome {
  switch (record.status) {
    case "answered": {
      // The answer, and the decision, reason and decider where the record has them.
      const { question: _, resolvedAt: __, ...outcome } = record;
      return outcome;
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

/** Whether `record` was withdrawn (its askers went away), which no ask re-attaches to. */
export function isWithdrawn(record: QuestionRecord): boolean {
  return record.status === "cancelled" && record.withdrawn === true;
}

/**
 * Whether an ask may re-attach to the question its key points to: the same question, not
 * withdrawn, and pending or resolved at most `reattachMs` before `now` (the rule every channel
 * follows).
 */
export function reattaches(
  record: QuestionRecord,
  request: QuestionRequest,
  reattachMs: number,
  now: number,
): boolean {
  if (isWithdrawn(record) || !asksSame(record.question, request)) return false;
  return record.status === "pending" || now - Date.parse(record.resolvedAt) <= reattachMs;
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
    return { status: "answered", answer: APPROVAL_LABELS.approve, decision: "approve" };
  }
  if (text === "deny") {
    return { status: "answered", answer: APPROVAL_LABELS.deny, decision: "deny" };
  }
  return {
    status: "answered",
    answer: APPROVAL_LABELS.deny,
    decision: "deny",
    reason: outcome.answer,
  };
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
  // The outcome's answer, and decision, reason and decider where it has them.
  return {
    ...(question.kind === "approval" ? approvalAnswer(outcome) : outcome),
    question,
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
    same.decision === record.decision && same.reason === record.reason && same.by === record.by;
}

/** Why a question was withdrawn when its ask's signal aborted with `reason`. */
export function withdrawalReason(reason: unknown): string {
  return reason instanceof DOMException && reason.name === "TimeoutError"
    ? WITHDRAWN.timedOut
    : WITHDRAWN.aborted;
}

/** The question a request asks, with a fresh id and `now` as the time of asking. */
export function newQuestion(request: QuestionRequest, now: number): HumanQuestion {
  return defined({
    id: crypto.randomUUID(),
    question: request.question,
    options: request.options.map(({ label, description }) => ({ label, description })),
    multiSelect: request.multiSelect,
    kind: request.kind,
    sessionId: request.sessionId,
    runId: request.runId,
    toolCallId: request.toolCallId,
    context: request.context,
    askedAt: new Date(now).toISOString(),
  });
}

/**
 * What resolving `current` with `outcome` at `resolvedAt` does: for a pending question, the
 * record to store in its place (`withdrawn` when its askers went away); for one already
 * resolved, nothing, and whether the call still counts as done (a retry of the same operator's
 * answer or cancel does; a withdrawal, or another outcome, does not).
 */
export function resolution(
  current: QuestionRecord,
  outcome: QuestionOutcome,
  resolvedAt: string,
  withdrawn = false,
): { record: Exclude<QuestionRecord, { status: "pending" }> } | { done: boolean } {
  if (current.status !== "pending") {
    return { done: !withdrawn && alreadyResolved(current, outcome) };
  }
  return { record: resolvedRecord(current.question, outcome, resolvedAt, withdrawn) };
}
