import assert from "node:assert/strict";
import { CONSOLE_SCRIPT_MIN } from "../src/http/console_script_min.ts";
import { minifiedConsoleScript } from "./support/console_build.ts";

Deno.test("the console page serves console_script.ts minified, as the build writes it", {
  timeout: 60_000,
}, async () => {
  const script = await minifiedConsoleScript();
  // Nothing in it could end the page's <script> element early.
  assert.doesNotMatch(script, /<\/script|<!--/i);
  assert.ok(
    CONSOLE_SCRIPT_MIN === script,
    "console_script_min.ts is out of date: run `deno run -A tests/support/console_build.ts`",
  );
});
