import { SetupError, ToolError } from "../errors.ts";

/**
 * How many questions a channel lets wait at once (the `limits` option of every channel of this
 * package): beyond them `ask` throws {@linkcode TooManyQuestionsError} and stores nothing, so
 * that one caller cannot fill the operator's queue or the store. A re-attach to a question
 * already pending is never refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, type QuestionLimits } from "@outpost/agent-tools/human";
 * const limits: QuestionLimits = { maxPending: 500, maxPendingPerSession: 5 };
 * const channel = new MemoryQuestionChannel({ limits });
 * assert.equal(channel.pending.length, 0);
 * ```
 */
export interface QuestionLimits {
  /**
   * The most questions pending at once in the whole channel (default
   * {@linkcode MAX_PENDING_QUESTIONS}).
   */
  maxPending?: number;
  /**
   * The most questions pending at once with the same `sessionId` (default
   * {@linkcode MAX_PENDING_PER_SESSION}); questions without one count as one session.
   */
  maxPendingPerSession?: number;
}

/**
 * The default of {@linkcode QuestionLimits.maxPending}: 10,000 questions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_PENDING_QUESTIONS } from "@outpost/agent-tools/human";
 * assert.equal(MAX_PENDING_QUESTIONS, 10_000);
 * ```
 */
export const MAX_PENDING_QUESTIONS = 10_000;

/**
 * The default of {@linkcode QuestionLimits.maxPendingPerSession}: 100 questions. `ask_human`
 * asks one question at a time per run, so a session needs that many only with as many runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_PENDING_PER_SESSION } from "@outpost/agent-tools/human";
 * assert.equal(MAX_PENDING_PER_SESSION, 100);
 * ```
 */
export const MAX_PENDING_PER_SESSION = 100;

/** How long a refused asker is told to wait before it asks again. */
const RETRY_AFTER_SECONDS = 60;

/**
 * Thrown by a channel's `ask` when a {@linkcode QuestionLimits} cap is reached; nothing was
 * stored. A `ToolError` of code `rate_limited` with `retryAfterMs`, so that the model hears it and
 * a host can back off; the HTTP app answers it, like any rate-limited call, with 429 and
 * `Retry-After`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel, TooManyQuestionsError } from "@outpost/agent-tools/human";
 * const channel = new MemoryQuestionChannel({ limits: { maxPending: 1 } });
 * const request = { question: "Go?", options: [], multiSelect: false };
 * channel.ask(request);
 * await assert.rejects(
 *   channel.ask(request),
 *   (e) => e instanceof TooManyQuestionsError && e.code === "rate_limited" && e.retryAfterMs === 60_000,
 * );
 * channel.close();
 * ```
 */
export class TooManyQuestionsError extends ToolError {
  /** The class's name as every copy of the package spells it. */
  static override readonly kind: string = "TooManyQuestionsError";

  /** Creates the error for the cap `what` names ("the channel", "this session") at `max`. */
  constructor(what: string, max: number, retryAfterSeconds = RETRY_AFTER_SECONDS) {
    super(`Too many questions are waiting for an operator: ${what} has ${max} pending.`, {
      hint: `Do not ask again now. Go on with your best judgement and say what you assumed, or ` +
        `ask again in ${retryAfterSeconds} seconds if you cannot continue without an answer.`,
      code: "rate_limited",
      retryAfterMs: retryAfterSeconds * 1000,
    });
    this.name = "TooManyQuestionsError";
  }
}

/** `limits` checked, with defaults: throws {@linkcode SetupError} for a cap that is not a count. */
export function limitsOption(limits: QuestionLimits = {}): Required<QuestionLimits> {
  const {
    maxPending = MAX_PENDING_QUESTIONS,
    maxPendingPerSession = MAX_PENDING_PER_SESSION,
  } = limits;
  for (
    const [name, value] of [["maxPending", maxPending], [
      "maxPendingPerSession",
      maxPendingPerSession,
    ]] as const
  ) {
    if (!(value === Infinity || (Number.isSafeInteger(value) && value > 0))) {
      throw new SetupError(`limits.${name} must be a positive whole number, not ${value}.`, {
        hint: "Pass Infinity for no cap.",
      });
    }
  }
  return { maxPending, maxPendingPerSession };
}

/** Which cap one more question would pass, given how many are pending in all and in its session. */
export interface CapReached {
  /** The cap's scope: "the channel" or "this session". */
  what: string;
  /** The cap. */
  max: number;
}

/** The cap one more question would pass, given the pending counts; `undefined` when none. */
export function capReached(
  limits: Required<QuestionLimits>,
  pending: number,
  inSession: number,
): CapReached | undefined {
  if (inSession >= limits.maxPendingPerSession) {
    return { what: "this session", max: limits.maxPendingPerSession };
  }
  if (pending >= limits.maxPending) return { what: "the channel", max: limits.maxPending };
  return undefined;
}
