import { callTurns } from "../call_turns.ts";
import { InvalidInputError } from "../errors.ts";
import { formatToolError } from "../format_tool_error.ts";
import { frameworkApproval } from "../human/approval_flow.ts";
import type { ApprovalDecision } from "../human/question.ts";
import type { ToolInputSchema, ToolParameters } from "../json_schema.ts";
import type { Tool } from "../tool.ts";

/**
 * What the adapter reads of OpenAI Agents' `RunContext`: the run's decisions on interrupted
 * calls (`state.approve()` / `state.reject()`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentsRunContext } from "@outpost/agent-tools/openai-agents";
 * const context: AgentsRunContext = {
 *   isToolApproved: ({ callId }) => callId === "call_1" ? true : undefined,
 *   getRejectionMessage: () => undefined,
 * };
 * assert.equal(context.isToolApproved({ toolName: "deploy", callId: "call_1" }), true);
 * ```
 */
export interface AgentsRunContext {
  /** `true` approved, `false` rejected, `undefined` not decided. */
  isToolApproved(approval: { toolName: string; callId: string }): boolean | undefined;
  /** The message a rejection gave, if any. */
  getRejectionMessage(toolName: string, callId: string): string | undefined;
}

/**
 * A function tool in OpenAI Agents JS's shape (`FunctionTool` of `@openai/agents`), for
 * `new Agent({ tools })`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type OpenAIAgentsTool, toOpenAIAgentsTools } from "@outpost/agent-tools/openai-agents";
 * const [nowTool]: OpenAIAgentsTool[] = toOpenAIAgentsTools([now]);
 * assert.equal(nowTool.type, "function");
 * assert.match(await nowTool.invoke({} as never, '{"tz":"UTC"}'), /Z|\+00:00/);
 * ```
 */
export interface OpenAIAgentsTool {
  /** Always `"function"`. */
  type: "function";
  /** The tool's name. */
  name: string;
  /** The tool's description. */
  description: string;
  /** The JSON Schema of the input: the strict form with `strict`, else the plain one. */
  parameters: ToolParameters | ToolInputSchema;
  /** Whether the model must follow the schema strictly (OpenAI's strict mode). */
  strict: boolean;
  /**
   * Runs the call with its input as JSON text; the result is the text the model reads, a
   * failure included (`Error: …` with its hint), as the other adapters give it.
   */
  invoke(
    runContext: AgentsRunContext,
    input: string,
    details?: { toolCall?: { callId?: string }; signal?: AbortSignal },
  ): Promise<string>;
  /**
   * For a tool guarded by `requireApproval`: whether this call interrupts the run for approval
   * (the guard's `when`). The question is then asked on the guard's channel as well; when the
   * run resumes with a decision, the decision is recorded there, with who made it.
   */
  needsApproval(runContext: AgentsRunContext, input: unknown, callId?: string): Promise<boolean>;
  /** Always enabled. */
  isEnabled(): Promise<boolean>;
}

/**
 * Options of {@linkcode toOpenAIAgentsTools}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type OpenAIAgentsToolsOptions, toOpenAIAgentsTools } from "@outpost/agent-tools/openai-agents";
 * const options: OpenAIAgentsToolsOptions = { strict: false, decidedBy: "ops-team" };
 * assert.equal(toOpenAIAgentsTools([now], options)[0].strict, false);
 * ```
 */
export interface OpenAIAgentsToolsOptions {
  /**
   * Send the strict-mode schema (every field required, optional ones nullable) with
   * `strict: true`, which the Agents SDK and OpenAI default to (default `true`); `false` sends
   * the plain schema, optional fields left out of `required`, for models without strict mode.
   */
  strict?: boolean;
  /**
   * Who the channel records as deciding an interruption (`state.approve()` / `reject()`): a
   * name, or a function of the call (default `openai-agents`).
   */
  decidedBy?: string | ((call: { toolName: string; callId: string }) => string);
}

/**
 * Maps tools to OpenAI Agents JS function tools, for `new Agent({ tools })`. The framework is
 * not loaded: these are plain objects of its `FunctionTool` shape.
 *
 * A tool guarded by `requireApproval` becomes one with `needsApproval`: a call the guard's
 * `when` selects interrupts the run (`result.interruptions`), and its question is asked on the
 * guard's channel too; `state.approve(item)` or `state.reject(item)` then `run(agent, state)`
 * records the decision on the channel and runs the call only if the record of its very input
 * says approved — an input changed in a stored state after approval is not run. A tool with
 * `parallel: false` waits for the calls already running and holds back later ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toOpenAIAgentsTools } from "@outpost/agent-tools/openai-agents";
 * const [nowTool] = toOpenAIAgentsTools([now]);
 * assert.equal(nowTool.name, "now");
 * assert.equal(nowTool.strict, true);
 * assert.equal(await nowTool.needsApproval({} as never, {}), false);
 * ```
 */
export function toOpenAIAgentsTools(
  tools: readonly Tool[],
  options: OpenAIAgentsToolsOptions = {},
): OpenAIAgentsTool[] {
  const strict = options.strict ?? true;
  const { decidedBy = "openai-agents" } = options;
  const turn = callTurns();
  return tools.map((t) => {
    const approval = frameworkApproval(t);
    /** The run's decision on a call, as the channel records it. */
    const decision = (
      runContext: AgentsRunContext,
      callId: string | undefined,
    ): ApprovalDecision | undefined => {
      if (callId === undefined) return undefined;
      const call = { toolName: t.name, callId };
      const approved = runContext.isToolApproved?.(call);
      if (approved === undefined) return undefined;
      const reason = approved ? undefined : runContext.getRejectionMessage?.(t.name, callId);
      const by = typeof decidedBy === "function" ? decidedBy(call) : decidedBy;
      return { decision: approved ? "approve" : "deny", ...(reason ? { reason } : {}), by };
    };
    const record = async (runContext: AgentsRunContext, input: unknown, callId?: string) => {
      const decided = decision(runContext, callId);
      return !!approval && !!decided &&
        await approval.record(input, { toolCallId: callId }, decided).catch(() => false);
    };
    const adapted: OpenAIAgentsTool = {
      type: "function" as const,
      name: t.name,
      description: t.description,
      parameters: strict ? t.parameters : t.inputJsonSchema,
      strict,
      isEnabled: () => Promise.resolve(true),
      async needsApproval(runContext, input, callId) {
        if (!approval) return false;
        // A resumed run may ask again before it applies its decision: record the decision on
        // the question asked before, and never ask afresh, lest the decision meant for that
        // question approve whatever input the resumed state now holds.
        if (decision(runContext, callId)) {
          await record(runContext, input, callId);
          return true;
        }
        return await approval.needed(input, { toolCallId: callId });
      },
      invoke(runContext, input, details = {}) {
        const toolCallId = details.toolCall?.callId;
        return turn(t.parallel, async () => {
          try {
            const value = parseInput(input);
            const ctx = { toolCallId, signal: details.signal };
            if (!approval) return await t.execute(value, ctx);
            return await approval.run(value, ctx, decision(runContext, toolCallId));
          } catch (error) {
            return formatToolError(error);
          }
        });
      },
    };
    if (approval) recorders.set(adapted, record);
    return adapted;
  });
}

/** How the tools `toOpenAIAgentsTools` made record a run's decision on a call. */
const recorders = new WeakMap<
  OpenAIAgentsTool,
  (runContext: AgentsRunContext, input: unknown, callId?: string) => Promise<boolean>
>();

/**
 * What {@linkcode recordOpenAIAgentsDecisions} reads of a `RunState`: its interruptions and its
 * run context, which holds the decisions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentsRunState } from "@outpost/agent-tools/openai-agents";
 * const state: AgentsRunState = {
 *   getInterruptions: () => [],
 *   _context: { isToolApproved: () => undefined, getRejectionMessage: () => undefined },
 * };
 * assert.deepEqual(state.getInterruptions(), []);
 * ```
 */
export interface AgentsRunState {
  /** The calls waiting for a decision. */
  getInterruptions(): { toolName?: string; rawItem: { callId?: string; arguments?: string } }[];
  /** The run context, with the decisions `state.approve()` / `reject()` made. */
  _context: AgentsRunContext;
}

/**
 * Records on the guards' channels the decisions made on `state`'s interruptions (with
 * `state.approve()` / `state.reject()`) for calls of `tools`. Call it before resuming with
 * `run(agent, state)`: an approved call records its approval itself when it runs, but the
 * framework shows a rejected call to no tool, so without this a rejection stays pending on the
 * channel. Returns how many decisions were recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool } from "@outpost/agent-tools";
 * import { MemoryQuestionChannel, requireApproval } from "@outpost/agent-tools/human";
 * import { recordOpenAIAgentsDecisions, toOpenAIAgentsTools } from "@outpost/agent-tools/openai-agents";
 * import * as z from "zod";
 * const deploy = tool({
 *   name: "deploy",
 *   description: "Deploys a service.",
 *   input: z.object({ service: z.string() }),
 *   execute: ({ service }) => `Deployed ${service}.`,
 * });
 * const channel = new MemoryQuestionChannel();
 * const tools = toOpenAIAgentsTools([requireApproval(deploy, channel)], { decidedBy: "bob" });
 * const undecided = { isToolApproved: () => undefined, getRejectionMessage: () => undefined };
 * // The run interrupts for call c1, and the channel records the question.
 * assert.equal(await tools[0].needsApproval(undecided, { service: "api" }, "c1"), true);
 * const state = {
 *   getInterruptions: () => [{ toolName: "deploy", rawItem: { callId: "c1", arguments: '{"service":"api"}' } }],
 *   _context: { isToolApproved: () => false, getRejectionMessage: () => "Not today" },
 * };
 * assert.equal(await recordOpenAIAgentsDecisions(tools, state), 1);
 * const [record] = await channel.resolved(1);
 * assert.deepEqual(record.status === "answered" && [record.decision, record.reason, record.by], ["deny", "Not today", "bob"]);
 * ```
 */
export async function recordOpenAIAgentsDecisions(
  tools: readonly OpenAIAgentsTool[],
  state: AgentsRunState,
): Promise<number> {
  let recorded = 0;
  for (const { toolName, rawItem } of state.getInterruptions()) {
    const record = recorders.get(tools.find((t) => t.name === toolName)!);
    if (!record || rawItem.callId === undefined) continue;
    let input: unknown;
    try {
      input = parseInput(rawItem.arguments ?? "");
    } catch {
      continue;
    }
    if (await record(state._context, input, rawItem.callId)) recorded++;
  }
  return recorded;
}

/** The call's arguments, which the framework passes as JSON text (empty for none). */
function parseInput(input: string): unknown {
  if (input === "") return {};
  try {
    return JSON.parse(input);
  } catch {
    throw new InvalidInputError("The arguments are not valid JSON.", {
      hint: "Send the arguments as one JSON object matching the tool's schema.",
    });
  }
}
