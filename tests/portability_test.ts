import assert from "node:assert/strict";
import { VERSION } from "../mod.ts";

const root = new URL("../", import.meta.url);

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) yield url;
  }
}

const RUNTIME_SPECIFIC = [
  { what: "a node: import", pattern: /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/ },
  { what: "the Deno global", pattern: /\bDeno\s*[.?[]/ },
  { what: "the process global", pattern: /\bprocess\s*[.?[]/ },
  { what: "the Bun global", pattern: /\bBun\s*[.?[]/ },
];

/** Documentation may name `Deno.resolveDns`; only code counts. */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^[ \t]*\/\/.*$/gm, "");
}

Deno.test("src/ stays portable: no node: imports and no runtime globals outside src/env.ts", {
  timeout: 60_000,
}, async () => {
  const offenders: string[] = [];
  let scanned = 0;
  for await (const file of sourceFiles(new URL("src/", root))) {
    scanned++;
    const path = file.pathname.slice(root.pathname.length);
    if (path === "src/env.ts") continue;
    const code = withoutComments(await Deno.readTextFile(file));
    for (const { what, pattern } of RUNTIME_SPECIFIC) {
      if (pattern.test(code)) offenders.push(`${path}: ${what}`);
    }
  }
  assert.ok(scanned > 5, "the scan found the sources");
  assert.deepEqual(offenders, []);
});

Deno.test("the scan catches what it is meant to catch", () => {
  const samples = [
    'import { readFile } from "node:fs";',
    "const x = Deno.env.get('A');",
    "globalThis.process?.env.A",
    "Bun.file('x')",
    "/** docs */ const dns = Deno.resolveDns;",
  ];
  for (const sample of samples) {
    assert.ok(
      RUNTIME_SPECIFIC.some(({ pattern }) => pattern.test(withoutComments(sample))),
      sample,
    );
  }
  assert.equal(withoutComments("/** Uses `Deno.resolveDns`. */\n// Deno.env\nx();"), "\n\nx();");
});

Deno.test("VERSION matches deno.json", { timeout: 60_000 }, async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  assert.equal(VERSION, config.version);
});
