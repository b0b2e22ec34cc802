import assert from "node:assert/strict";
import { readEnv } from "../src/env.ts";

Deno.test("readEnv reads a set variable and yields undefined for a missing one", () => {
  Deno.env.set("OUTPOST_TEST_VALUE", "42");
  try {
    assert.equal(readEnv("OUTPOST_TEST_VALUE"), "42");
    assert.equal(readEnv("OUTPOST_SURELY_UNSET_VARIABLE"), undefined);
  } finally {
    Deno.env.delete("OUTPOST_TEST_VALUE");
  }
});

Deno.test("readEnv yields undefined without permission instead of throwing", {
  timeout: 60_000,
}, async () => {
  const code = `import { readEnv } from ${
    JSON.stringify(new URL("../src/env.ts", import.meta.url).href)
  };
console.log(JSON.stringify(readEnv("HOME") ?? null));`;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(script, code);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", "--allow-read", script],
    stdout: "piped",
    stderr: "piped",
  });
  const { code: status, stdout } = await child.output().finally(() => Deno.remove(script));
  assert.equal(status, 0);
  assert.equal(new TextDecoder().decode(stdout).trim(), "null");
});
