import assert from "node:assert/strict";
import { CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN } from "../src/http/console_min.ts";
import { minifiedConsole } from "./support/console_build.ts";

Deno.test("the console page serves its script and style minified, as the build writes them", {
  timeout: 60_000,
}, async () => {
  const { script, style } = await minifiedConsole();
  // Nothing in them could end the page's <script> or <style> element early.
  assert.doesNotMatch(script, /<\/script|<!--/i);
  assert.doesNotMatch(style, /<\/style/i);
  const stale = "console_min.ts is out of date: run `deno run -A tests/support/console_build.ts`";
  assert.ok(CONSOLE_SCRIPT_MIN === script, stale);
  assert.ok(CONSOLE_STYLE_MIN === style, stale);
});
