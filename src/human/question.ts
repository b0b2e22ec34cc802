import type { AccessLogEntry } from "../access_log.ts";

/**
 * A choice offered with a question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionOption } from "@outpost/agent-tools/human";
 * const option: QuestionOption = { label: "Staging", description: "Deploy to staging first" };
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask({ question: "Where?", options: [option, { label: "Production", description: "" }], multiSelect: false });
 * for await (const q of channel.questions()) {
 *   assert.deepEqual(q.options[0], option);
 *   await channel.answer(q.id, option.label);
 *   break;
 * }
 * assert.deepEqual(await outcome, { status: "answered", answer: "Staging" });
 * ```
 */
export interface QuestionOption {
  /** A short, single-line label; unique within the question. */
  label: string;
  /** A single-line explanation, possibly empty. */
  description: string;
}

/**
 * A question asked through `ask_human`, as an operator sees it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type HumanQuestion } from "@outpost/agent-tools/human";
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask({ question: "Which region?", options: [], multiSelect: false });
 * for await (const q of channel.questions()) {
 *   const seen: HumanQuestion = q; // what the operator sees
 *   assert.equal(seen.question, "Which region?");
 *   assert.ok(!Number.isNaN(Date.parse(seen.askedAt)));
 *   await channel.answer(seen.id, "eu-west");
 *   break;
 * }
 * assert.deepEqual(await outcome, { status: "answered", answer: "eu-west" });
 * ```
 */
export interface HumanQuestion {
  /** The channel's id for the question. */
  id: string;
  /** The question, as the model wrote it. */
  question: string;
  /** Choices offered; free text is always allowed too. */
  options: QuestionOption[];
  /** Whether several options may be chosen (the answer is then the labels, one per line). */
  multiSelect: boolean;
  /**
   * What the question is for: absent for a question a model asked (`ask_human`), `"approval"`
   * for a tool call waiting for a person's go-ahead (`requireApproval`). An approval is answered
   * with an {@linkcode ApprovalDecision}, and its record carries the decision as data; a text
   * answer is taken as one once, when it is given: `Approve` or `Deny` (its options' labels, in
   * any case) as that decision, any other text as a denial with that text as the reason.
   * Consoles show approvals as their own card.
   */
  kind?: "approval";
  /** From the asking call's `ToolContext`. */
  sessionId?: string;
  /** From the asking call's `ToolContext`. */
  runId?: string;
  /** From the asking call's `ToolContext`; durable channels re-attach by it. */
  toolCallId?: string;
  /** Who asked and what their session did just before, when the asking service knew it. */
  context?: QuestionContext;
  /** ISO-8601 time the question was asked. */
  askedAt: string;
}

/**
 * What an operator is shown of where a question came from: the tenant and the asking session's
 * latest tool calls before it, as the access log records them (the host a call read from, never
 * its path or query, nor any input or result). The bundled service fills it in from a bounded memory of recent calls per
 * session and run, kept per process (on Workers per isolate, so best effort).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionContext } from "@outpost/agent-tools/human";
 * const context: QuestionContext = {
 *   tenant: "default",
 *   recentCalls: [{
 *     time: "2026-12-02T01:43:17.565Z",
 *     tenant: "default",
 *     tool: "web_fetch",
 *     durationMs: 176.6,
 *     outcome: "ok",
 *     bytesRead: 22,
 *     cacheHit: false,
 *     host: "docs.example.com",
 *   }],
 * };
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask({ question: "Publish?", options: [], multiSelect: false, sessionId: "s1", context });
 * for await (const q of channel.questions()) {
 *   assert.equal(q.context?.recentCalls?.[0].host, "docs.example.com");
 *   await channel.answer(q.id, "Yes");
 *   break;
 * }
 * await outcome;
 * ```
 */
export interface QuestionContext {
  /** The tenant the asking call ran for. */
  tenant?: string;
  /**
   * The asking session's (or run's) latest tool calls that ended before the question, oldest
   * first, as their access-log entries.
   */
  recentCalls?: AccessLogEntry[];
}

/**
 * What a tool hands a channel to ask.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionRequest } from "@outpost/agent-tools/human";
 * const request: QuestionRequest = { question: "Proceed?", options: [], multiSelect: false, key: "call_1" };
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask(request);
 * for await (const q of channel.questions()) {
 *   assert.equal(q.question, "Proceed?");
 *   await channel.answer(q.id, "Yes");
 *   break;
 * }
 * assert.deepEqual(await outcome, { status: "answered", answer: "Yes" });
 * ```
 */
export interface QuestionRequest {
  /** The question text. */
  question: string;
  /** Choices offered (none for free text only). */
  options: QuestionOption[];
  /** Whether several options may be chosen. */
  multiSelect: boolean;
  /** Copied into the question: `"approval"` for `requireApproval`'s questions. */
  kind?: "approval";
  /**
   * Idempotency key: a later ask with the same key and the same question, options, `kind` and
   * `multiSelect` re-attaches: it waits on the first question while that is pending, or gets its
   * outcome at once if it was resolved at most the channel's re-attach window ago (default
   * {@linkcode REATTACH_WINDOW_MS}). An ask that differs, whose question was withdrawn (its ask
   * timed out or was aborted), or whose question was resolved longer ago than the window, asks
   * afresh, and the key then points to the new question.
   */
  key?: string;
  /** Copied into the question. */
  sessionId?: string;
  /** Copied into the question. */
  runId?: string;
  /** Copied into the question. */
  toolCallId?: string;
  /** Copied into the question: where it came from, for the operator. */
  context?: QuestionContext;
}

/**
 * An operator's decision on an approval (a question with `kind: "approval"`), as
 * `QuestionChannel.answer` takes it and as the answered record and outcome carry it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ApprovalDecision, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const decision: ApprovalDecision = { decision: "deny", reason: "Billing is frozen this week" };
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask({ question: "Refund order 7?", options: [], multiSelect: false, kind: "approval" });
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, decision);
 *   break;
 * }
 * const got = await outcome;
 * assert.equal(got.status === "answered" && got.decision, "deny");
 * assert.equal(got.status === "answered" && got.reason, "Billing is frozen this week");
 * ```
 */
export interface ApprovalDecision {
  /** `"approve"` runs the call; `"deny"` refuses it. */
  decision: "approve" | "deny";
  /** Why, in the operator's words; the model hears it with a denial. */
  reason?: string;
  /**
   * Who decided, as the answering program names them (a user id, `ai-sdk:<approval id>`…);
   * the record keeps it for the audit trail. At most {@linkcode MAX_ANSWER_LENGTH} characters.
   */
  by?: string;
}

/**
 * How an asked question ended, as `ask` resolves it. An answered approval carries its
 * `decision` (and the operator's `reason`, if any) as data; its `answer` is then the decision's
 * label, `Approve` or `Deny`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionOutcome } from "@outpost/agent-tools/human";
 * const channel = new MemoryQuestionChannel();
 * const asked = channel.ask({ question: "Proceed?", options: [], multiSelect: false });
 * for await (const q of channel.questions()) {
 *   await channel.cancel(q.id, "Not needed any more");
 *   break;
 * }
 * const outcome: QuestionOutcome = await asked;
 * assert.deepEqual(outcome, { status: "cancelled", reason: "Not needed any more" });
 * ```
 */
export type QuestionOutcome =
  | {
    status: "answered";
    answer: string;
    decision?: "approve" | "deny";
    reason?: string;
    by?: string;
  }
  | { status: "cancelled"; reason: string }
  | { status: "closed"; reason: string };

/**
 * What a channel knows of a question: still pending, or resolved with its outcome. An answered
 * approval carries its `decision` and `reason` as data (see {@linkcode ApprovalDecision}); a
 * question withdrawn because its asker went away (the ask timed out, was aborted, or its
 * process died) is `cancelled` with `withdrawn: true` — an operator's cancel never is, whatever
 * its reason says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionRecord } from "@outpost/agent-tools/human";
 * function describe(record: QuestionRecord): string {
 *   if (record.status === "answered") return record.decision ?? record.answer;
 *   return record.status === "cancelled" && record.withdrawn ? "withdrawn" : record.status;
 * }
 * const channel = new MemoryQuestionChannel();
 * const outcome = channel.ask({ question: "Proceed?", options: [], multiSelect: false });
 * for await (const q of channel.questions()) {
 *   assert.equal(describe((await channel.get(q.id))!), "pending");
 *   await channel.answer(q.id, "Yes");
 *   assert.equal(describe((await channel.get(q.id))!), "Yes");
 *   break;
 * }
 * await outcome;
 * ```
 */
export type QuestionRecord =
  | { status: "pending"; question: HumanQuestion }
  | {
    status: "answered";
    question: HumanQuestion;
    answer: string;
    /** An approval's decision. */
    decision?: "approve" | "deny";
    /** An approval's reason, when the operator gave one. */
    reason?: string;
    /** Who decided an approval, when the answer named them. */
    by?: string;
    resolvedAt: string;
  }
  | {
    status: "cancelled";
    question: HumanQuestion;
    reason: string;
    /** Set when nobody cancelled it: its asker went away. */
    withdrawn?: true;
    resolvedAt: string;
  };

/**
 * The longest answer, or cancel reason, a {@linkcode QuestionChannel} takes: 20,000 UTF-16 code
 * units (`text.length`). Every channel refuses a longer one with a `RangeError` before it changes
 * anything, so that channels on stores that limit a value's size (Deno KV: 64 KiB, which also
 * holds the question) all behave alike. Share a longer text by link.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_ANSWER_LENGTH } from "@outpost/agent-tools/human";
 * const log = "line\n".repeat(10_000);
 * const answer = log.length > MAX_ANSWER_LENGTH ? log.slice(-MAX_ANSWER_LENGTH) : log;
 * assert.equal(answer.length, MAX_ANSWER_LENGTH);
 * ```
 */
export const MAX_ANSWER_LENGTH = 20_000;
