import type { JsonSchema } from "../json_schema.ts";
import { SetupError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import type { GeminiSchema, GeminiTool, GeminiToolsOptions, GeminiTypeName } from "./schema.ts";

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
