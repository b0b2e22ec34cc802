import type { InputSchema } from "../input_schema.ts";
import { formatToolError, type Tool } from "../tool.ts";

/**
 * A tool in the Vercel AI SDK's `tool()` shape.
 *
 * @example
 * ```ts
 * import { now, toAISDKTools, type AISDKTool } from "@outpost/agent-tools";
 * const nowTool: AISDKTool = toAISDKTools([now]).now;
 * ```
 */
export interface AISDKTool {
  /** The tool's description. */
  description: string;
  /** The schema the SDK validates input with and derives JSON Schema from. */
  inputSchema: InputSchema<Record<string, unknown>>;
  /** Runs the tool; failures reject with an error whose message is the model text. */
  execute(
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ): Promise<string>;
}

/**
 * Maps tools to a Vercel AI SDK tool set, keyed by tool name, for `generateText({ tools })`.
 *
 * @example
 * ```ts
 * import { now, toAISDKTools } from "@outpost/agent-tools";
 * const tools = toAISDKTools([now]);
 * ```
 */
export function toAISDKTools(tools: readonly Tool[]): Record<string, AISDKTool> {
  const out: Record<string, AISDKTool> = {};
  for (const t of tools) {
    out[t.name] = {
      description: t.description,
      inputSchema: t.inputSchema,
      async execute(input, options) {
        try {
          return await t.execute(input, {
            toolCallId: options.toolCallId,
            signal: options.abortSignal,
          });
        } catch (error) {
          // The SDK shows the model only the message, so the hint travels inside it.
          throw new Error(formatToolError(error), { cause: error });
        }
      },
    };
  }
  return out;
}
