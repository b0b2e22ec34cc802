import { UserError } from "../tool.ts";
import {
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
    case "answered":
      return { status: "answered", answer: record.answer };
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
    throw new UserError(
      `reattachMs must be a whole number of milliseconds, 0 or more, not ${reattachMs}.`,
    );
  }
  return reattachMs;
}
