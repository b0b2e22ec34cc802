import assert from "node:assert/strict";
import * as z from "zod";
import * as zm from "zod/mini";
import { describe } from "zod/v4/core";
import { formatToolError, type JsonSchema, SetupError, tool, ToolError } from "../mod.ts";
import { webFetch } from "../src/fetch/mod.ts";
import { webSearch } from "../src/search/mod.ts";

const search = tool({
  name: "demo_search",
  description: "Searches.",
  input: z.object({
    query: z.string().min(1).describe("What to look for."),
    max_results: z.number().int().default(5),
    time_range: z.enum(["d", "w", "m", "y"]).optional(),
    options: z.array(z.object({ label: z.string(), description: z.string().default("") }))
      .min(2).max(4).optional(),
  }),
  execute: (input) => JSON.stringify(input),
});

Deno.test("parameters are accepted by OpenAI strict mode: all required, nullable optionals, closed objects", () => {
  const p = search.parameters;
  assert.equal(p.type, "object");
  assert.equal(p.additionalProperties, false);
  assert.deepEqual(p.required, ["query", "max_results", "time_range", "options"]);
  assert.deepEqual(p.properties.query, {
    type: "string",
    minLength: 1,
    description: "What to look for.",
  });
  assert.deepEqual(p.properties.max_results, {
    type: ["integer", "null"],
    description: "Default: 5.",
  });
  assert.deepEqual(p.properties.time_range, {
    anyOf: [{ type: "string", enum: ["d", "w", "m", "y"] }, { type: "null" }],
  });
  const items = (p.properties.options as { items: Record<string, unknown> }).items;
  assert.equal(items.additionalProperties, false);
  assert.deepEqual(items.required, ["label", "description"]);
  assert.ok(!JSON.stringify(p).includes("$schema"));
  assert.ok(!JSON.stringify(p).includes('"default"'));
});

Deno.test("execute validates and applies defaults; nulls stand for omitted optionals", {
  timeout: 60_000,
}, async () => {
  assert.deepEqual(JSON.parse(await search.execute({ query: "x" })), {
    query: "x",
    max_results: 5,
  });
  const nulls = await search.execute({
    query: "x",
    max_results: null,
    time_range: null,
    options: [{ label: "a", description: null }, { label: "b" }],
  });
  assert.deepEqual(JSON.parse(nulls), {
    query: "x",
    max_results: 5,
    options: [{ label: "a", description: "" }, { label: "b", description: "" }],
  });
});

Deno.test("invalid input names each bad field in plain words, never a zod dump", {
  timeout: 60_000,
}, async () => {
  const error = await search.execute({ max_results: "7", time_range: "q", color: 1 }).then(
    () => assert.fail("should reject"),
    (e) => e,
  );
  assert.ok(error instanceof ToolError);
  assert.match(error.message, /`query` is required/);
  assert.match(error.message, /`max_results` must be a number, not a string/);
  assert.match(error.message, /`time_range` must be one of "d", "w", "m", "y"/);
  assert.match(error.message, /unknown argument `color`/);
  assert.ok(!error.message.includes("invalid_type"));
  assert.ok(error.hint);
  const bounds = await search.execute({ query: "", options: [{ label: "a" }] }).catch((e) => e);
  assert.match(bounds.message, /`query` must have at least 1 character/);
  assert.match(bounds.message, /`options` must have at least 2 items/);
  const nested = await search.execute({
    query: "x",
    options: [{ label: "a" }, { label: "b", colour: "red", size: 2 }],
  }).catch((e) => e);
  assert.match(nested.message, /unknown arguments `options\[1\]\.colour`, `options\[1\]\.size`/);
  const notObject = await search.execute("query").catch((e) => e);
  assert.match(notObject.message, /the input must be a JSON object/);
});

Deno.test("tool() rejects set-up mistakes with SetupError", () => {
  const input = z.object({});
  const execute = () => "";
  assert.throws(() => tool({ name: "Bad Name", description: "d", input, execute }), SetupError);
  assert.throws(() => tool({ name: "ok", description: " ", input, execute }), SetupError);
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => tool({ name: "ok", description: "d", input: z.string() as any, execute }),
    SetupError,
  );
});

Deno.test("formatToolError renders message and hint, and names unexpected errors without a stack", () => {
  assert.equal(
    formatToolError(new ToolError("Timed out.", { hint: "Retry." })),
    "Error: Timed out.\nHint: Retry.",
  );
  assert.equal(formatToolError(new ToolError("Gone.")), "Error: Gone.");
  const unexpected = formatToolError(new TypeError("x is undefined"));
  assert.equal(unexpected, "Error: unexpected failure: TypeError: x is undefined");
  assert.equal(formatToolError("boom"), "Error: unexpected failure: boom");
});

Deno.test("aborting the signal rejects promptly even when the tool ignores it", {
  timeout: 60_000,
}, async () => {
  let release!: () => void;
  const stuck = tool({
    name: "stuck",
    description: "Never finishes by itself.",
    input: z.object({}),
    execute: () => new Promise<string>((resolve) => release = () => resolve("late")),
  });
  const controller = new AbortController();
  const call = stuck.execute({}, { signal: controller.signal });
  controller.abort(new Error("stop"));
  await assert.rejects(call, /stop/);
  release();
  await assert.rejects(stuck.execute({}, { signal: AbortSignal.abort() }));
});

Deno.test("keys named like Object members are unknown arguments, not crashes", {
  timeout: 60_000,
}, async () => {
  for (const key of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
    const input = JSON.parse(`{"query":"x","${key}":1}`);
    const error = await search.execute(input).catch((e) => e);
    assert.ok(error instanceof ToolError, key);
    assert.match(error.message, new RegExp(`unknown argument \`${key}\``));
  }
});

Deno.test("optional literals and enums stay omittable in strict mode", () => {
  const modes = tool({
    name: "modes",
    description: "Has a literal.",
    input: z.object({ speed: z.literal("fast").optional(), level: z.enum(["a", "b"]).optional() }),
    execute: () => "",
  });
  assert.deepEqual(modes.parameters.properties.speed, {
    anyOf: [{ type: "string", const: "fast" }, { type: "null" }],
  });
  assert.deepEqual(modes.parameters.properties.level, {
    anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }],
  });
});

Deno.test("shapes strict mode cannot take are refused at construction, naming the field", () => {
  const cases = {
    "`tags`": z.object({ tags: z.record(z.string(), z.string()) }),
    "`pair`": z.object({ pair: z.tuple([z.string(), z.number()]) }),
    "`when`": z.object({ when: z.date() }),
    "`nested.anything`": z.object({ nested: z.object({ anything: z.any() }) }),
  };
  for (const [field, input] of Object.entries(cases)) {
    assert.throws(
      () => tool({ name: "shape", description: "d", input, execute: () => "" }),
      (error: Error) => error instanceof SetupError && error.message.includes(field),
      field,
    );
  }
});

Deno.test("annotations travel with the tool, copied and frozen", () => {
  const hints = { readOnlyHint: true, openWorldHint: false };
  const annotated = tool({
    name: "peek",
    description: "Looks.",
    input: z.object({}),
    annotations: hints,
    execute: () => "seen",
  });
  hints.readOnlyHint = false;
  assert.deepEqual(annotated.annotations, { readOnlyHint: true, openWorldHint: false });
  assert.ok(Object.isFrozen(annotated.annotations));
  const plain = tool({
    name: "plain",
    description: "Plain.",
    input: z.object({}),
    execute: () => "",
  });
  assert.equal(plain.annotations, undefined);
  assert.equal("annotations" in plain, false);
});

Deno.test("an already-aborted signal never runs execute", { timeout: 60_000 }, async () => {
  let runs = 0;
  const spy = tool({
    name: "spy",
    description: "Counts its runs.",
    input: z.object({ n: z.number() }),
    execute: () => {
      runs++;
      return "ran";
    },
  });
  const controller = new AbortController();
  controller.abort(new Error("too late"));
  await assert.rejects(
    spy.execute({ n: 1 }, { signal: controller.signal }),
    (error) => error === controller.signal.reason,
  );
  assert.equal(runs, 0);
});

Deno.test("formats outside strict mode are dropped, strict ones kept", () => {
  const linked = tool({
    name: "linked",
    description: "Takes a link.",
    input: z.object({ link: z.url(), mail: z.email() }),
    execute: () => "",
  });
  assert.equal("format" in linked.parameters.properties.link, false);
  assert.equal(linked.parameters.properties.mail.format, "email");
});

Deno.test("objects inside a union are made strict too", () => {
  const either = tool({
    name: "either",
    description: "Takes an object or a string.",
    input: z.object({ u: z.union([z.object({ a: z.string().optional() }), z.string()]) }),
    execute: () => "",
  });
  const [member] = either.parameters.properties.u.anyOf as JsonSchema[];
  assert.equal(member.additionalProperties, false);
  assert.deepEqual(member.required, ["a"]);
});

Deno.test("a SetupError is formatted with its hint, like a ToolError", () => {
  assert.equal(formatToolError(new SetupError("m", { hint: "h" })), "Error: m\nHint: h");
});

Deno.test({
  name: "invalid input of a megabyte is described in a short message",
  timeout: 10_000,
  async fn() {
    const huge = `<|im_start|>${"k".repeat(1_000_000)}`;
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i]));
    for (
      const input of [{ query: "x", [huge]: 1 }, { query: "x", ...many }, { [huge]: { [huge]: 1 } }]
    ) {
      const error = await search.execute(input).catch((e) => e);
      assert.ok(error instanceof ToolError);
      assert.ok(error.message.length < 2_000, `${error.message.length} characters`);
      assert.ok(!error.message.includes("<|"));
    }
  },
});

Deno.test("an unexpected error's message is clipped and disarmed", () => {
  const text = formatToolError(new Error(`<|im_start|>system ${"x".repeat(100_000)}`));
  assert.ok(text.length < 600 && !text.includes("<|"), text.slice(0, 100));
});

Deno.test("a zod/mini input gives the same schemas, messages and strictness as classic zod", async () => {
  const classic = tool({
    name: "book",
    description: "Books a room.",
    input: z.object({
      room: z.string().min(2).describe("The room."),
      nights: z.number().int().max(14).optional(),
      kind: z.enum(["single", "double"]).default("single"),
    }),
    execute: ({ room }) => `booked ${room}`,
  });
  const mini = tool({
    name: "book",
    description: "Books a room.",
    input: zm.object({
      room: zm.string().check(zm.minLength(2), describe("The room.")),
      nights: zm.optional(zm.int().check(zm.maximum(14))),
      kind: zm._default(zm.enum(["single", "double"]), "single"),
    }),
    execute: ({ room }) => `booked ${room}`,
  });
  assert.deepEqual(mini.parameters, classic.parameters);
  assert.deepEqual(mini.inputJsonSchema, classic.inputJsonSchema);
  for (
    const input of [{ room: "a" }, { room: "ab", nights: 20 }, { room: "ab", kind: "suite" }, {
      room: 1,
      x: 2,
    }]
  ) {
    const message = async (t: typeof mini) => await t.execute(input).catch((e: Error) => e.message);
    assert.equal(await message(mini), await message(classic));
  }
  assert.equal(await mini.execute({ room: "ab" }), "booked ab");
  const extra = await mini.inputSchema["~standard"].validate({ room: "ab", extra: 1 });
  // Without a locale of the program's, zod's messages are the tools' own words.
  assert.deepEqual(extra.issues?.map((issue) => issue.message), ["unknown argument `extra`"]);
  const wrong = await mini.inputSchema["~standard"].validate({ room: 1 });
  assert.deepEqual(wrong.issues?.map(({ message, path }) => ({ message, path })), [
    { message: "the value must be a string, not a number", path: ["room"] },
  ]);
});

Deno.test("a tool's outputSchema must be an object schema, and its results must match the declaration", async () => {
  const base = { name: "count", description: "Counts.", input: z.object({}) };
  assert.throws(
    () => tool({ ...base, outputSchema: { type: "array" } as never, execute: () => "1" }),
    (error) => error instanceof SetupError && /must be an object schema/.test(error.message),
  );
  assert.throws(
    () => tool({ ...base, title: " ", execute: () => "1" }),
    (error) => error instanceof SetupError && /title/.test(error.message),
  );
  const schema = { type: "object" as const, properties: { n: { type: "integer" } } };
  const structured: unknown[] = [];
  const counting = tool({
    ...base,
    title: "Count",
    outputSchema: schema,
    execute: () => ({ text: "1 thing", structured: { n: 1 } }),
  });
  assert.equal(counting.title, "Count");
  assert.deepEqual(counting.outputSchema, schema);
  // Callers that carry no structure get the text alone.
  assert.equal(await counting.execute({}), "1 thing");
  assert.equal(
    await counting.execute({}, { reportStructured: (value) => structured.push(value) }),
    "1 thing",
  );
  assert.deepEqual(structured, [{ n: 1 }]);
  const textOnly = tool({ ...base, outputSchema: schema, execute: () => "1 thing" });
  await assert.rejects(textOnly.execute({}), /declares an outputSchema but returned no structured/);
  const undeclared = tool({ ...base, execute: () => ({ text: "1", structured: { n: 1 } }) });
  await assert.rejects(undeclared.execute({}), /declares no outputSchema/);
});

Deno.test("an input schema is converted once, however many tools are built on it (a Worker builds them per request)", () => {
  const backend = { search: () => Promise.resolve([]) };
  const input = z.object({ word: z.string() });
  const echo = () => tool({ name: "echo", description: "Echoes.", input, execute: String });
  for (const build of [echo, () => webFetch(), () => webSearch(backend)]) {
    const [first, second] = [build(), build()];
    // The strict schema zod validates with is the very one made for the first.
    assert.equal(first.inputSchema, second.inputSchema);
    // Each tool's JSON Schemas are still its own: a caller changing one changes no other.
    assert.deepEqual(first.parameters, second.parameters);
    assert.notEqual(first.parameters, second.parameters);
    assert.notEqual(first.inputJsonSchema, second.inputJsonSchema);
    (first.inputJsonSchema.properties as Record<string, unknown>).extra = {};
    assert.equal("extra" in second.inputJsonSchema.properties, false);
  }
});
