import { disarm } from "../fence.ts";
import { hex, sha256 } from "../sha256.ts";
import { showInvisible } from "../show_invisible.ts";
import { SetupError, ToolError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import type { ToolContext } from "../tool_context.ts";
import { callIds, duration, TIMED_OUT, timeoutOption, withinTimeout } from "./ask_human.ts";
import type { QuestionChannel } from "./question_channel.ts";
import type { QuestionOption, QuestionOutcome, QuestionRequest } from "./question.ts";
import { approvalAnswer } from "./question_lifecycle.ts";

/**
 * Options of {@linkcode requireApproval}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool } from "@outpost/agent-tools";
 * import { MemoryQuestionChannel, requireApproval, type RequireApprovalOptions } from "@outpost/agent-tools/human";
 * import * as z from "zod";
 * const options: RequireApprovalOptions = {
 *   when: (input) => !String((input as { url?: string }).url).startsWith("https://docs.example.com/"),
 *   timeoutMs: 15 * 60_000,
 * };
 * const open = tool({
 *   name: "open_url",
 *   description: "Opens a URL.",
 *   input: z.object({ url: z.string() }),
 *   execute: ({ url }) => `Opened ${url}`,
 * });
 * const guarded = requireApproval(open, new MemoryQuestionChannel(), options);
 * // The docs need no approval: no question is asked.
 * assert.equal(await guarded.execute({ url: "https://docs.example.com/a" }), "Opened https://docs.example.com/a");
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
const OPTIONS: QuestionOption[] = [
  { label: "Approve", description: "Run the call as shown" },
  { label: "Deny", description: "Do not run it (or answer in words to say why)" },
];
/**
 * The longest input an approval shows, in characters as shown (invisible characters written
 * out): it is shown whole or not at all, and a longer one is refused unasked. With the rest of
 * the question, an answer or reason of MAX_ANSWER_LENGTH and the call's ids, a record stays under
 * the 64 KiB a Deno KV value holds.
 */
const MAX_SHOWN = 8000;

/**
 * Wraps a tool so that each call first asks a person on `channel` — what the tool is and the
 * whole input, as canonical JSON (keys sorted) with every invisible or look-blank character
 * written out (`⟨U+200B⟩`, see {@linkcode showInvisible}), with the options Approve and Deny —
 * and runs only on approval. An input longer than 8,000 characters as shown is refused at once,
 * unasked: nobody approves what they could not read. A denial, a cancel, a closed channel or the
 * timeout become a {@linkcode ToolError} the model can route around; the tool is then not run.
 * The question has `kind: "approval"`, so consoles show it as its own card; the operator
 * answers with a decision (`{ decision: "approve" }`), and a free-text answer is a denial with
 * that text as the reason.
 *
 * Approvals ride the channel, so on a durable one (Deno KV) they survive restarts: the call's
 * `toolCallId` (in its session and run) and the SHA-256 digest of its canonical input are the
 * key, and a re-run of the same call with the same input re-attaches to its approval — and runs
 * if it was approved within the channel's re-attach window. The same id with any other input,
 * however alike it looks, is asked afresh. Approvals
 * always go to the channel's operator, never to the calling client's user (MCP elicitation):
 * the person who approves is not the one the agent acts for. The wrapped tool keeps its name,
 * schemas, `parallel` and hints; its description tells the model that calls need approval.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runToolCalls, tool } from "@outpost/agent-tools";
 * import { MemoryQuestionChannel, requireApproval } from "@outpost/agent-tools/human";
 * import * as z from "zod";
 *
 * const deploy = tool({
 *   name: "deploy",
 *   description: "Deploys a service.",
 *   input: z.object({ service: z.string() }),
 *   execute: ({ service }) => `Deployed ${service}.`,
 * });
 * const channel = new MemoryQuestionChannel();
 * const guarded = requireApproval(deploy, channel, { timeoutMs: 10 * 60_000 });
 * const running = runToolCalls([guarded], [{ id: "c1", name: "deploy", input: { service: "api" } }]);
 * for await (const q of channel.questions()) {
 *   await channel.answer(q.id, { decision: "approve" });
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
    throw new SetupError("requireApproval needs a Tool to wrap.");
  }
  if (typeof channel?.ask !== "function") {
    throw new SetupError("requireApproval needs a QuestionChannel.", {
      hint: "Pass the channel your operators answer, such as `new MemoryQuestionChannel()`.",
    });
  }
  const { when } = options;
  if (when !== undefined && typeof when !== "function") {
    throw new SetupError("`when` must be a function of the input and the call's context.");
  }
  const timeoutMs = timeoutOption(options.timeoutMs);
  const { name } = wrapped;
  const gate: ApprovalGate = {
    wrapped,
    channel,
    needs: async (input, ctx) => !when || await when(input, ctx),
    async prepare(input, ctx) {
      const canonical = canonicalJson(input);
      const shown = canonical === undefined ? undefined : showInvisible(canonical.pretty);
      if (shown === undefined || shown.length > MAX_SHOWN) {
        throw new ToolError(
          shown === undefined
            ? `This call to ${name} was not run: its input is not plain JSON, so it cannot be ` +
              "shown to the person who must approve it."
            : `This call to ${name} was not run: its input is ${shown.length} characters long ` +
              `as shown, and an approval shows at most ${MAX_SHOWN}; nobody can approve what ` +
              "they cannot read whole.",
          {
            hint: "Call it again with a shorter input, or split the work into smaller calls.",
            code: "policy_refused",
          },
        );
      }
      // The digest binds a re-attached approval to this very input, never to how it looks.
      const digest = hex(await sha256(canonical!.compact));
      return {
        request: {
          question: approvalQuestion(wrapped, shown),
          options: OPTIONS,
          multiSelect: false,
          kind: "approval" as const,
          ...callIds(ctx, `approval:${digest}`),
        },
        // The tool gets what was shown and digested, even if the caller's object changed since.
        run: () => wrapped.execute(canonical!.value(), ctx),
      };
    },
    async settle(outcome, run) {
      const retry = "Do not call it again with the same input. Tell the user what you " +
        "wanted to do, or find another way that does not need it.";
      if (outcome.status === "closed") {
        throw new ToolError(
          `Nobody can approve this call to ${name}: the question channel is closed ` +
            `(${outcome.reason}); it was not run.`,
          { hint: retry, code: "unavailable" },
        );
      }
      if (outcome.status === "cancelled") {
        throw new ToolError(
          `The approval of this call to ${name} was cancelled (${outcome.reason}); it was not run.`,
          { hint: retry, code: "denied" },
        );
      }
      // Every channel of this package records the decision; another's text is read the same way.
      const { decision, reason = "" } = approvalAnswer(outcome);
      if (decision === "approve") return await run();
      throw new ToolError(
        `A person denied this call to ${name}${reason ? `: ${disarm(reason)}` : "."}`,
        { hint: retry, code: "denied" },
      );
    },
  };
  const guarded: Tool = {
    ...wrapped,
    description: `${wrapped.description}\n\nEach call waits for a person's approval first; a ` +
      "denied call is not run and you are told why.",
    async execute(input: unknown, ctx: ToolContext = {}): Promise<string> {
      ctx.signal?.throwIfAborted();
      if (!(await gate.needs(input, ctx))) return await wrapped.execute(input, ctx);
      const { request, run } = await gate.prepare(input, ctx);
      ctx.reportProgress?.({ message: `Waiting for an operator to approve ${name}` });
      const outcome = await withinTimeout(
        timeoutMs,
        ctx.signal,
        (signal) => channel.ask(request, signal && { signal }),
      );
      if (outcome === TIMED_OUT) {
        throw new ToolError(
          `Nobody approved this call to ${name} within ${duration(timeoutMs!)}; it was not run.`,
          { hint: "You may ask again later if the call is still needed.", code: "timeout" },
        );
      }
      return await gate.settle(outcome, run);
    },
  };
  gates.set(guarded, gate);
  return guarded;
}

/**
 * What {@linkcode requireApproval} knows of a tool it guards, for an adapter that carries the
 * approval through its framework's own flow while the channel keeps the record.
 */
export interface ApprovalGate {
  /** The tool that runs once approved. */
  wrapped: Tool;
  /** Where approvals are asked and recorded. */
  channel: QuestionChannel;
  /** Whether this call needs approval (`when`). */
  needs(input: unknown, ctx: ToolContext): Promise<boolean>;
  /**
   * The question for this call, bound to its input's digest, and the run of the tool with the
   * input as shown; a {@linkcode ToolError} for an input that cannot be shown.
   */
  prepare(
    input: unknown,
    ctx: ToolContext,
  ): Promise<{ request: QuestionRequest; run: () => Promise<string> }>;
  /** Runs on an approval; any other outcome becomes the ToolError the model reads. */
  settle(outcome: QuestionOutcome, run: () => Promise<string>): Promise<string>;
}

const gates = new WeakMap<Tool, ApprovalGate>();

/** The gate of a tool {@linkcode requireApproval} returned; `undefined` for any other tool. */
export function approvalGate(guarded: Tool): ApprovalGate | undefined {
  return gates.get(guarded);
}

/** What the operator is asked: the tool, what it does, and the input as shown. */
function approvalQuestion(wrapped: Tool, shown: string): string {
  const summary = showInvisible(wrapped.description.split("\n")[0].slice(0, 300));
  return `Allow a call to ${showInvisible(wrapped.name)}?\n${summary}\n\nInput:\n${shown}`;
}

/**
 * `input` as canonical JSON — object keys sorted, so that the same input always reads and
 * digests the same — compact, indented for reading, and parsed back into the value the tool
 * gets; `undefined` for what JSON cannot carry
 * whole (a cycle, a number that is not finite, a function, a `Map`), which would be shown as
 * something other than what the tool gets.
 */
function canonicalJson(
  input: unknown,
): { compact: string; pretty: string; value: () => unknown } | undefined {
  const sorted = (_key: string, value: unknown): unknown => {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("not finite");
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new TypeError(`not JSON: ${typeof value}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw new TypeError("not plain");
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
  };
  try {
    if (input === undefined) {
      return { compact: "undefined", pretty: "undefined", value: () => undefined };
    }
    const compact = JSON.stringify(input, sorted);
    const pretty = JSON.stringify(input, sorted, 2);
    return { compact, pretty, value: () => JSON.parse(compact) };
  } catch {
    return undefined;
  }
}
