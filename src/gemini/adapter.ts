import type { JsonSchema } from "../json_schema.ts";
import type { ToolCall, ToolCallResult } from "../run_tool_calls.ts";
import { SetupError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import { callName, readableList } from "../message_shape.ts";

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

const REST_TYPES: Record<GeminiTypeName, GeminiTypeName> = {
  STRING: "STRING",
  NUMBER: "NUMBER",
  INTEGER: "INTEGER",
  BOOLEAN: "BOOLEAN",
  ARRAY: "ARRAY",
  OBJECT: "OBJECT",
};

/** Formats the dialect knows; others become a note in the description. */
const FORMATS = new Set(["date-time", "int32", "int64", "float", "double", "enum"]);
const COUNTS = ["minLength", "maxLength", "minItems", "maxItems"] as const;
const COPIED = ["description", "title", "default", "pattern", "minimum", "maximum"] as const;

/**
 * Maps tools to the Gemini API's function declarations. Each tool's input schema is converted
 * to the API's OpenAPI-subset dialect: optional fields are left out of `required`, nullable
 * ones get `nullable`, string constants become one-value enums, and `propertyOrdering` keeps
 * the declared field order. What the dialect cannot express (non-string enums, exclusive bounds
 * on non-integers, `oneOf`, `allOf`, `multipleOf`, unique items and the like) is refused with a
 * {@linkcode SetupError} naming the tool and field, rather than silently widened; formats it does
 * not know move into the description, and validation in `execute` still applies everything.
 *
 * With `@google/genai`, pass its `Type` enum so the result is its own `Tool[]`:
 * `toGeminiTools(tools, { types: Type })`. Without it, types are the REST API's names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toGeminiTools } from "@outpost/agent-tools/gemini";
 * const body = {
 *   contents: [{ role: "user", parts: [{ text: "What time is it in Lima?" }] }],
 *   tools: toGeminiTools([now]),
 * };
 * assert.equal(body.tools[0].functionDeclarations[0].parameters?.type, "OBJECT");
 * ```
 */
export function toGeminiTools(tools: readonly Tool[]): GeminiTool[];
/**
 * Maps tools to the Gemini API's function declarations, with `type` spelled by `options.types`
 * (pass `@google/genai`'s `Type` enum).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { toGeminiTools } from "@outpost/agent-tools/gemini";
 * import { type GenerateContentParameters, Type } from "@google/genai";
 * const tools = toGeminiTools([now], { types: Type });
 * const request: GenerateContentParameters = {
 *   model: "gemini-2.5-flash",
 *   contents: "What time is it in Lima?",
 *   config: { tools },
 * };
 * assert.equal(tools[0].functionDeclarations[0].parameters?.type, Type.OBJECT);
 * ```
 */
export function toGeminiTools<T>(
  tools: readonly Tool[],
  options: GeminiToolsOptions<T>,
): GeminiTool<T>[];
export function toGeminiTools<T>(
  tools: readonly Tool[],
  options?: GeminiToolsOptions<T>,
): GeminiTool<T>[] {
  const types = options?.types ?? (REST_TYPES as Record<GeminiTypeName, T>);
  return [{
    functionDeclarations: tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: geminiNode(t.inputJsonSchema, "", t.name, types),
    })),
  }];
}

function refuse(tool: string, path: string, why: string): never {
  throw new SetupError(
    `Tool ${tool}: input field \`${path || "(root)"}\` cannot be given to Gemini: ${why}.`,
    { hint: "Simplify the field's schema, or leave the tool out of the Gemini tool list." },
  );
}

function geminiNode<T>(
  node: JsonSchema,
  path: string,
  tool: string,
  types: Record<GeminiTypeName, T>,
): GeminiSchema<T> {
  const out: GeminiSchema<T> = {};
  let type = node.type;
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== "null");
    if (others.length !== 1) refuse(tool, path, "a value of several types needs anyOf");
    if (others.length < type.length) out.nullable = true;
    type = others[0];
  }
  if (type !== undefined) {
    const name = typeof type === "string" ? type.toUpperCase() : "";
    if (!(name in types)) refuse(tool, path, `the type ${JSON.stringify(type)} has no equivalent`);
    out.type = types[name as GeminiTypeName];
  }
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case "type":
      case "additionalProperties":
        // Declared properties are all a Gemini object holds; free-form keys were refused when
        // the tool was built, and `execute` rejects unknown ones.
        if (key === "additionalProperties" && value !== false) {
          refuse(tool, path, "objects with free-form keys are not supported");
        }
        break;
      case "enum":
      case "const": {
        const values = key === "enum" ? value as unknown[] : [value];
        if (!values.every((v) => typeof v === "string")) {
          refuse(tool, path, "its enums hold strings only");
        }
        out.type ??= types.STRING;
        out.enum = values as string[];
        break;
      }
      case "format":
        if (FORMATS.has(value as string)) out.format = value as string;
        else {
          const note = `Format: ${value}.`;
          out.description = out.description ? `${out.description} ${note}` : note;
        }
        break;
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        if (type !== "integer") refuse(tool, path, `${key} on a non-integer has no equivalent`);
        const bound = value as number;
        if (key === "exclusiveMinimum") out.minimum = Math.floor(bound) + 1;
        else out.maximum = Math.ceil(bound) - 1;
        break;
      }
      case "items":
        out.items = geminiNode(value as JsonSchema, `${path}[]`, tool, types);
        break;
      case "properties": {
        const properties: Record<string, GeminiSchema<T>> = {};
        for (const [name, property] of Object.entries(value as Record<string, JsonSchema>)) {
          properties[name] = geminiNode(property, path ? `${path}.${name}` : name, tool, types);
        }
        out.properties = properties;
        out.propertyOrdering = Object.keys(properties);
        break;
      }
      case "required":
        out.required = [...value as string[]];
        break;
      case "anyOf":
        Object.assign(out, geminiUnion(value as JsonSchema[], path, tool, types));
        break;
      default:
        if ((COPIED as readonly string[]).includes(key)) {
          if (key === "description" && out.description) {
            out.description = `${value} ${out.description}`;
          } else (out as Record<string, unknown>)[key] = value;
        } else if ((COUNTS as readonly string[]).includes(key)) {
          (out as Record<string, unknown>)[key] = String(value);
        } else refuse(tool, path, `\`${key}\` has no equivalent`);
    }
  }
  return out;
}

/** `anyOf`, with a `null` member turned into `nullable` and a single rest merged in. */
function geminiUnion<T>(
  members: JsonSchema[],
  path: string,
  tool: string,
  types: Record<GeminiTypeName, T>,
): GeminiSchema<T> {
  const rest = members.filter((member) => member.type !== "null");
  const nullable = rest.length < members.length ? { nullable: true } : {};
  if (rest.length === 1) return { ...geminiNode(rest[0], path, tool, types), ...nullable };
  return { anyOf: rest.map((member) => geminiNode(member, path, tool, types)), ...nullable };
}

/** The prefix of ids made up for calls that came without one (older Gemini models). */
const MADE_UP_ID = "gemini_call_";

/**
 * Takes the `functionCall` parts of a Gemini response (a `GenerateContentResponse`, a
 * candidate's `content`, or its `parts`) as {@linkcode runToolCalls} input. A call without an
 * `id` gets one made up, which {@linkcode geminiToolResults} leaves out again, since the API
 * then matches results to calls by name and order. Throws a `TypeError` for another provider's
 * message and for a call without a `name`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls } from "@outpost/agent-tools";
 * import { geminiToolCalls } from "@outpost/agent-tools/gemini";
 * const response = {
 *   candidates: [{ content: { role: "model", parts: [{ functionCall: { id: "c1", name: "now", args: {} } }] } }],
 * };
 * const calls = geminiToolCalls(response);
 * assert.deepEqual(calls, [{ id: "c1", name: "now", input: {} }]);
 * const [result] = await runToolCalls([now], calls);
 * assert.equal(result.isError, false);
 * ```
 */
export function geminiToolCalls(response: unknown): ToolCall[] {
  const reader = "geminiToolCalls";
  // deno-lint-ignore no-explicit-any
  const r = response as any;
  const parts = Array.isArray(r) ? r : r?.parts ?? r?.candidates?.[0]?.content?.parts ??
    // A response whose prompt or candidate was blocked has no parts, and so no calls.
    (Array.isArray(r?.candidates) || r?.promptFeedback ? [] : undefined);
  return readableList(reader, "a Gemini response", response, parts)
    .filter((part) => (part as { functionCall?: unknown })?.functionCall)
    .map((part, index) => {
      const call = (part as { functionCall: { id?: unknown; name?: unknown; args?: unknown } })
        .functionCall;
      return {
        id: typeof call.id === "string" && call.id !== "" ? call.id : `${MADE_UP_ID}${index}`,
        name: callName(reader, call.name),
        input: call.args ?? {},
      };
    });
}

/**
 * A `functionResponse` part for the next Gemini `user` turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type GeminiFunctionResponsePart, geminiToolResults } from "@outpost/agent-tools/gemini";
 * const part: GeminiFunctionResponsePart = {
 *   functionResponse: { id: "c1", name: "now", response: { output: "…" } },
 * };
 * assert.deepEqual(geminiToolResults([{ id: "c1", name: "now", text: "…", isError: false }]), [part]);
 * ```
 */
export interface GeminiFunctionResponsePart {
  /** The result of one call. */
  functionResponse: {
    /** The id of the call it answers, when the call had one. */
    id?: string;
    /** The tool's name. */
    name: string;
    /** `{ output }` with the text the model sees, or `{ error }` for a failure. */
    response: { output: string } | { error: string };
  };
}

/**
 * Turns {@linkcode runToolCalls} results into `functionResponse` parts: the text under `output`,
 * or under `error` for a failure, as the Gemini API asks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { geminiToolResults } from "@outpost/agent-tools/gemini";
 * const next = {
 *   role: "user",
 *   parts: geminiToolResults([{ id: "c1", name: "now", text: "…", isError: false }]),
 * };
 * assert.deepEqual(next.parts, [{ functionResponse: { id: "c1", name: "now", response: { output: "…" } } }]);
 * ```
 */
export function geminiToolResults(
  results: readonly ToolCallResult[],
): GeminiFunctionResponsePart[] {
  return results.map((r) => ({
    functionResponse: {
      ...(r.id.startsWith(MADE_UP_ID) ? {} : { id: r.id }),
      name: r.name,
      response: r.isError ? { error: r.text } : { output: r.text },
    },
  }));
}
