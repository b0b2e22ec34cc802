import assert from "node:assert/strict";
import { WORKER_GZIP_BUDGET } from "../bench/bundle.ts";
import { gzipSize, wranglerBuild } from "./support/bundle.ts";

Deno.test("the Worker, as wrangler deploy --minify builds it, stays within its gzipped budget", {
  timeout: 120_000,
}, async () => {
  const temp = await Deno.makeTempDir({ prefix: "outpost-worker-size-" });
  try {
    const size = await gzipSize(await Deno.readFile(await wranglerBuild(temp)));
    assert.ok(
      size <= WORKER_GZIP_BUDGET,
      `${size} bytes gzipped, over the ${WORKER_GZIP_BUDGET} budget: find a cut (bench/bundle.ts lists the modules)`,
    );
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
});
