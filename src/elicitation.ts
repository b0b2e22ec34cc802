/**
 * One field of an {@linkcode Elicitation} form: a flat value, as MCP elicitation allows. A
 * string field with `oneOf` is a single choice among titled values; an array field is a
 * multiple choice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ElicitationField } from "@outpost/agent-tools/human";
 * const region: ElicitationField = {
 *   type: "string",
 *   title: "Region",
 *   oneOf: [{ const: "eu", title: "Europe" }, { const: "us", title: "United States" }],
 * };
 * assert.equal(region.type === "string" && region.oneOf?.[0].title, "Europe");
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
 * import assert from "node:assert/strict";
 * import { askHuman, type Elicitation, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const form: Elicitation = {
 *   message: "Which region should I deploy to?",
 *   requestedSchema: {
 *     type: "object",
 *     properties: { answer: { type: "string", title: "Answer" } },
 *     required: ["answer"],
 *   },
 * };
 * // Given `ctx.elicit`, ask_human puts its question to the caller's user as such a form.
 * const asked: Elicitation[] = [];
 * const answer = await askHuman(new MemoryQuestionChannel()).execute({ question: form.message }, {
 *   elicit: (f) => (asked.push(f), Promise.resolve({ action: "accept", content: { answer: "eu" } })),
 * });
 * assert.equal(answer, "eu");
 * assert.equal(asked[0].message, form.message);
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
 * import assert from "node:assert/strict";
 * import { askHuman, type ElicitationResult, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const result: ElicitationResult = { action: "accept", content: { answer: "Europe" } };
 * const ask = askHuman(new MemoryQuestionChannel());
 * const answer = await ask.execute({ question: "Region?" }, { elicit: () => Promise.resolve(result) });
 * assert.equal(answer, "Europe");
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
 * import assert from "node:assert/strict";
 * import { askHuman, type Elicit, MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * const neverAsk: Elicit = () => Promise.resolve({ action: "decline" });
 * const ask = askHuman(new MemoryQuestionChannel());
 * await assert.rejects(ask.execute({ question: "Region?" }, { elicit: neverAsk }), /declined/);
 * ```
 */
export type Elicit = (
  request: Elicitation,
  options?: { signal?: AbortSignal },
) => Promise<ElicitationResult>;
