import {
  type JsonSchema,
  nullable,
  type ToolInputSchema,
  type ToolParameters,
} from "./json_schema.ts";

/**
 * The strict form of a portable input schema, as `toJsonSchemas` makes it: every field required,
 * the optional ones nullable, a default said in the description (strict mode refuses the
 * keyword). Enough for the shapes the bundled families use, which tests/family_schemas_test.ts
 * holds equal to the conversion: so the Worker carries each family's schema once.
 */
export function strictOf(schema: ToolInputSchema): ToolParameters {
  return strictNode(schema) as ToolParameters;
}

function strictNode(node: JsonSchema): JsonSchema {
  const { default: fallback, ...out } = node;
  if (fallback !== undefined) {
    const note = `Default: ${JSON.stringify(fallback)}.`;
    out.description = out.description ? `${out.description} ${note}` : note;
  }
  if (out.items) out.items = strictNode(out.items as JsonSchema);
  const properties = out.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    const required = new Set(out.required as string[]);
    const strict: Record<string, JsonSchema> = {};
    for (const name in properties) {
      const field = strictNode(properties[name]);
      strict[name] = required.has(name) ? field : nullable(field);
    }
    out.properties = strict;
    out.required = Object.keys(strict);
  }
  return out;
}
