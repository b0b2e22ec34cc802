import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import { type CachedPage, MemoryUrlCache } from "../src/fetch/mod.ts";
import { FakeClock } from "./support/fake_clock.ts";

// What every UrlCache must do is checked by the contract suite (url_cache_contract_test.ts);
// here, what is MemoryUrlCache's own: its limits and its default TTL.

function entry(text: string, storedAt = Date.now()): CachedPage {
  return {
    storedAt,
    page: {
      url: `https://example.com/${text}`,
      status: 200,
      mediaType: "text/plain",
      text,
      images: [],
      sizeCapped: false,
    },
  };
}

Deno.test("keeps at most maxEntries, evicting the least recently used", {
  timeout: 60_000,
}, async () => {
  const cache = new MemoryUrlCache({ maxEntries: 2 });
  await cache.set("a", entry("a"));
  await cache.set("b", entry("b"));
  assert.equal((await cache.get("a"))?.page.text, "a"); // a is now the most recent
  await cache.set("c", entry("c"));
  assert.equal(await cache.get("b"), undefined);
  assert.equal((await cache.get("a"))?.page.text, "a");
  assert.equal((await cache.get("c"))?.page.text, "c");
});

Deno.test("entries expire by their own stored-at time and the default TTL", {
  timeout: 60_000,
}, async () => {
  const clock = new FakeClock();
  const cache = new MemoryUrlCache({ ttlMs: 60_000, clock });
  await cache.set("old", entry("old", clock.now() - 60_000));
  await cache.set("new", entry("new", clock.now()));
  await cache.set("hinted", entry("hinted", clock.now() - 60_000), 3_600_000);
  assert.equal(await cache.get("old"), undefined);
  assert.equal((await cache.get("new"))?.page.text, "new");
  assert.equal((await cache.get("hinted"))?.page.text, "hinted");
  await clock.advance(60_000);
  assert.equal(await cache.get("new"), undefined);
});

Deno.test("bad options are SetupErrors", () => {
  assert.throws(() => new MemoryUrlCache({ maxEntries: 0 }), SetupError);
  assert.throws(() => new MemoryUrlCache({ maxEntries: 1.5 }), SetupError);
  assert.throws(() => new MemoryUrlCache({ ttlMs: -1 }), SetupError);
  assert.throws(() => new MemoryUrlCache({ clock: {} as never }), SetupError);
});

Deno.test("keeps at most maxChars across entries, evicting the least recently used", {
  timeout: 60_000,
}, async () => {
  const cache = new MemoryUrlCache({ maxEntries: 10, maxChars: 500 });
  const big = (name: string) => entry(name + "x".repeat(100));
  await cache.set("a", big("a"));
  await cache.set("b", big("b"));
  await cache.get("a");
  await cache.set("c", big("c"));
  assert.ok(await cache.get("a"));
  assert.equal(await cache.get("b"), undefined);
  assert.ok(await cache.get("c"));
  await cache.set("huge", entry("y".repeat(400)));
  assert.equal(await cache.get("huge"), undefined);
  assert.ok(await cache.get("c"));
  assert.throws(() => new MemoryUrlCache({ maxChars: 0 }), SetupError);
});

Deno.test("storing a key again replaces its size rather than adding to it", {
  timeout: 60_000,
}, async () => {
  const sized = (text: string): CachedPage => ({
    storedAt: Date.now(),
    page: { url: "u", status: 200, mediaType: "text/plain", text, images: [], sizeCapped: false },
  });
  const cache = new MemoryUrlCache({ maxChars: 100 });
  await cache.set("a", sized("x".repeat(58))); // 60 characters with key and URL
  await cache.set("a", sized("y".repeat(58)));
  await cache.set("b", sized("z".repeat(28))); // 30 characters
  assert.equal((await cache.get("a"))?.page.text, "y".repeat(58));
  assert.equal((await cache.get("b"))?.page.text, "z".repeat(28));
});
