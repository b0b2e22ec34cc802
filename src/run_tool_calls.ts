import { type CallTelemetry, observeCall } from "./call_telemetry.ts";
import { SetupError, ToolError } from "./errors.ts";
import { formatToolError } from "./format_tool_error.ts";
import type { Tool } from "./tool.ts";
import type { ToolContext } from "./tool_context.ts";

/**
 * One tool call a model asked for, in provider-neutral form.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls, type ToolCall } from "@outpost/agent-tools";
 * const call: ToolCall = { id: "call_1", name: "now", input: { tz: "UTC" } };
 * const [result] = await runToolCalls([now], [call]);
 * assert.equal(result.id, "call_1");
 * ```
 */
export interface ToolCall {
  /** The provider's id for the call, echoed in its result. */
  id: string;
  /** The tool's model-facing name. */
  name: string;
  /** The arguments as the model sent them, not yet validated. */
  input: unknown;
}

/**
 * The outcome of one {@linkcode ToolCall}: the text for the model, and whether it is an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runToolCalls, type ToolCallResult } from "@outpost/agent-tools";
 * const result: ToolCallResult = { id: "call_1", name: "now", text: "…", isError: false };
 * // A call to a tool not in the list comes back as an error result, not an exception.
 * const [missing] = await runToolCalls([], [{ id: "call_2", name: "nope", input: {} }]);
 * assert.equal(missing.isError, true);
 * assert.equal(result.isError, false);
 * ```
 */
export interface ToolCallResult {
  /** The id of the call this answers. */
  id: string;
  /** The tool's name as the model called it. */
  name: string;
  /** What the model sees: the tool's output, or `Error: …` with an optional `Hint: …`. */
  text: string;
  /** Whether `text` reports a failure. */
  isError: boolean;
}

/**
 * Runs a batch of tool calls and returns their results in call order. Calls run concurrently,
 * except that a tool with `parallel: false` is a barrier: every call before it finishes first,
 * and none after it starts until it ends. Unknown tools, invalid input and thrown errors all
 * become error results; nothing escapes the batch. Two tools with one name are a set-up
 * mistake: {@linkcode SetupError}. With `telemetry`, each call of a known tool gets an access-log
 * entry and a span.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * const results = await runToolCalls([now], [{ id: "1", name: "now", input: {} }]);
 * assert.equal(results[0].isError, false);
 * assert.match(results[0].text, /^\d{4}-\d{2}-\d{2}T/);
 * ```
 */
export async function runToolCalls(
  tools: readonly Tool[],
  calls: readonly ToolCall[],
  ctx: ToolContext = {},
  telemetry?: CallTelemetry,
): Promise<ToolCallResult[]> {
  const byName = toolsByName(tools);
  const results: Promise<ToolCallResult>[] = [];
  let running: Promise<unknown>[] = [];
  for (const call of calls) {
    const found = byName.get(call.name);
    if (found && !found.parallel) {
      await Promise.all(running);
      const result = runOne(found, call, ctx, byName, telemetry);
      results.push(result);
      await result;
      running = [];
    } else {
      const result = runOne(found, call, ctx, byName, telemetry);
      results.push(result);
      running.push(result);
    }
  }
  return await Promise.all(results);
}

async function runOne(
  found: Tool | undefined,
  call: ToolCall,
  ctx: ToolContext,
  byName: Map<string, Tool>,
  telemetry: CallTelemetry | undefined,
): Promise<ToolCallResult> {
  const base = { id: call.id, name: call.name };
  if (!found) {
    return { ...base, text: formatToolError(unknownTool(call.name, byName.keys())), isError: true };
  }
  try {
    const text = await observeCall(
      telemetry,
      found.name,
      { ...ctx, toolCallId: call.id },
      (ctx) => found.execute(call.input, ctx),
    );
    return { ...base, text, isError: false };
  } catch (error) {
    return { ...base, text: formatToolError(error), isError: true };
  }
}

/** The error for a call to a tool nobody registered, naming the ones there are. */
export function unknownTool(name: string, known: Iterable<string>): ToolError {
  return new ToolError(`Unknown tool ${JSON.stringify(name)}.`, {
    hint: `Available tools: ${[...known].join(", ") || "none"}.`,
  });
}

/** Indexes tools by name; two tools with one name are a set-up mistake. */
export function toolsByName(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const t of tools) {
    if (byName.has(t.name)) {
      throw new SetupError(`Two tools are named ${JSON.stringify(t.name)}.`, {
        hint: "Give each tool its own name, e.g. through the factory's `name` option.",
      });
    }
    byName.set(t.name, t);
  }
  return byName;
}
