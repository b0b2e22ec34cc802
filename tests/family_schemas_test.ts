import assert from "node:assert/strict";
import { convertedSchemas, familyTools } from "./support/family_schemas.ts";
import { FAMILY_SCHEMAS } from "../src/family_schemas.ts";
import type { InputJsonSchemas } from "../src/json_schema.ts";

Deno.test("the families' preset JSON Schemas are what tool() converts their inputs to", () => {
  // Stale after a change to a family's input: `deno run -A tests/support/family_schemas.ts`.
  assert.deepEqual(FAMILY_SCHEMAS, convertedSchemas());
  for (const [key, tool] of Object.entries(familyTools())) {
    const preset: InputJsonSchemas = FAMILY_SCHEMAS[key as keyof typeof FAMILY_SCHEMAS];
    assert.deepEqual({ strict: tool.parameters, portable: tool.inputJsonSchema }, preset, key);
    // Each tool has copies of its own: changing one changes no other tool.
    assert.notEqual(tool.parameters, preset.strict);
  }
});
