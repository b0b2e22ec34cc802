/**
 * One field of an {@linkcode Elicitation} form: a flat value, as MCP elicitation allows. A
 * string field with `oneOf` is a single choice among titled values; an array field is a
 * multiple choice.
 *
 * @example
 * ```ts
 * import type { ElicitationField } from "@outpost/agent-tools/human";
 * const region: ElicitationField = {
 *   type: "string",
 *   title: "Region",
 *   oneOf: [{ const: "eu", title: "Europe" }, { const: "us", title: "United States" }],
 * };
 * ```
 */
export type ElicitationField =
  | {
    type: "string";
    title?: string;
    description?: string;
    minLength?: number;
    maxLength?: number;
    oneOf?: { const: string; title: string }[];
  }
  | {
    type: "array";
    title?: string;
    description?: string;
    minItems?: number;
    maxItems?: number;
    items: { anyOf: { const: string; title: string }[] };
  }
  | { type: "boolean"; title?: string; description?: string };

/**
 * A form to put in front of the person using the calling client (MCP `elicitation/create` in
 * form mode).
 *
 * @example
 * ```ts
 * import type { Elicitation } from "@outpost/agent-tools/human";
 * const form: Elicitation = {
 *   message: "Which region should I deploy to?",
 *   requestedSchema: {
 *     type: "object",
 *     properties: { answer: { type: "string", title: "Answer" } },
 *     required: ["answer"],
 *   },
 * };
 * ```
 */
export interface Elicitation {
  /** What is asked, shown to the person. */
  message: string;
  /** The form: flat fields only. */
  requestedSchema: {
    type: "object";
    properties: Record<string, ElicitationField>;
    required?: string[];
  };
}

/**
 * What the person did with an {@linkcode Elicitation}: submitted it, declined, or dismissed it.
 *
 * @example
 * ```ts
 * import type { ElicitationResult } from "@outpost/agent-tools/human";
 * const result: ElicitationResult = { action: "accept", content: { answer: "Europe" } };
 * ```
 */
export type ElicitationResult =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/**
 * Asks the person using the calling client directly: what `ToolContext.elicit` holds.
 *
 * @example
 * ```ts
 * import type { Elicit } from "@outpost/agent-tools/human";
 * const neverAsk: Elicit = () => Promise.resolve({ action: "decline" });
 * ```
 */
export type Elicit = (
  request: Elicitation,
  options?: { signal?: AbortSignal },
) => Promise<ElicitationResult>;
