/**
 * Asking a person: the {@linkcode askHuman} tool and {@linkcode requireApproval}, the
 * {@linkcode QuestionChannel} they ask through and its in-memory implementation, the limits on
 * pending questions, and the MCP elicitation shapes a client's own form takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const channel = new MemoryQuestionChannel();
 * const askHumanTool = askHuman(channel, { timeoutMs: 60_000 });
 * assert.equal(askHumanTool.name, "ask_human");
 * ```
 *
 * @module
 */
export { askHuman, type AskHumanOptions } from "./ask_human.ts";
export { requireApproval, type RequireApprovalOptions } from "./require_approval.ts";
export { type QuestionChannel, REATTACH_WINDOW_MS } from "./question_channel.ts";
export {
  type ApprovalDecision,
  type HumanQuestion,
  MAX_ANSWER_LENGTH,
  type QuestionContext,
  type QuestionOption,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
} from "./question.ts";
export type {
  MaybePromise,
  QuestionStore,
  QuestionTransaction,
  StoredQuestion,
} from "./question_store.ts";
export { StoreQuestionChannel } from "./store_question_channel.ts";
export type { StoreQuestionChannelOptions } from "./store_question_channel_options.ts";
export { MemoryQuestionStore, type MemoryQuestionStoreOptions } from "./memory_question_store.ts";
export {
  MemoryQuestionChannel,
  type MemoryQuestionChannelOptions,
} from "./memory_question_channel.ts";
export {
  MAX_PENDING_PER_SESSION,
  MAX_PENDING_QUESTIONS,
  type QuestionLimits,
  TooManyQuestionsError,
} from "./question_limits.ts";
export type { Elicit, Elicitation, ElicitationField, ElicitationResult } from "../elicitation.ts";
export { showInvisible } from "../show_invisible.ts";
