import * as z from "zod/v4/core";

/**
 * A JSON Schema node, as plain data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { JsonSchema } from "@outpost/agent-tools";
 * import { now } from "@outpost/agent-tools/time";
 * const schema: JsonSchema = { type: "string", description: "A URL." };
 * const tz = (now.inputJsonSchema.properties as Record<string, JsonSchema>).tz;
 * assert.equal(tz.type, schema.type);
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
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * assert.deepEqual(now.parameters.required, ["tz"]);
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

/** A tool input's two JSON Schemas: see {@linkcode toJsonSchemas}. */
export interface InputJsonSchemas {
  strict: ToolParameters;
  portable: ToolInputSchema;
}

/**
 * A tool input's two JSON Schemas, from one conversion of the zod object schema: `strict`, the
 * {@linkcode ToolParameters} for OpenAI strict mode, and `portable`, the plain form most targets
 * take without warnings (MCP, Anthropic, the AI SDK, OpenAI outside strict mode), where optional
 * fields are left out of `required` instead of being made nullable, and a field that does accept
 * `null` says so with `anyOf` branches, never a `type` list. Throws an `Error` naming the field
 * for shapes strict mode cannot take: open-ended objects (records), tuples, recursion and values
 * with no JSON form (`z.any()`, dates).
 */
export function toJsonSchemas(schema: z.$ZodObject): InputJsonSchemas {
  // zod's conversion is most of a tool's set-up cost (a Worker pays it at each cold start):
  // done once, its result read twice, each reading on a copy of its own.
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return {
    strict: convertNode(raw, "", true) as ToolParameters,
    portable: convertNode(structuredClone(raw), "", false) as ToolInputSchema,
  };
}

/**
 * The JSON Schema of a tool's input as MCP, Anthropic, the AI SDK and OpenAI (outside strict
 * mode) take it: optional fields are simply not `required`, and no other keys are allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * assert.deepEqual(now.inputJsonSchema.required, []);
 * ```
 */
export interface ToolInputSchema extends JsonSchema {
  /** Always `"object"`. */
  type: "object";
  /** One schema per input field. */
  properties: Record<string, JsonSchema>;
  /** The fields the caller must send. */
  required: string[];
  /** Always `false`. */
  additionalProperties: false;
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

function convertNode(node: JsonSchema, path: string, strict: boolean): JsonSchema {
  const problem = unsupported(node);
  if (problem) {
    throw new Error(`input field \`${path || "(root)"}\` cannot be given to models: ${problem}.`);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || (strict && key === "default")) continue;
    if (strict && key === "format" && !STRICT_FORMATS.has(value as string)) continue;
    if (
      (key === "maximum" && value === Number.MAX_SAFE_INTEGER) ||
      (key === "minimum" && value === Number.MIN_SAFE_INTEGER)
    ) continue;
    out[key] = value;
  }
  // Strict mode refuses `default`; the model still hears of it.
  if (strict && "default" in node && node.default !== undefined) {
    const note = `Default: ${JSON.stringify(node.default)}.`;
    out.description = out.description ? `${out.description} ${note}` : note;
  }
  if (out.items && typeof out.items === "object") {
    out.items = convertNode(out.items as JsonSchema, `${path}[]`, strict);
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(out[key])) {
      out[key] = (out[key] as JsonSchema[]).map((member) => convertNode(member, path, strict));
    }
  }
  if (out.type === "object" && out.properties) {
    const properties = out.properties as Record<string, JsonSchema>;
    const required = new Set((node.required as string[] | undefined) ?? []);
    const converted: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(properties)) {
      const field = convertNode(property, path ? `${path}.${name}` : name, strict);
      converted[name] = !strict || required.has(name) ? field : nullable(field);
    }
    out.properties = converted;
    out.required = strict
      ? Object.keys(converted)
      : Object.keys(converted).filter((name) => required.has(name));
    out.additionalProperties = false;
  }
  return strict ? out : splitTypeList(out);
}

/**
 * `type: [x, "null"]` as `anyOf` branches of one type each: legal JSON Schema either way, but
 * clients that read `type` as a single string (and MCP Inspector's portability lint) take only
 * the branches. The annotations stay on the union; the constraints go with the non-null types.
 */
function splitTypeList(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.type)) return node;
  const { type, description, title, default: fallback, ...constraints } = node;
  const union: JsonSchema = {
    anyOf: (type as string[]).map((t) => t === "null" ? { type: t } : { type: t, ...constraints }),
  };
  if (description !== undefined) union.description = description;
  if (title !== undefined) union.title = title;
  if (fallback !== undefined) union.default = fallback;
  return union;
}
/** Lets an optional field be `null`, as strict mode requires of fields a model may omit. */
export function nullable(node: JsonSchema): JsonSchema {
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
