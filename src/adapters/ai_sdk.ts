import type { InputSchema, InputSchemaProps } from "../input_schema.ts";
import type { JsonSchema } from "../json_schema.ts";
import { formatToolError, type Tool } from "../tool.ts";

/**
 * The input schema handed to the AI SDK: Standard Schema with its JSON Schema converter, which
 * the SDK sends to the provider.
 *
 * @example
 * ```ts
 * import { now, toAISDKTools } from "@outpost/agent-tools";
 * const schema = toAISDKTools([now]).now.inputSchema;
 * console.log(schema["~standard"].jsonSchema.input({ target: "draft-07" }));
 * ```
 */
export interface AISDKInputSchema extends InputSchema {
  /** Standard Schema, plus the Standard JSON Schema converter. */
  readonly "~standard": InputSchemaProps & {
    /** Returns the tool's JSON Schema for either direction. */
    readonly jsonSchema: {
      /** The schema of the input the model sends. */
      input(options: { target: string }): JsonSchema;
      /** The same schema: the input is passed on unchanged. */
      output(options: { target: string }): JsonSchema;
    };
  };
}

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
  /** The schema the SDK derives the provider's JSON Schema from. */
  inputSchema: AISDKInputSchema;
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
    const parameters = (): JsonSchema => t.parameters;
    out[t.name] = {
      description: t.description,
      inputSchema: {
        "~standard": {
          version: 1,
          vendor: "outpost",
          // The tool validates in `execute`, once, with its own model-readable messages and the
          // null-for-omitted reading strict providers need; validating here too would run
          // transforms twice and reject those nulls.
          validate: (value: unknown) => ({ value }),
          jsonSchema: { input: parameters, output: parameters },
        },
      },
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
