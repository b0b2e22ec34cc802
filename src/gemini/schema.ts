/**
 * The type names of the Gemini API's schema dialect (an OpenAPI 3.0 subset), as its REST API
 * spells them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type GeminiTypeName, toGeminiTools } from "@outpost/agent-tools/gemini";
 * const name: GeminiTypeName = "OBJECT";
 * assert.equal(toGeminiTools([now])[0].functionDeclarations[0].parameters?.type, name);
 * ```
 */
export type GeminiTypeName = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";

/**
 * A schema in the Gemini API's dialect. `T` is how its `type` is spelled: the REST names by
 * default, or `@google/genai`'s `Type` enum when you pass it (see {@linkcode toGeminiTools}).
 * Counts are strings, as the API's int64 fields are in JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type GeminiSchema, toGeminiTools } from "@outpost/agent-tools/gemini";
 * const schema: GeminiSchema = { type: "STRING", description: "A URL.", maxLength: "2048" };
 * // Counts are strings: `now`'s `tz` has `minLength: 1`.
 * const tz = toGeminiTools([now])[0].functionDeclarations[0].parameters?.properties?.tz;
 * assert.equal(tz?.minLength, "1");
 * assert.equal(tz?.type, schema.type);
 * ```
 */
export interface GeminiSchema<T = GeminiTypeName> {
  /** The value's type. */
  type?: T;
  /** What the value means. */
  description?: string;
  /** A short title. */
  title?: string;
  /** The only values allowed (strings only). */
  enum?: string[];
  /** `date-time`, `int32`, `int64`, `float`, `double`, `enum`. */
  format?: string;
  /** Whether `null` is allowed too. */
  nullable?: boolean;
  /** The schema of each item of an array. */
  items?: GeminiSchema<T>;
  /** The fields of an object. */
  properties?: Record<string, GeminiSchema<T>>;
  /** The fields that must be present. */
  required?: string[];
  /** The order the model should write the fields in. */
  propertyOrdering?: string[];
  /** Alternatives, any of which the value may match. */
  anyOf?: GeminiSchema<T>[];
  /** The default value. */
  default?: unknown;
  /** A regular expression strings must match. */
  pattern?: string;
  /** The smallest number allowed. */
  minimum?: number;
  /** The largest number allowed. */
  maximum?: number;
  /** The fewest characters of a string. */
  minLength?: string;
  /** The most characters of a string. */
  maxLength?: string;
  /** The fewest items of an array. */
  minItems?: string;
  /** The most items of an array. */
  maxItems?: string;
}

/**
 * One function the model may call, for the Gemini API's `functionDeclarations`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type GeminiFunctionDeclaration, toGeminiTools } from "@outpost/agent-tools/gemini";
 * const declaration: GeminiFunctionDeclaration = toGeminiTools([now])[0].functionDeclarations[0];
 * assert.equal(declaration.name, "now");
 * ```
 */
export interface GeminiFunctionDeclaration<T = GeminiTypeName> {
  /** The tool's name. */
  name: string;
  /** The tool's description. */
  description: string;
  /** Its input, in the API's schema dialect. */
  parameters: GeminiSchema<T>;
}

/**
 * A Gemini API tool holding function declarations (`config.tools` with `@google/genai`, or
 * `tools` in a REST request).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type GeminiTool, toGeminiTools } from "@outpost/agent-tools/gemini";
 * const tools: GeminiTool[] = toGeminiTools([now]);
 * assert.deepEqual(tools[0].functionDeclarations.map((d) => d.name), ["now"]);
 * ```
 */
export interface GeminiTool<T = GeminiTypeName> {
  /** The functions. */
  functionDeclarations: GeminiFunctionDeclaration<T>[];
}

/**
 * Options of {@linkcode toGeminiTools}: how schema types are spelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type GeminiToolsOptions, toGeminiTools } from "@outpost/agent-tools/gemini";
 * const lower: GeminiToolsOptions<string> = {
 *   types: { STRING: "string", NUMBER: "number", INTEGER: "integer", BOOLEAN: "boolean", ARRAY: "array", OBJECT: "object" },
 * };
 * assert.equal(toGeminiTools([now], lower)[0].functionDeclarations[0].parameters?.type, "object");
 * ```
 */
export interface GeminiToolsOptions<T> {
  /**
   * The type values to use, by name: pass `@google/genai`'s `Type` enum so that the result
   * type-checks as its `Tool[]` (its values are the same strings).
   */
  types: Record<GeminiTypeName, T>;
}
