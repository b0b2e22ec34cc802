import type { JsonSchema } from "./json_schema.ts";

/**
 * The JSON Schema of a tool's structured result (MCP `outputSchema`): always an object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolOutputSchema } from "@outpost/agent-tools";
 * import { now } from "@outpost/agent-tools/time";
 * const schema: ToolOutputSchema | undefined = now.outputSchema;
 * assert.equal(schema?.type, "object");
 * ```
 */
export interface ToolOutputSchema extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
}

/**
 * What a tool with an `outputSchema` returns: the text the model sees and the same result as a
 * value of that schema, for programs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolOutput } from "@outpost/agent-tools";
 * import * as z from "zod";
 *
 * const wordCount = tool({
 *   name: "word_count",
 *   description: "Counts the words in a text.",
 *   input: z.object({ text: z.string() }),
 *   outputSchema: { type: "object", properties: { count: { type: "integer" } } },
 *   execute: ({ text }): ToolOutput => {
 *     const count = text.split(/\s+/).filter(Boolean).length;
 *     return { text: `${count} words`, structured: { count } };
 *   },
 * });
 * const structured: unknown[] = [];
 * const text = await wordCount.execute({ text: "one two three" }, {
 *   reportStructured: (value) => structured.push(value),
 * });
 * assert.equal(text, "3 words");
 * assert.deepEqual(structured, [{ count: 3 }]);
 * ```
 */
export interface ToolOutput {
  /** The text the model sees. */
  text: string;
  /** The result as a value of the tool's `outputSchema`. */
  structured: Record<string, unknown>;
}
