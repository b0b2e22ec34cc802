import { disarm } from "../fence.ts";
import { type Tool, type ToolContext, ToolError, UserError } from "../tool.ts";
import { callIds, duration, TIMED_OUT, timeoutOption, withinTimeout } from "./ask_human.ts";
import type { QuestionChannel, QuestionOption } from "./question_channel.ts";

/**
 * Options of {@linkcode requireApproval}.
 *
 * @example
 * ```ts
 * import type { RequireApprovalOptions } from "@outpost/agent-tools";
 * const options: RequireApprovalOptions = {
 *   when: (input) => !String((input as { url?: string }).url).startsWith("https://docs.example.com/"),
 *   timeoutMs: 15 * 60_000,
 * };
 * ```
 */
export interface RequireApprovalOptions {
  /**
   * Which calls need approval (default: every call). It gets the input as the model sent it,
   * before validation, and the call's context; calls it turns down run at once.
   */
  when?: (input: unknown, ctx: ToolContext) => boolean | Promise<boolean>;
  /**
   * How long a call waits for a decision before it is refused unrun and its question withdrawn.
   * Without it a call waits until decided, cancelled, closed or aborted.
   */
  timeoutMs?: number;
}

/** The labels an operator chooses from; any other answer is a denial that gives its reason. */
const APPROVE = "Approve";
const OPTIONS: QuestionOption[] = [
  { label: APPROVE, description: "Run the call as shown" },
  { label: "Deny", description: "Do not run it (or answer in words to say why)" },
];
/** The most input an approval question shows. */
const MAX_SHOWN = 2000;

/**
 * Wraps a tool so that each call first asks a person on `channel` — what the tool is and the
 * input, clipped and disarmed, with the options Approve and Deny — and runs only on approval.
 * A denial, a cancel, a closed channel or the timeout become a {@linkcode ToolError} the model
 * can route around; the tool is then not run. The question has `kind: "approval"`, so consoles
 * show it as its own card, and a free-text answer is a denial with that text as the reason.
 *
 * Approvals ride the channel, so on a durable one (Deno KV) they survive restarts: the call's
 * `toolCallId` (in its session and run) is the key, and a re-run of the same call re-attaches to
 * its approval — and runs if it was approved within the channel's re-attach window. Approvals
 * always go to the channel's operator, never to the calling client's user (MCP elicitation):
 * the person who approves is not the one the agent acts for. The wrapped tool keeps its name,
 * schemas, `parallel` and hints; its description tells the model that calls need approval.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HumanChannel, requireApproval, runToolCalls, tool } from "@outpost/agent-tools";
 * import * as z from "zod";
 *
 * const deploy = tool({
 *   name: "deploy",
 *   description: "Deploys a service.",
 *   input: z.object({ service: z.string() }),
 *   execute: ({ service }) => `Deployed ${service}.`,
 * });
 * const channel = new HumanChannel();
 * const guarded = requireApproval(deploy, channel, { timeoutMs: 10 * 60_000 });
 * const running = runToolCalls([guarded], [{ id: "c1", name: "deploy", input: { service: "api" } }]);
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, "Approve");
 *   break;
 * }
 * assert.equal((await running)[0].text, "Deployed api.");
 * ```
 */
export function requireApproval(
  wrapped: Tool,
  channel: QuestionChannel,
  options: RequireApprovalOptions = {},
): Tool {
  if (typeof wrapped?.execute !== "function" || typeof wrapped.name !== "string") {
    throw new UserError("requireApproval needs a Tool to wrap.");
  }
  if (typeof channel?.ask !== "function") {
    throw new UserError("requireApproval needs a QuestionChannel.", {
      hint: "Pass the channel your operators answer, such as `new HumanChannel()`.",
    });
  }
  const { when } = options;
  if (when !== undefined && typeof when !== "function") {
    throw new UserError("`when` must be a function of the input and the call's context.");
  }
  const timeoutMs = timeoutOption(options.timeoutMs);
  const { name } = wrapped;
  return {
    ...wrapped,
    description: `${wrapped.description}\n\nEach call waits for a person's approval first; a ` +
      "denied call is not run and you are told why.",
    async execute(input: unknown, ctx: ToolContext = {}): Promise<string> {
      ctx.signal?.throwIfAborted();
      if (when && !(await when(input, ctx))) return await wrapped.execute(input, ctx);
      const request = {
        question: approvalQuestion(wrapped, input),
        options: OPTIONS,
        multiSelect: false,
        kind: "approval" as const,
        ...callIds(ctx, "approval"),
      };
      ctx.reportProgress?.({ message: `Waiting for an operator to approve ${name}` });
      const outcome = await withinTimeout(
        timeoutMs,
        ctx.signal,
        (signal) => channel.ask(request, signal && { signal }),
      );
      const retry = "Do not call it again with the same input. Tell the user what you " +
        "wanted to do, or find another way that does not need it.";
      if (outcome === TIMED_OUT) {
        throw new ToolError(
          `Nobody approved this call to ${name} within ${duration(timeoutMs!)}; it was not run.`,
          { hint: "You may ask again later if the call is still needed." },
        );
      }
      if (outcome.status === "closed") {
        throw new ToolError(
          `Nobody can approve this call to ${name}: the question channel is closed ` +
            `(${outcome.reason}); it was not run.`,
          { hint: retry },
        );
      }
      if (outcome.status === "cancelled") {
        throw new ToolError(
          `The approval of this call to ${name} was cancelled (${outcome.reason}); it was not run.`,
          { hint: retry },
        );
      }
      const answer = outcome.answer.trim();
      if (answer.toLowerCase() === APPROVE.toLowerCase()) {
        return await wrapped.execute(input, ctx);
      }
      // "Deny", "Deny: reason" or any other text, which is then the reason.
      const reason = answer.replace(/^deny\b[\s:.-]*/i, "").trim();
      throw new ToolError(
        `A person denied this call to ${name}${reason ? `: ${disarm(reason)}` : "."}`,
        { hint: retry },
      );
    },
  };
}

/** What the operator is asked: the tool, what it does, and the input, clipped and disarmed. */
function approvalQuestion(wrapped: Tool, input: unknown): string {
  let shown: string;
  try {
    shown = JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    shown = String(input);
  }
  if (shown.length > MAX_SHOWN) {
    shown = `${shown.slice(0, MAX_SHOWN)}\n… (${shown.length - MAX_SHOWN} more characters)`;
  }
  const summary = wrapped.description.split("\n")[0].slice(0, 300);
  return `Allow a call to ${wrapped.name}?\n${summary}\n\nInput:\n${disarm(shown)}`;
}
