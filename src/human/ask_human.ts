// zod/mini: the Worker and a program that uses ask_human bundle no classic zod.
import { defined } from "../defined.ts";
import * as z from "zod/mini";
// Named: `z.core.describe` would bring all of zod's core, every locale included.
import { describe } from "zod/v4/core";
import { lookAlike, quoteText, quoteValue, stripInvisible } from "../fence.ts";
import { type Clock, linkSignals, MAX_TIMER_MS, systemClock } from "../clock.ts";
import { SetupError, ToolError } from "../errors.ts";
import { presetTool, type Tool } from "../tool.ts";
import type { ToolContext } from "../tool_context.ts";
import { FAMILY_SCHEMAS } from "../family_schemas.ts";
import { elicitQuestion } from "./elicit_question.ts";
import type { QuestionChannel } from "./question_channel.ts";
import type { QuestionRequest } from "./question.ts";

/**
 * Options of {@linkcode askHuman}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, type AskHumanOptions, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const options: AskHumanOptions = { name: "ask_operator", timeoutMs: 10 * 60_000 };
 * const tool = askHuman(new MemoryQuestionChannel(), options);
 * assert.equal(tool.name, "ask_operator");
 * ```
 */
export interface AskHumanOptions {
  /** The model-facing tool name (default `ask_human`). */
  name?: string;
  /**
   * How long a call waits for an answer before it gives up, withdraws the question and tells the
   * model so. Without it a call waits until answered, cancelled, closed or aborted.
   */
  timeoutMs?: number;
  /** Times `timeoutMs` (default the system's clock). */
  clock?: Clock;
}

const DESCRIPTION =
  "Asks your human operator a question and waits for the answer. Use it only for what a person " +
  "alone can tell you — a preference, a decision, an approval, a fact you cannot look up — not " +
  "for anything other tools can find out. Ask one clear, self-contained question. Offer " +
  "`options` when the answer is one of a few choices; the operator may still answer in free " +
  "text. The result is the operator's answer; with `multi_select`, the chosen labels, one per line.";

// Every line break Unicode knows (LF, VT, FF, CR, NEL, LS, PS), so that a label stays one line.
const singleLine = (text: string) => !/[\n\v\f\r\x85\u2028\u2029]/.test(text);
const SINGLE_LINE = "must be a single line, without line breaks";
// The empty string is left to `min(1)`, so that it gets one message, not two.
const visible = (text: string) => text === "" || stripInvisible(text).trim() !== "";
const VISIBLE = "must contain a visible character";

const label = z.string().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(100),
  z.refine(singleLine, SINGLE_LINE),
);

const option = z.object({
  label: label.check(
    z.refine(visible, VISIBLE),
    describe("A short choice, one line, unique within the question."),
  ),
  description: z._default(
    z.string().check(z.trim(), z.maxLength(300), z.refine(singleLine, SINGLE_LINE)),
    "",
  ).check(describe("One line on what choosing it means; may be empty.")),
});

const input = z.object({
  question: z.string().check(
    z.trim(),
    z.minLength(1),
    z.maxLength(4000),
    z.refine(visible, VISIBLE),
    describe("The question, complete enough to answer without seeing your conversation."),
  ),
  options: z.optional(
    z.array(option).check(
      z.minLength(2),
      z.maxLength(4),
      z.superRefine((options, ctx) => {
        const seen = new Map<string, string>();
        options.forEach(({ label }, index) => {
          // Labels that differ only in case, invisible characters or look-alike letters (a
          // Cyrillic `е` for a Latin `e`) look the same to the operator.
          const looks = lookAlike(label);
          const earlier = seen.get(looks);
          if (earlier !== undefined) {
            ctx.addIssue({
              code: "custom",
              path: [index, "label"],
              message: `repeats the label ${quoteValue(earlier)}; labels must be unique`,
            });
          } else seen.set(looks, label);
        });
      }),
    ),
  ).check(
    describe(
      '2 to 4 choices, the one you recommend first. Never add an "Other" option: the operator ' +
        "can always answer in free text. Omit for an open question.",
    ),
  ),
  multi_select: z._default(z.boolean(), false).check(
    describe("Whether the operator may choose several options. Ignored without options."),
  ),
});

/**
 * Builds the `ask_human` tool: the model asks its operator a question, optionally with 2–4
 * choices, and the call waits on `channel` until the operator answers. The tool has
 * `parallel: false`, so `runToolCalls` runs it alone: at most one question is pending per run.
 * Cancellation, a closed channel and `timeoutMs` become {@linkcode ToolError}s the model can
 * route around; a timed-out question is withdrawn from the channel at once. The call's
 * `toolCallId`, within its `sessionId` and `runId`, is the idempotency key: a durable channel
 * re-attaches a re-run call to its question (and returns the answer if there is one), as long as
 * the call asks the same question with the same options; a question that was withdrawn (the call
 * timed out or was aborted) is asked again. When the caller can ask its own user (`ctx.elicit`,
 * set by the MCP server for clients with the `elicitation` capability), the question goes there
 * instead of to `channel`: options as a single choice, `multi_select` as a list, free text
 * otherwise; declining is a cancel. Throws {@linkcode SetupError} for a bad `channel` or option.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman, runToolCalls } from "@outpost/agent-tools";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 *
 * const channel = new MemoryQuestionChannel();
 * const tools = [askHuman(channel, { timeoutMs: 5 * 60_000 })];
 * const input = {
 *   question: "Deploy now?",
 *   options: [{ label: "Yes" }, { label: "No", description: "Wait for the review" }],
 * };
 * const running = runToolCalls(tools, [{ id: "call_1", name: "ask_human", input }]);
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, q.options[0].label);
 *   break;
 * }
 * assert.match((await running)[0].text, /Yes/);
 * ```
 */
export function askHuman(channel: QuestionChannel, options: AskHumanOptions = {}): Tool {
  if (typeof channel?.ask !== "function") {
    throw new SetupError("askHuman needs a QuestionChannel.", {
      hint: "Pass a channel such as `new MemoryQuestionChannel()`.",
    });
  }
  const { name = "ask_human", clock } = options;
  const timeoutMs = timeoutOption(options.timeoutMs);
  return presetTool({
    name,
    description: DESCRIPTION,
    input,
    parallel: false,
    // Asking changes nothing but the operator's queue, and reaches known people, not the world.
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    async execute({ question, options = [], multi_select }, ctx) {
      const request: QuestionRequest = {
        question,
        options,
        multiSelect: options.length > 0 && multi_select,
        ...callIds(ctx),
      };
      const outcome = await withinTimeout(timeoutMs, ctx.signal, (signal) => {
        if (ctx.elicit) {
          ctx.reportProgress?.({ message: "Waiting for your answer" });
          return elicitQuestion(ctx.elicit, request, signal);
        }
        ctx.reportProgress?.({ message: "Waiting for an operator" });
        return channel.ask(request, signal && { signal });
      }, clock);
      if (outcome === TIMED_OUT) {
        throw new ToolError(`The operator did not answer within ${duration(timeoutMs!)}.`, {
          hint: "The question was withdrawn. Go on with your best judgement and say what you " +
            "assumed, or ask again later if you cannot continue without an answer.",
          code: "timeout",
        });
      }
      switch (outcome.status) {
        case "answered":
          return outcome.answer;
        case "cancelled":
          throw new ToolError(
            `The operator cancelled the question (${quoteText(outcome.reason)}).`,
            {
              hint: "Do not ask the same question again. Go on without the answer, or ask " +
                "something different if you cannot continue.",
              code: "denied",
            },
          );
        case "closed":
          throw new ToolError(
            `No operator can answer: the question channel is closed (${outcome.reason}).`,
            {
              hint:
                `Do not call ${name} again. Go on with your best judgement and say what you assumed.`,
              code: "unavailable",
            },
          );
      }
    },
  }, FAMILY_SCHEMAS.ask_human);
}

/**
 * The ids of a call a question carries, and its idempotency key: its tool-call id within its
 * session and run. Tool-call ids are unique only within a conversation, so the id alone could
 * hand one session's answer to another. JSON keeps the three apart whatever characters they hold.
 */
export function callIds(
  { sessionId, runId, toolCallId }: ToolContext,
  scope?: string,
): Pick<QuestionRequest, "key" | "sessionId" | "runId" | "toolCallId"> {
  const key = JSON.stringify([sessionId ?? null, runId ?? null, toolCallId]);
  return defined({
    key: toolCallId === undefined ? undefined : scope === undefined ? key : `${scope}:${key}`,
    sessionId,
    runId,
    toolCallId,
  });
}

/** What {@linkcode withinTimeout} returns when the time ran out. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * Runs `ask` under the call's signal and, when set, `timeoutMs` on `clock`: the time running
 * out aborts the signal `ask` gets (which withdraws a question) and yields
 * {@linkcode TIMED_OUT}.
 */
export async function withinTimeout<T>(
  timeoutMs: number | undefined,
  callSignal: AbortSignal | undefined,
  ask: (signal: AbortSignal | undefined) => Promise<T>,
  clock: Clock = systemClock,
): Promise<T | typeof TIMED_OUT> {
  if (timeoutMs === undefined) return await ask(callSignal);
  // Not AbortSignal.timeout: its timer could not be cleared once the answer is in.
  const timeout = new AbortController();
  const cancelTimer = clock.setTimer(
    () => timeout.abort(new DOMException("No answer in time.", "TimeoutError")),
    timeoutMs,
  );
  const linked = callSignal ? linkSignals([callSignal, timeout.signal]) : undefined;
  try {
    return await ask(linked?.signal ?? timeout.signal);
  } catch (error) {
    if (timeout.signal.aborted && !callSignal?.aborted) return TIMED_OUT;
    throw error;
  } finally {
    cancelTimer();
    linked?.release();
  }
}

/** Checks a `timeoutMs` option. */
export function timeoutOption(timeoutMs: number | undefined): number | undefined {
  if (timeoutMs !== undefined && !(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw new SetupError(`timeoutMs must be a positive number of milliseconds, not ${timeoutMs}.`, {
      hint: "Omit it to wait until the question is answered, cancelled or aborted.",
    });
  }
  return timeoutMs;
}

/** Renders a timeout for the model: "500 ms", "90 seconds", "5 minutes", "1.5 hours". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const [amount, unit] = ms < 60_000
    ? [ms / 1000, "second"]
    : ms < 3_600_000
    ? [ms / 60_000, "minute"]
    : [ms / 3_600_000, "hour"];
  const rounded = Math.round(amount * 10) / 10;
  return `${rounded} ${unit}${rounded === 1 ? "" : "s"}`;
}
