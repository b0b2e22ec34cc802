import assert from "node:assert/strict";
import { WORKER_GZIP_BUDGET } from "../bench/bundle.ts";
import { CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN } from "../src/http/console_min.ts";
import { gzipSize, wranglerBuild } from "./support/bundle.ts";

Deno.test("the Worker, as wrangler deploy --minify builds it, stays within its gzipped budget", {
  timeout: 120_000,
}, async () => {
  const temp = await Deno.makeTempDir({ prefix: "outpost-worker-size-" });
  try {
    const module = await Deno.readFile(await wranglerBuild(temp));
    // The console is the Worker's static assets: none of it belongs in its bundle.
    const code = new TextDecoder().decode(module);
    for (const part of [CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN]) {
      assert.ok(!code.includes(part.slice(0, 200)), "the console is bundled into the Worker");
    }
    const size = await gzipSize(module);
    assert.ok(
      size <= WORKER_GZIP_BUDGET,
      `${size} bytes gzipped, over the ${WORKER_GZIP_BUDGET} budget: find a cut (bench/bundle.ts lists the modules)`,
    );
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
});
