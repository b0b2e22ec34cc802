import assert from "node:assert/strict";
import * as z from "zod";
import {
  formatToolError,
  InvalidInputError,
  OutpostError,
  runToolCalls,
  SetupError,
  tool,
  ToolError,
} from "../mod.ts";
import { bundle } from "./support/bundle.ts";

/** A second copy of the package, as two versions in one dependency graph give a program. */
async function secondCopy(): Promise<typeof import("../mod.ts")> {
  const { code } = await bundle("mod.ts", { format: "esm", minify: true });
  const path = await Deno.makeTempFile({ suffix: ".mjs" });
  await Deno.writeTextFile(path, code);
  try {
    return await import(`file://${path}`);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("errors from a second copy of the package keep their identity, hint and code", async () => {
  const other = await secondCopy();
  assert.notEqual(other.ToolError, ToolError);
  const failing = other.tool({
    name: "flaky",
    description: "Fails politely.",
    input: z.object({}),
    execute: () => {
      throw new other.ToolError("Slow down.", {
        hint: "Wait a minute.",
        code: "rate_limited",
        retryAfterMs: 60_000,
        status: 429,
      });
    },
  });
  const [result] = await runToolCalls([failing], [{ id: "c1", name: "flaky", input: {} }]);
  assert.deepEqual(result, {
    id: "c1",
    name: "flaky",
    text: "Error: Slow down.\nHint: Wait a minute.",
    isError: true,
  });
  const thrown = new other.ToolError("Slow down.", { code: "rate_limited", retryAfterMs: 5 });
  assert.ok(thrown instanceof ToolError && ToolError.isInstance(thrown));
  assert.equal(thrown.code, "rate_limited");
  assert.ok(new other.InvalidInputError("Bad.") instanceof ToolError);
  assert.ok(new other.InvalidInputError("Bad.") instanceof InvalidInputError);
  assert.ok(!(thrown instanceof InvalidInputError));
  assert.ok(!(thrown instanceof SetupError));
  assert.ok(new other.SetupError("No key.") instanceof SetupError);
  assert.ok(new other.SetupError("No key.") instanceof OutpostError);
  assert.ok(SetupError.isInstance(new other.SetupError("No key.")));
  assert.ok(!(new other.SetupError("No key.") instanceof ToolError));
  assert.equal(
    formatToolError(new other.SetupError("No key.", { hint: "Set it." })),
    "Error: No key.\nHint: Set it.",
  );
  // And the other way round: the bundled copy recognises ours.
  assert.ok(new ToolError("x") instanceof other.ToolError);
});

Deno.test("look-alikes are not errors of ours, and a subclass keeps its own identity", () => {
  for (const value of [new Error("x"), { name: "ToolError", hint: "h" }, null, "ToolError", 7]) {
    assert.ok(!ToolError.isInstance(value) && !(value instanceof SetupError));
    assert.ok(!(value instanceof OutpostError));
  }
  class QuotaError extends ToolError {}
  assert.ok(new QuotaError("Over quota.") instanceof ToolError);
  assert.ok(new QuotaError("Over quota.") instanceof QuotaError);
  assert.ok(!(new ToolError("x") instanceof QuotaError));
  assert.equal(new QuotaError("Over quota.").code, "failed");
});

Deno.test("invalid input carries the invalid_input code", async () => {
  const echo = tool({
    name: "echo",
    description: "Echoes.",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
  await assert.rejects(
    echo.execute({ text: 1 }),
    (error: unknown) => ToolError.isInstance(error) && error.code === "invalid_input",
  );
});
