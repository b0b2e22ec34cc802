import assert from "node:assert/strict";
import { convertedSchemas, familyTools } from "./support/family_schemas.ts";
import { FAMILY_SCHEMAS } from "../src/family_schemas.ts";

Deno.test("the families' preset JSON Schemas are what tool() converts their inputs to", () => {
  // Stale after a change to a family's input: `deno run -A tests/support/family_schemas.ts`.
  const converted = convertedSchemas();
  for (const [key, tool] of Object.entries(familyTools())) {
    const portable = FAMILY_SCHEMAS[key as keyof typeof FAMILY_SCHEMAS];
    assert.deepEqual(portable, converted[key].portable, key);
    // The strict form is derived from the portable one, as the conversion makes it.
    assert.deepEqual(
      { strict: tool.parameters, portable: tool.inputJsonSchema },
      converted[key],
      key,
    );
    // Each tool has copies of its own: changing one changes no other tool.
    assert.notEqual(tool.inputJsonSchema, portable);
  }
});
