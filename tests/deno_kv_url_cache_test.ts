import assert from "node:assert/strict";
import { type CachedPage, HttpReader } from "../src/fetch/mod.ts";
import { DenoKvUrlCache } from "../edge/deno/mod.ts";
import { recordExpiries } from "./support/kv.ts";

// What every UrlCache must do is checked by the contract suite (url_cache_contract_test.ts);
// here, what is DenoKvUrlCache's own: chunks, persistence, KV's expiry.

function entry(url: string, text: string, storedAt = 1_700_000_000_000): CachedPage {
  return {
    storedAt,
    page: {
      url,
      status: 200,
      mediaType: "text/markdown",
      title: "A page",
      text,
      images: [{ url: `${url}a.png`, alt: "A" }],
      sizeCapped: false,
    },
  };
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("replacing an entry leaves no stale chunks behind", { timeout: 60_000 }, async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const cache = new DenoKvUrlCache(kv, { prefix: ["test", "pages"] });
    await cache.set("https://example.com/", entry("https://example.com/", "x".repeat(200_000)));
    const first = await keysUnder(kv, ["test", "pages"]);
    assert.equal(first, 1 + 4, "a head and four chunks");
    const newer = entry("https://example.com/", "short", 1_800_000_000_000);
    await cache.set("https://example.com/", newer);
    assert.deepEqual(await cache.get("https://example.com/"), newer);
    assert.equal(await keysUnder(kv, ["test", "pages"]), 2);
    assert.equal(await keysUnder(kv, ["outpost"]), 0, "the prefix is honoured");
  } finally {
    kv.close();
  }
});

Deno.test("entries survive closing and reopening a file-backed KV", {
  timeout: 60_000,
}, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/cache.sqlite3`;
    let kv = await Deno.openKv(path);
    await new DenoKvUrlCache(kv).set("https://example.com/", entry("https://example.com/", "kept"));
    kv.close();
    kv = await Deno.openKv(path);
    try {
      assert.equal((await new DenoKvUrlCache(kv).get("https://example.com/"))?.page.text, "kept");
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HttpReader judges freshness by the stored timestamp, not by KV's expiry", {
  timeout: 60_000,
}, async () => {
  let hits = 0;
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response(`visit ${hits}`, { headers: { "content-type": "text/plain" } });
  });
  const kv = await Deno.openKv(":memory:");
  try {
    const cache = new DenoKvUrlCache(kv);
    const reader = new HttpReader({ cache, cacheTtlMs: 60_000, allowPrivateNetwork: true });
    const url = `http://127.0.0.1:${site.addr.port}/page`;
    assert.equal((await reader.read(url)).text, "visit 1");
    assert.equal((await reader.read(url)).text, "visit 1", "fresh: served from KV");
    assert.equal(hits, 1);

    // Stored two minutes ago but kept by KV for an hour: stale by our timestamp, so refetched.
    const stored = (await cache.get(url))!;
    await cache.set(url, { ...stored, storedAt: Date.now() - 120_000 }, 3_600_000);
    assert.equal((await reader.read(url)).text, "visit 2");
    assert.equal(hits, 2);
    assert.ok((await cache.get(url))!.storedAt > Date.now() - 60_000, "the refetch is stored");
  } finally {
    kv.close();
    await site.shutdown();
  }
});

Deno.test("concurrent writers: one complete entry wins and no chunks are left behind", {
  timeout: 60_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const url = "https://example.com/race";
    const writers = ["a", "b", "c", "d"].map((letter) =>
      entry(url, letter.repeat(130_000), 1_700_000_000_000)
    );
    // Each its own cache object, as separate processes on one store would be.
    await Promise.all(writers.map((e) => new DenoKvUrlCache(kv).set(url, e)));
    const kept = await new DenoKvUrlCache(kv).get(url);
    assert.ok(
      kept && writers.some((e) => e.page.text === kept.page.text),
      "one writer's page, whole",
    );
    assert.equal(
      await keysUnder(kv, ["outpost", "url_cache"]),
      1 + 3,
      "a head and its three chunks",
    );
  } finally {
    kv.close();
  }
});

Deno.test("a page with a chunk gone reads as absent", { timeout: 60_000 }, async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const cache = new DenoKvUrlCache(kv, { prefix: ["c"] });
    await cache.set("https://example.com/", entry("https://example.com/", "x".repeat(200_000)));
    let chunks = 0;
    for await (const { key } of kv.list({ prefix: ["c"] })) {
      // Chunks sit at [prefix, hash, version, index]; the head at [prefix, hash].
      if (key.length === 4 && key[3] === 1) {
        await kv.delete(key);
        chunks++;
      }
    }
    assert.equal(chunks, 1);
    assert.equal(await cache.get("https://example.com/"), undefined);
  } finally {
    kv.close();
  }
});

Deno.test("set passes ttlMs to KV as expireIn on every write", { timeout: 60_000 }, async () => {
  const kv = await Deno.openKv(":memory:");
  const expiries: (number | undefined)[] = [];
  const recording = recordExpiries(kv, expiries);
  try {
    const cache = new DenoKvUrlCache(recording, { prefix: ["c"] });
    await cache.set(
      "https://example.com/",
      entry("https://example.com/", "x".repeat(200_000)),
      5000,
    );
    assert.ok(expiries.length > 2);
    assert.ok(expiries.every((e) => e === 5000), JSON.stringify(expiries));
  } finally {
    kv.close();
  }
});
