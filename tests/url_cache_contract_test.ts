import assert from "node:assert/strict";
import { MemoryUrlCache } from "../src/fetch/mod.ts";
import { DenoKvUrlCache } from "../edge/deno/mod.ts";
import { urlCacheContract } from "../src/testing/mod.ts";
import { startWorker } from "./support/workerd.ts";

// One suite, run unchanged against every UrlCache the package ships.

urlCacheContract({
  name: "MemoryUrlCache",
  create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
  test: Deno.test,
});

urlCacheContract({
  name: "DenoKvUrlCache",
  async create() {
    const dir = await Deno.makeTempDir({ prefix: "outpost-url-cache-" });
    const kv = await Deno.openKv(`${dir}/cache.sqlite3`);
    return {
      cache: new DenoKvUrlCache(kv),
      async close() {
        kv.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
  test: Deno.test,
  // KV expires entries on its own time.
  readsClock: false,
});

// The suite runs inside workerd, in a Worker of its own on the KV binding of wrangler.jsonc; each
// of its cases is a step here.
Deno.test("WorkersKvUrlCache, inside workerd", { timeout: 600_000 }, async (t) => {
  await using worker = await startWorker({
    entry: new URL("./support/url_cache_contract_worker.ts", import.meta.url),
    without: ["OUTPOST_QUESTIONS"],
  });
  const run = async (path: string) => {
    const response = await worker.fetch(path);
    assert.equal(response.status, 200, await response.clone().text());
    return await response.json();
  };
  const { cases } = await run("/") as { cases: { name: string; ignore?: boolean }[] };
  assert.ok(cases.length > 10, JSON.stringify(cases));
  for (const { name, ignore } of cases) {
    await t.step({
      name,
      ignore,
      fn: async () => {
        const { failure } = await run(`/?case=${encodeURIComponent(name)}`);
        assert.equal(failure, undefined, failure);
      },
    });
  }
});
