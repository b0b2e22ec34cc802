/**
 * The JSON Schemas of the bundled families' inputs, as `tool()` would convert them from their
 * zod schemas. `deno run -A tests/support/family_schemas.ts` writes them to
 * src/family_schemas.ts; tests/family_schemas_test.ts keeps that file equal to the conversion.
 *
 * @module
 */
import type * as z from "zod/v4/core";
import { webFetch } from "../../src/fetch/web_fetch.ts";
import { MemoryQuestionChannel } from "../../src/human/memory_question_channel.ts";
import { askHuman } from "../../src/human/ask_human.ts";
import { type InputJsonSchemas, toJsonSchemas } from "../../src/json_schema.ts";
import { webSearch } from "../../src/search/web_search.ts";
import { now } from "../../src/time/now.ts";
import type { Tool } from "../../src/tool.ts";

/** Each family's tool, by the key its schemas have in src/family_schemas.ts. */
export function familyTools(): Record<string, Tool> {
  const read = () => Promise.reject(new Error("not read"));
  return {
    web_fetch: webFetch({ read }),
    web_fetch_render: webFetch({ read, renders: true }),
    web_search: webSearch({ search: () => Promise.resolve([]) }),
    now,
    ask_human: askHuman(new MemoryQuestionChannel()),
  };
}

/** The conversion of each family's input. */
export function convertedSchemas(): Record<string, InputJsonSchemas> {
  return Object.fromEntries(
    Object.entries(familyTools()).map((
      [key, tool],
    ) => [key, toJsonSchemas(tool.inputSchema as unknown as z.$ZodObject)]),
  );
}

if (import.meta.main) {
  const path = new URL("../../src/family_schemas.ts", import.meta.url);
  const portables = Object.fromEntries(
    Object.entries(convertedSchemas()).map(([key, { portable }]) => [key, portable]),
  );
  await Deno.writeTextFile(
    path,
    `// The JSON Schemas of the bundled families' inputs, as \`tool()\` converts their zod schemas:
// given to \`presetTool\`, they keep zod's JSON Schema conversion out of a bundle of the families
// (the Worker). Written by \`deno run -A tests/support/family_schemas.ts\`;
// tests/family_schemas_test.ts keeps it equal to the conversion.
import type { ToolInputSchema } from "./json_schema.ts";

/**
 * Each family's portable input schema (\`strictOf\` gives the strict one); \`web_fetch_render\`
 * is web_fetch's with a reader that renders.
 */
export const FAMILY_SCHEMAS: Record<
  "web_fetch" | "web_fetch_render" | "web_search" | "now" | "ask_human",
  ToolInputSchema
> = ${JSON.stringify(portables)};
`,
  );
}
