import { MemoryUrlCache } from "../src/fetch/mod.ts";
import { DenoKvUrlCache } from "../edge/deno/mod.ts";
import { WorkersKvUrlCache } from "../edge/cloudflare/mod.ts";
import { urlCacheContract } from "../src/testing/mod.ts";
import { startWorker } from "./support/workerd.ts";

// One suite, run unchanged against every UrlCache the package ships.

await urlCacheContract({
  name: "MemoryUrlCache",
  create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
  test: Deno.test,
  expiresOnClock: true,
});

await urlCacheContract({
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
});

// Miniflare hands the test workerd's KV namespace; one Worker serves every case, each under a
// prefix of its own.
Deno.test("WorkersKvUrlCache on workerd's KV", { timeout: 600_000 }, async (t) => {
  await using worker = await startWorker();
  const namespace = await worker.kv("OUTPOST_URL_CACHE");
  let cases = 0;
  await urlCacheContract({
    name: "WorkersKvUrlCache",
    create: () => ({ cache: new WorkersKvUrlCache(namespace, { prefix: `case${++cases}:` }) }),
    test: (name, fn) => t.step(name, fn),
  });
});
