import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

/** A JSDoc example either asserts what it shows or says why it cannot (a live key, a browser…). */
const ASSERTS = /\bassert(?:\.\w+)?\s*\(/;
const EXEMPT = /^\s*\/\/ Not asserted: \S/m;

interface Example {
  symbol: string;
  where: string;
  code: string;
}

function exampleProblem(code: string): string | undefined {
  if (ASSERTS.test(code) || EXEMPT.test(code)) return undefined;
  return "neither asserts nor says `// Not asserted: <why>`";
}

async function publicExamples(): Promise<Example[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const entries = Object.values(config.exports as Record<string, string>);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lock=dev.lock", "--json", ...entries],
    cwd: root,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(output.success, "deno doc --json ran");
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const examples = new Map<string, Example>();
  // Walks the whole tree, so members at any depth carry their examples too (a class's methods, an
  // interface's fields, a type literal's members, a namespace's elements).
  // deno-lint-ignore no-explicit-any
  const visit = (value: any, symbol: string, location: any) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, symbol, location);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const name = typeof value.name === "string" ? value.name : undefined;
    const here = name && name !== symbol ? (symbol ? `${symbol}.${name}` : name) : symbol;
    const at = value.location ?? location;
    for (const tag of value.jsDoc?.tags ?? []) {
      if (tag.kind !== "example") continue;
      const where = `${String(at?.filename).slice(root.href.length)}:${at?.line}`;
      examples.set(`${where} ${tag.doc}`, { symbol: here, where, code: tag.doc ?? "" });
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== "jsDoc" && key !== "location") visit(child, here, at);
    }
  };
  for (const [file, node] of Object.entries(doc.nodes)) {
    // deno-lint-ignore no-explicit-any
    const { module_doc: moduleDoc, symbols = [] } = node as any;
    visit({ jsDoc: moduleDoc }, file.slice(root.href.length), { filename: file, line: 1 });
    visit(symbols, "", undefined);
  }
  return [...examples.values()];
}

Deno.test("every public @example asserts what it shows, or says why it cannot", {
  timeout: 120_000,
}, async () => {
  const examples = await publicExamples();
  assert.ok(examples.length > 50, `found the examples (${examples.length})`);
  const offenders = examples
    .map((example) => ({ ...example, problem: exampleProblem(example.code) }))
    .filter((example) => example.problem)
    .map(({ symbol, where, problem }) => `${where} ${symbol}: ${problem}`);
  assert.deepEqual(offenders, []);
});

Deno.test("the example check tells an asserting example from one that only shows", () => {
  assert.equal(exampleProblem("```ts\nassert.equal(add(1, 2), 3);\n```"), undefined);
  assert.equal(exampleProblem("```ts\nassert(ok);\n```"), undefined);
  assert.equal(
    exampleProblem("```ts\n// Not asserted: needs a live Tavily key.\nawait search();\n```"),
    undefined,
  );
  assert.ok(exampleProblem("```ts\nconst tool = now;\nconsole.log(tool.name);\n```"));
  assert.ok(exampleProblem("```ts\n// assert nothing here\nrun();\n```"));
  assert.ok(exampleProblem("```ts\n// Not asserted:\nrun();\n```"));
});
