import assert from "node:assert/strict";
import { VERSION } from "../mod.ts";
import { portableModules, webOnlyCheck } from "./support/web_only_check.ts";

const root = new URL("../", import.meta.url);

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) yield url;
  }
}

// The type check below refuses runtime globals by name; this scan keeps what it cannot see:
// imports of Node's modules (Deno resolves and types them, and with them Node's globals for the
// whole program) and a global reached through a cast of `globalThis`, which only src/env.ts may do.
const RUNTIME_SPECIFIC = [
  { what: "a node: import", pattern: /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/ },
  { what: "a require() call", pattern: /\brequire\s*\(/ },
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
    'const fs = require("fs");',
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

const CHECK_TIMEOUT = 180_000;

Deno.test("mod.ts and src/ type-check against web-only libs", {
  timeout: CHECK_TIMEOUT,
}, async () => {
  const files = await portableModules();
  assert.ok(files.length > 5, "the walk found the sources");
  const { ok, output } = await webOnlyCheck(files);
  assert.ok(ok, output);
});

/**
 * Runtime globals that must not compile under src/, each planted in a module of its own (in one
 * module, Deno reports only some of them). `require("fs")` is the scan's: it brings Node's types.
 */
const PLANTED = [
  "const D = Deno;",
  "const env = process.env;",
  'const bytes = Buffer.from("a");',
  "const deno = globalThis.Deno;",
  'const file = Bun.file("x");',
  "const viaSelf = self.Deno;",
  "const href = window.location.href;",
  "const here = __dirname;",
];

async function copyTree(from: URL, to: URL): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const name = entry.name + (entry.isDirectory ? "/" : "");
    if (entry.isDirectory) await copyTree(new URL(name, from), new URL(name, to));
    else await Deno.copyFile(new URL(name, from), new URL(name, to));
  }
}

Deno.test("the web-only type check refuses every runtime global, where the scan misses some", {
  timeout: CHECK_TIMEOUT,
}, async () => {
  const scanned = PLANTED.filter((line) =>
    RUNTIME_SPECIFIC.some(({ pattern }) => pattern.test(line))
  );
  // The scan's blind spot, and the reason for the type check: a bare `Deno` passes it.
  assert.ok(!scanned.includes("const D = Deno;"));
  const temp = await Deno.makeTempDir({ prefix: "outpost-planted-" });
  try {
    const copy = new URL(`file://${temp}/`);
    await copyTree(new URL("src/", root), new URL("src/", copy));
    await Deno.copyFile(new URL("mod.ts", root), new URL("mod.ts", copy));
    for (const [i, line] of PLANTED.entries()) {
      await Deno.writeTextFile(new URL(`src/planted_${i}.ts`, copy), `${line}\nexport {};\n`);
    }
    const { ok, output } = await webOnlyCheck(await portableModules(copy), copy);
    assert.equal(ok, false, output);
    const refused = PLANTED.filter((_, i) => output.includes(`src/planted_${i}.ts:1:`));
    assert.deepEqual(refused, PLANTED, output);
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
});
