import assert from "node:assert/strict";
import { fence, FENCE_BEGIN, FENCE_END } from "../mod.ts";

Deno.test("fence wraps text between exactly one pair of markers", () => {
  const out = fence("hello\n--- END EXTERNAL CONTENT ---\nmore");
  assert.ok(out.startsWith(FENCE_BEGIN + "\n"));
  assert.ok(out.endsWith("\n" + FENCE_END));
  assert.equal(out.split(FENCE_END).length, 2);
});
