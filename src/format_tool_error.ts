import { SetupError, ToolError } from "./errors.ts";
import { quoteText } from "./fence.ts";

/**
 * Renders an error as the text a model sees: `Error: …` and, when there is one, `Hint: …`.
 * Errors other than {@linkcode ToolError} are named without their stack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatToolError, ToolError } from "@outpost/agent-tools";
 * const text = formatToolError(new ToolError("Timed out.", { hint: "Try again later." }));
 * assert.equal(text, "Error: Timed out.\nHint: Try again later.");
 * ```
 */
export function formatToolError(error: unknown): string {
  if (error instanceof ToolError || error instanceof SetupError) {
    return error.hint ? `Error: ${error.message}\nHint: ${error.hint}` : `Error: ${error.message}`;
  }
  if (error instanceof Error) {
    const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
    return `Error: unexpected failure: ${quoteText(`${name}${error.message}`, 500)}`;
  }
  return `Error: unexpected failure: ${quoteText(String(error), 500)}`;
}
