import * as z from "zod";

/**
 * A JSON Schema node, as plain data.
 *
 * @example
 * ```ts
 * import type { JsonSchema } from "@outpost/agent-tools";
 * const schema: JsonSchema = { type: "string", description: "A URL." };
 * ```
 */
export interface JsonSchema {
  /** Any JSON Schema keyword. */
  [keyword: string]: unknown;
}

/**
 * The JSON Schema of a tool's input: an object whose properties are all listed in `required`
 * (optional ones accept `null`) and that admits no other keys, as OpenAI strict mode demands
 * and Anthropic accepts.
 *
 * @example
 * ```ts
 * import { now } from "@outpost/agent-tools";
 * console.log(now.parameters.required); // ["tz"]
 * ```
 */
export interface ToolParameters extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
  /** One schema per input field. */
  properties: Record<string, JsonSchema>;
  /** Every property name. */
  required: string[];
  /** Always `false`. */
  additionalProperties: false;
}

/** Formats OpenAI strict mode accepts; others are dropped (validation still applies them). */
const STRICT_FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/**
 * Converts a zod object schema to {@linkcode ToolParameters}. Throws an `Error` naming the field
 * for shapes strict mode cannot take: open-ended objects (records), tuples, recursion and values
 * with no JSON form (`z.any()`, dates).
 */
export function toStrictJsonSchema(schema: z.ZodObject): ToolParameters {
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return strictNode(raw, "") as unknown as ToolParameters;
}

function unsupported(node: JsonSchema): string | undefined {
  if ("$ref" in node) return "it is recursive";
  if ("prefixItems" in node) return "tuples are not supported; use an object";
  if ("propertyNames" in node || "patternProperties" in node) {
    return "objects with free-form keys (records) are not supported; name the keys";
  }
  if (node.type === "object" && node.additionalProperties !== false && !node.properties) {
    return "objects with free-form keys (records) are not supported; name the keys";
  }
  const keywords = Object.keys(node).filter((key) => key !== "description");
  if (keywords.length === 0) return "it has no JSON form (any, unknown, dates and the like)";
  return undefined;
}

function strictNode(node: JsonSchema, path: string): JsonSchema {
  const problem = unsupported(node);
  if (problem) {
    throw new Error(`input field \`${path || "(root)"}\` cannot be given to models: ${problem}.`);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "default") continue;
    if (key === "format" && !STRICT_FORMATS.has(value as string)) continue;
    if (
      (key === "maximum" && value === Number.MAX_SAFE_INTEGER) ||
      (key === "minimum" && value === Number.MIN_SAFE_INTEGER)
    ) continue;
    out[key] = value;
  }
  if ("default" in node && node.default !== undefined) {
    const note = `Default: ${JSON.stringify(node.default)}.`;
    out.description = out.description ? `${out.description} ${note}` : note;
  }
  if (out.items && typeof out.items === "object") {
    out.items = strictNode(out.items as JsonSchema, `${path}[]`);
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(out[key])) {
      out[key] = (out[key] as JsonSchema[]).map((member) => strictNode(member, path));
    }
  }
  if (out.type === "object" && out.properties) {
    const properties = out.properties as Record<string, JsonSchema>;
    const required = new Set((node.required as string[] | undefined) ?? []);
    const strictProperties: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(properties)) {
      const converted = strictNode(property, path ? `${path}.${name}` : name);
      strictProperties[name] = required.has(name) ? converted : nullable(converted);
    }
    out.properties = strictProperties;
    out.required = Object.keys(strictProperties);
    out.additionalProperties = false;
  }
  return out;
}

/** Lets an optional field be `null`, as strict mode requires of fields a model may omit. */
function nullable(node: JsonSchema): JsonSchema {
  const type = node.type;
  // A type list would not admit null past `enum` or `const`; those need a union.
  const restricted = "enum" in node || "const" in node;
  if (typeof type === "string" && !restricted) return { ...node, type: [type, "null"] };
  if (Array.isArray(type) && !restricted) {
    return type.includes("null") ? node : { ...node, type: [...type, "null"] };
  }
  const { description, ...rest } = node;
  const union: JsonSchema = { anyOf: [rest, { type: "null" }] };
  if (description !== undefined) union.description = description;
  return union;
}
