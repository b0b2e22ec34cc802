import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import type { InputSchema } from "../input_schema.ts";
import type { JsonSchema } from "../json_schema.ts";
import { callTurns } from "../call_turns.ts";
import { abortable } from "../clock.ts";
import { SetupError } from "../errors.ts";
import { formatToolError } from "../format_tool_error.ts";
import { type FrameworkApproval, frameworkApproval } from "../human/approval_flow.ts";
import type { ApprovalDecision } from "../human/question.ts";
import type { Tool } from "../tool.ts";
import type { ProgressUpdate } from "../tool_context.ts";

/**
 * A schema in the Standard JSON Schema v1 shape (`@standard-schema/spec`): one that converts
 * itself to JSON Schema for a given target.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type StandardJsonSchema, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const schema: StandardJsonSchema = toAISDKTools([now]).now.inputSchema;
 * assert.equal(schema["~standard"].jsonSchema.input({ target: "draft-07" }).type, "object");
 * ```
 */
// A plain alias (no type arguments) keeps `deno doc --lint` from calling the npm type private.
export type StandardJsonSchema = StandardJSONSchemaV1;

/**
 * The input schema handed to the AI SDK: Standard Schema with its JSON Schema converter, which
 * the SDK sends to the provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const schema = toAISDKTools([now]).now.inputSchema;
 * assert.equal(schema["~standard"].vendor, "outpost");
 * ```
 */
export type AISDKInputSchema = InputSchema & StandardJsonSchema;

/**
 * What an AI SDK tool's `execute` returns: the text the model sees, as a promise, and at once an
 * async iterable that the SDK reads for preliminary tool results — the call's progress messages
 * (such as `Waiting for an operator to approve deploy`) while it runs, then the final text. A
 * reader that falls behind gets the latest progress, not every step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKExecution, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const run: AISDKExecution = toAISDKTools([now]).now.execute({ tz: "UTC" }, { toolCallId: "c" });
 * const outputs: string[] = [];
 * for await (const output of run) outputs.push(output);
 * assert.equal(outputs.at(-1), await run);
 * ```
 */
export type AISDKExecution = Promise<string> & AsyncIterable<string>;

/**
 * A tool in the Vercel AI SDK's `tool()` shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKTool, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const nowTool: AISDKTool = toAISDKTools([now]).now;
 * const text = await nowTool.execute({ tz: "UTC" }, { toolCallId: "call_1" });
 * assert.match(text, /Z|\+00:00/);
 * ```
 */
export interface AISDKTool {
  /** The tool's description. */
  description: string;
  /** The schema the SDK derives the provider's JSON Schema from. */
  inputSchema: AISDKInputSchema;
  /** Whether providers that have a strict mode use it for this tool. */
  strict: boolean;
  /**
   * With `approvals: "sdk"`, on tools guarded by `requireApproval`: whether the SDK asks its
   * user before this call (the guard's `when`); the question is then asked on the guard's
   * channel too, and stays pending there until the decision is recorded.
   */
  needsApproval?: (
    input: unknown,
    options: { toolCallId: string; messages?: readonly unknown[] },
  ) => Promise<boolean>;
  /**
   * Runs the tool; failures reject with an error that the SDK renders as the model text once
   * (`Error: …` with the hint). Awaited, it gives the text; iterated (as the SDK does), it gives
   * the call's progress as preliminary results first (see {@linkcode AISDKExecution}).
   */
  execute(
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal; messages?: readonly unknown[] },
  ): AISDKExecution;
}

/**
 * Options of {@linkcode toAISDKTools}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AISDKToolsOptions, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const options: AISDKToolsOptions = { strict: true };
 * const tools = toAISDKTools([now], options);
 * assert.equal(tools.now.strict, true);
 * ```
 */
export interface AISDKToolsOptions {
  /**
   * Send the strict-mode schema (every field required, optional ones nullable) and mark the
   * tools `strict`, for providers such as OpenAI that then guarantee valid input (default
   * `false`: the plain schema, optional fields left out of `required`).
   */
  strict?: boolean;
  /**
   * How tools guarded by `requireApproval` get their approval. `"channel"` (the default): the
   * call waits while an operator answers on the guard's channel (the console). `"sdk"`: the
   * SDK's own flow — the tool has `needsApproval`, the SDK ends the step with a
   * `tool-approval-request`, your app asks its user and resumes with a
   * `tool-approval-response`; the guard's channel still records the question when the SDK asks
   * and the decision when it comes back (see {@linkcode recordAISDKApprovals}), and the call
   * runs only if the record of its very input says approved — an input changed after approval
   * is not run (the model may call again, which asks again).
   */
  approvals?: "channel" | "sdk";
}

/**
 * Maps tools to a Vercel AI SDK tool set, keyed by tool name, for `generateText({ tools })`.
 * The SDK runs all calls of a step at once; the tools of one `toAISDKTools` call keep
 * `parallel: false` anyway: a call to such a tool (like `ask_human`) waits for the calls already
 * running and holds back later ones until it ends, as `runToolCalls` does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * const tools = toAISDKTools([now]);
 * assert.deepEqual(Object.keys(tools), ["now"]);
 * assert.equal(tools.now.strict, false);
 * ```
 */
export function toAISDKTools(
  tools: readonly Tool[],
  options: AISDKToolsOptions = {},
): Record<string, AISDKTool> {
  const strict = options.strict ?? false;
  if (options.approvals !== undefined && !["channel", "sdk"].includes(options.approvals)) {
    throw new SetupError('`approvals` must be "channel" or "sdk".');
  }
  const sdkApprovals = options.approvals === "sdk";
  const turn = callTurns();
  const out: Record<string, AISDKTool> = {};
  for (const t of tools) {
    const schema = (): JsonSchema => strict ? t.parameters : t.inputJsonSchema;
    const approval = sdkApprovals ? frameworkApproval(t) : undefined;
    out[t.name] = {
      ...(approval && {
        // The SDK asks again when it resumes with a decision: the question asked before stands,
        // and `execute` runs only what its record approved; asking afresh would let the decision
        // meant for that question approve whatever input the resumed history now shows.
        needsApproval: async (input, { toolCallId, messages }) =>
          sdkDecision(messages, toolCallId) === undefined &&
          await approval.needed(input, { toolCallId }),
      }),
      description: t.description,
      strict,
      inputSchema: {
        "~standard": {
          version: 1,
          vendor: "outpost",
          // The tool validates in `execute`, once, with its own model-readable messages and the
          // null-for-omitted reading strict providers need; validating here too would run
          // transforms twice and reject those nulls.
          validate: (value: unknown) => ({ value }),
          jsonSchema: { input: schema, output: schema },
        },
      },
      execute(input, { toolCallId, abortSignal, messages }) {
        const progress = progressFeed();
        const run = turn(t.parallel, async () => {
          try {
            const ctx = { toolCallId, signal: abortSignal, reportProgress: progress.report };
            if (approval) return await approval.run(input, ctx, sdkDecision(messages, toolCallId));
            return await t.execute(input, ctx);
          } catch (error) {
            throw new AISDKToolError(error);
          }
        });
        // A call still waiting for its turn ends at once when aborted; its turn then ends it too.
        if (abortSignal) run.catch(() => {});
        // Rejected, never thrown: a caller awaits or iterates what `execute` returns.
        const done = !abortSignal
          ? run
          : abortSignal.aborted
          ? Promise.reject(abortSignal.reason)
          : abortable(run, abortSignal);
        return Object.assign(done, { [Symbol.asyncIterator]: () => progress.follow(done) });
      },
    };
    if (approval) recorders.set(out[t.name], approval);
  }
  return out;
}

/** The approvals of the tools `toAISDKTools` made with `approvals: "sdk"`. */
const recorders = new WeakMap<AISDKTool, FrameworkApproval>();

/**
 * Records on the guards' channels the decisions of the last tool message of `messages` (its
 * `tool-approval-response` parts) on calls of `tools` (made with `approvals: "sdk"`), naming
 * `by` as who decided. Call it before resuming the SDK with those messages: the SDK runs
 * approved calls (which record their approval themselves if you did not) but never shows a
 * denied one to its tool, so without it a denial stays pending on the channel. Returns how many
 * decisions were recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool } from "@outpost/agent-tools";
 * import { MemoryQuestionChannel, requireApproval } from "@outpost/agent-tools/human";
 * import { recordAISDKApprovals, toAISDKTools } from "@outpost/agent-tools/ai-sdk";
 * import * as z from "zod";
 * const deploy = tool({
 *   name: "deploy",
 *   description: "Deploys a service.",
 *   input: z.object({ service: z.string() }),
 *   execute: ({ service }) => `Deployed ${service}.`,
 * });
 * const channel = new MemoryQuestionChannel();
 * const tools = toAISDKTools([requireApproval(deploy, channel)], { approvals: "sdk" });
 * // The SDK asks whether call c1 needs approval: it does, and the channel records the question.
 * assert.equal(await tools.deploy.needsApproval?.({ service: "api" }, { toolCallId: "c1" }), true);
 * const messages = [
 *   {
 *     role: "assistant",
 *     content: [
 *       { type: "tool-call", toolCallId: "c1", toolName: "deploy", input: { service: "api" } },
 *       { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
 *     ],
 *   },
 *   {
 *     role: "tool",
 *     content: [{ type: "tool-approval-response", approvalId: "a1", approved: false, reason: "Frozen" }],
 *   },
 * ];
 * assert.equal(await recordAISDKApprovals(tools, messages, { by: "alice" }), 1);
 * const [record] = await channel.resolved(1);
 * assert.equal(record.status === "answered" && `${record.decision} by ${record.by}`, "deny by alice");
 * ```
 */
export async function recordAISDKApprovals(
  tools: Record<string, AISDKTool>,
  messages: readonly unknown[],
  options: { by?: string } = {},
): Promise<number> {
  const last = messages.at(-1) as SDKMessage | undefined;
  if (last?.role !== "tool" || !Array.isArray(last.content)) return 0;
  const calls = new Map<string, { toolName?: string; input?: unknown }>();
  for (const part of partsOf(messages, "assistant")) {
    if (part.type === "tool-call" && typeof part.toolCallId === "string") {
      calls.set(part.toolCallId, part);
    }
  }
  let recorded = 0;
  for (const part of last.content as SDKPart[]) {
    if (part.type !== "tool-approval-response") continue;
    const toolCallId = approvalCallId(messages, part.approvalId);
    const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
    const t = call?.toolName === undefined
      ? undefined
      : Object.hasOwn(tools, call.toolName)
      ? tools[call.toolName]
      : undefined;
    const approval = t && recorders.get(t);
    if (!approval) continue;
    const decision = sdkDecision(messages, toolCallId!, options.by)!;
    if (await approval.record(call!.input, { toolCallId }, decision)) recorded++;
  }
  return recorded;
}

/** What the adapter reads of the SDK's messages: a role and its parts. */
interface SDKMessage {
  role?: unknown;
  content?: unknown;
}

/** A part of an SDK message, as far as approvals go. */
interface SDKPart {
  type?: unknown;
  toolCallId?: unknown;
  toolName?: string;
  input?: unknown;
  approvalId?: unknown;
  approved?: unknown;
  reason?: unknown;
}

/** The parts of the messages of `role`. */
function partsOf(messages: readonly unknown[], role: string): SDKPart[] {
  return messages.flatMap((message) => {
    const { role: of, content } = (message ?? {}) as SDKMessage;
    return of === role && Array.isArray(content) ? content as SDKPart[] : [];
  });
}

/** The tool call an approval id was requested for. */
function approvalCallId(messages: readonly unknown[], approvalId: unknown): string | undefined {
  const request = partsOf(messages, "assistant").find((part) =>
    part.type === "tool-approval-request" && part.approvalId === approvalId
  );
  return typeof request?.toolCallId === "string" ? request.toolCallId : undefined;
}

/**
 * The decision the SDK's messages carry for `toolCallId` (its latest approval response), named
 * as the SDK's unless `by` says who.
 */
function sdkDecision(
  messages: readonly unknown[] | undefined,
  toolCallId: string,
  by?: string,
): ApprovalDecision | undefined {
  if (!messages) return undefined;
  const response = partsOf(messages, "tool").findLast((part) =>
    part.type === "tool-approval-response" &&
    approvalCallId(messages, part.approvalId) === toolCallId
  );
  if (!response) return undefined;
  return {
    decision: response.approved === true ? "approve" : "deny",
    ...(typeof response.reason === "string" && response.reason ? { reason: response.reason } : {}),
    by: by ?? `ai-sdk approval ${String(response.approvalId).slice(0, 100)}`,
  };
}

/**
 * A call's progress as the SDK's preliminary results: the latest message not yet read (a slow
 * reader skips the ones in between, so nothing piles up), then the final text.
 */
function progressFeed(): {
  report: (update: ProgressUpdate) => void;
  follow: (done: Promise<string>) => AsyncGenerator<string>;
} {
  let latest: string | undefined;
  let wake = () => {};
  return {
    report(update) {
      latest = update.message;
      wake();
    },
    async *follow(done) {
      let finished = false;
      const settled = done.then(() => finished = true, () => finished = true);
      while (!finished || latest !== undefined) {
        if (latest !== undefined) {
          const message = latest;
          latest = undefined;
          yield message;
          continue;
        }
        await Promise.race([settled, new Promise<void>((resolve) => wake = resolve)]);
      }
      yield await done;
    },
  };
}

/**
 * The SDK shows the model `String(error)`, which is `Error: ` and the message: the message is
 * therefore our model text without its own `Error: `, so that the prefix comes once and the
 * hint travels along.
 */
class AISDKToolError extends Error {
  constructor(cause: unknown) {
    super(formatToolError(cause).replace(/^Error: /, ""), { cause });
  }
}
