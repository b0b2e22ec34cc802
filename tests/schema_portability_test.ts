import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type * as Gemini from "@google/genai";
import { Type } from "@google/genai";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { asSchema } from "ai";
import { Ajv } from "ajv";
import * as z from "zod";
import { askHuman, type JsonSchema, now, tool, webFetch, webSearch } from "../mod.ts";
import { toAISDKTools } from "../src/ai_sdk/mod.ts";
import { toAnthropicTools } from "../src/anthropic/mod.ts";
import { toGeminiTools } from "../src/gemini/mod.ts";
import { MemoryQuestionChannel, requireApproval } from "../src/human/mod.ts";
import { toOpenAIChatTools } from "../src/openai/mod.ts";

// Every built-in tool, and one with every optional shape a user tool may have.
const channel = new MemoryQuestionChannel();
const shapes = tool({
  name: "shapes",
  description: "Takes every optional shape.",
  input: z.object({
    query: z.string().min(1),
    limit: z.number().int().default(5),
    range: z.enum(["d", "w"]).optional(),
    flags: z.array(z.boolean()).optional(),
    nested: z.object({ label: z.string(), note: z.string().optional() }).optional(),
    maybe: z.string().nullable(),
  }),
  execute: () => "",
});
const tools = [
  webFetch(),
  webSearch({ search: () => Promise.resolve([]) }),
  now,
  askHuman(channel),
  requireApproval(shapes, channel),
];

/** The warnings a default Ajv logs while compiling `schema`. */
function ajvWarnings(schema: JsonSchema): string[] {
  const warnings: string[] = [];
  const ajv = new Ajv({
    logger: { log() {}, warn: (...args: unknown[]) => warnings.push(args.join(" ")), error() {} },
  });
  ajv.compile(schema);
  return warnings;
}

/** Every schema node, depth first. */
function* nodes(schema: JsonSchema): Generator<JsonSchema> {
  yield schema;
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === "object") yield* nodes(item);
    } else if (value && typeof value === "object") yield* nodes(value as JsonSchema);
  }
}

/**
 * What MCP Inspector's schema-portability lint (`--cli --method tools/list --strict`, 2.12)
 * reports: type lists, schemas that constrain nothing, boolean schemas and remote `$ref`s.
 */
function inspectorFindings(schema: JsonSchema): string[] {
  const findings: string[] = [];
  for (const node of nodes(schema)) {
    if (Array.isArray(node.type)) findings.push(`type-union ${JSON.stringify(node.type)}`);
    const keywords = Object.keys(node).filter((k) =>
      !["description", "title", "default"].includes(k)
    );
    if (keywords.length === 0) findings.push("untyped-schema");
    if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) findings.push("remote-ref");
  }
  for (const value of Object.values(schema.properties ?? {})) {
    if (typeof value === "boolean") findings.push("boolean-schema");
  }
  return findings;
}

Deno.test("MCP, Anthropic and the AI SDK get schemas Ajv and MCP Inspector's lint take without a warning", async () => {
  const listed = ListToolsResultSchema.parse({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputJsonSchema,
    })),
  });
  assert.equal(listed.tools.length, tools.length);
  for (const t of tools) {
    assert.deepEqual(ajvWarnings(t.inputJsonSchema), [], t.name);
    assert.deepEqual(inspectorFindings(t.inputJsonSchema), [], t.name);
    assert.deepEqual(
      await asSchema(toAISDKTools([t])[t.name].inputSchema).jsonSchema,
      t.inputJsonSchema,
    );
  }
  const anthropic: Anthropic.Messages.Tool[] = toAnthropicTools(tools);
  assert.deepEqual(anthropic.map((t) => t.input_schema), tools.map((t) => t.inputJsonSchema));
  // The strict form is what made MCP Inspector warn: type lists for optional fields.
  assert.deepEqual(inspectorFindings(shapes.parameters).length, 5);
});

Deno.test("the plain schema requires exactly the fields a caller must send", () => {
  assert.deepEqual(shapes.inputJsonSchema.required, ["query", "maybe"]);
  assert.deepEqual(shapes.inputJsonSchema.properties.maybe, {
    anyOf: [{ type: "string" }, { type: "null" }],
  });
  const bounded = tool({
    name: "bounded",
    description: "Nullable with constraints.",
    input: z.object({ n: z.number().int().min(1).nullable().describe("A count.") }),
    execute: () => "",
  });
  assert.deepEqual(bounded.inputJsonSchema.properties.n, {
    anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }],
    description: "A count.",
  });
  assert.deepEqual(shapes.inputJsonSchema.properties.limit, { type: "integer", default: 5 });
  const nested = shapes.inputJsonSchema.properties.nested as JsonSchema;
  assert.deepEqual(nested.required, ["label"]);
  assert.equal(nested.additionalProperties, false);
});

Deno.test("OpenAI strict mode gets every object closed with all fields required, and no default", () => {
  for (
    const { function: f, strict } of toOpenAIChatTools(tools).map((t) => ({
      ...t,
      strict: t.function.strict,
    }))
  ) {
    assert.equal(strict, true);
    for (const node of nodes(f.parameters)) {
      assert.ok(!("default" in node), f.name);
      if (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))) {
        assert.equal(node.additionalProperties, false, f.name);
        assert.deepEqual(node.required, Object.keys(node.properties as object), f.name);
      }
    }
    // Ajv takes it too, once told that type lists are meant.
    new Ajv({ allowUnionTypes: true }).compile(f.parameters);
  }
});

Deno.test("Gemini gets every built-in tool in its dialect, as @google/genai's own types", () => {
  const declarations: Gemini.Tool[] = toGeminiTools(tools, { types: Type });
  const values = new Set<string>(Object.values(Type));
  for (const declaration of declarations[0].functionDeclarations!) {
    for (const node of nodes(declaration.parameters as JsonSchema)) {
      if (node.type !== undefined) {
        assert.ok(values.has(node.type as string), String(declaration.name));
      }
      assert.ok(!("additionalProperties" in node) && !("const" in node), String(declaration.name));
    }
  }
  channel.close();
});
