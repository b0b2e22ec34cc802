import { ToolError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import type { ToolContext } from "../tool_context.ts";
import type {
  ApprovalDecision,
  HumanQuestion,
  QuestionOutcome,
  QuestionRequest,
} from "./question.ts";
import { outcomeOf } from "./question_lifecycle.ts";
import { MAX_RESOLVED_LIMIT } from "./question_support.ts";
import { type ApprovalGate, approvalGate } from "./require_approval.ts";

// requireApproval in a framework's own approval flow (the AI SDK's approval messages, OpenAI
// Agents' run interruptions): the framework asks its user and carries the answer, while the
// guarded tool's channel keeps the record — the question asked when the framework asks, the
// decision when it comes back — bound to the call's id and its input's digest, so that an
// approval of one input never runs another.

/** A tool's approval as a framework drives it; `undefined` for a tool without requireApproval. */
export interface FrameworkApproval {
  /**
   * Whether the call needs the framework to ask for approval; when it does, its question is
   * asked on the channel too, and stays pending there until a decision is recorded.
   */
  needed(input: unknown, ctx: ToolContext): Promise<boolean>;
  /**
   * Records `decision` on the call's question (if it is still pending; an earlier decision, such
   * as an operator's in the console, stands) and returns whether anything was recorded for it.
   */
  record(input: unknown, ctx: ToolContext, decision: ApprovalDecision): Promise<boolean>;
  /**
   * Runs the call as its framework does once approved: records `decision` as
   * {@linkcode FrameworkApproval.record} does, then runs only if the record of this very input
   * says approved; otherwise the ToolError the model reads, and the tool does not run.
   */
  run(input: unknown, ctx: ToolContext, decision?: ApprovalDecision): Promise<string>;
}

/** {@linkcode FrameworkApproval} of `tool`, or `undefined` if it is not guarded. */
export function frameworkApproval(tool: Tool): FrameworkApproval | undefined {
  const gate = approvalGate(tool);
  if (!gate) return undefined;
  return {
    async needed(input, ctx) {
      if (!(await gate.needs(input, ctx))) return false;
      let request: QuestionRequest;
      try {
        ({ request } = await gate.prepare(input, ctx));
      } catch {
        // An input nobody can be shown is refused unasked when the framework runs the call.
        return false;
      }
      // The framework's user answers; the channel keeps the question pending meanwhile (the ask
      // resolves when the decision is recorded) and re-attaches a repeated ask by its key.
      gate.channel.ask(request).catch(() => {});
      return true;
    },
    async record(input, ctx, decision) {
      const { request } = await gate.prepare(input, ctx);
      const outcome = await decide(gate, request, decision);
      return outcome !== undefined && outcome !== PENDING;
    },
    async run(input, ctx, decision) {
      if (!(await gate.needs(input, ctx))) return await gate.wrapped.execute(input, ctx);
      const { request, run } = await gate.prepare(input, ctx);
      const outcome = await decide(gate, request, decision);
      if (outcome === PENDING) {
        throw new ToolError(
          `This call to ${gate.wrapped.name} was not run: its approval has not been decided.`,
          { hint: "Wait for the decision before running the call.", code: "denied" },
        );
      }
      if (outcome === undefined) {
        throw new ToolError(
          `This call to ${gate.wrapped.name} was not run: no approval of this input is on ` +
            "record (the input changed after it was approved, or its question expired).",
          { hint: "Call it again to ask for approval of this input.", code: "denied" },
        );
      }
      return await gate.settle(outcome, run);
    },
  };
}

/** Whether `question` is the one `request` asks: the same call and the same input as shown. */
function asks(question: HumanQuestion, request: QuestionRequest): boolean {
  return question.kind === "approval" && question.question === request.question &&
    question.toolCallId === request.toolCallId && question.sessionId === request.sessionId &&
    question.runId === request.runId;
}

/** What {@linkcode decide} returns for a question still pending without a decision. */
const PENDING: unique symbol = Symbol("pending");

/**
 * Records `decision` on the question `request` asks, if pending, and returns how it ended:
 * PENDING while it waits without a decision, `undefined` when there is no such question among
 * the channel's pending and latest resolved ones.
 */
async function decide(
  gate: ApprovalGate,
  request: QuestionRequest,
  decision: ApprovalDecision | undefined,
): Promise<QuestionOutcome | typeof PENDING | undefined> {
  const { channel } = gate;
  const pending = (await channel.pending).find((question) => asks(question, request));
  if (pending) {
    if (decision) await channel.answer(pending.id, decision);
    const record = await channel.get(pending.id);
    if (!record) return undefined;
    return record.status === "pending" ? PENDING : outcomeOf(record);
  }
  const resolved = (await channel.resolved?.(MAX_RESOLVED_LIMIT)) ?? [];
  const record = resolved.find((r) => asks(r.question, request));
  return record && outcomeOf(record);
}
