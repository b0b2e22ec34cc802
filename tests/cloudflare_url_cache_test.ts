import assert from "node:assert/strict";
import { HttpReader } from "../src/fetch/mod.ts";
import { WorkersKvUrlCache } from "../edge/cloudflare/mod.ts";
import { localServer } from "./support/local_server.ts";
import { startWorker } from "./support/workerd.ts";

const TOOL_TOKEN = "tool-token-for-workerd-tests";
const OPERATOR_TOKEN = "operator-token-for-workerd-tests";
const page = (url: string, text: string) => ({
  url,
  status: 200,
  mediaType: "text/plain",
  text,
  images: [],
  sizeCapped: false,
});

Deno.test("the Worker's web_fetch reads a page once across two requests, through KV", {
  timeout: 120_000,
}, async () => {
  await using origin = localServer(() =>
    new Response("<html><head><title>Cached</title></head><body><p>Kept in KV.</p></body></html>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  await using worker = await startWorker({
    vars: {
      OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
      OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
    },
  });
  const call = async () => {
    const response = await worker.fetch("/tools/web_fetch", {
      method: "POST",
      headers: { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${origin.origin}/article` }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()).text as string;
  };
  // KV's expiry counts from the write, which comes after this, however slow the machine.
  const before = Date.now();
  const first = await call();
  const second = await call();
  assert.match(first, /Kept in KV\./);
  assert.equal(second, first);
  assert.equal(origin.received.length, 1, "the second request was served from KV");
  const kv = await worker.kv("OUTPOST_URL_CACHE");
  const { keys } = await kv.list();
  assert.equal(keys.length, 1);
  assert.ok(new TextEncoder().encode(keys[0].name).length <= 512);
  // In whole seconds, rounded down: a minute after the write is at least 59 s after `before`.
  assert.ok(keys[0].expiration! * 1000 >= before + 59_000, "an expiry KV accepts");
});

// What every UrlCache must do is checked by the contract suite (url_cache_contract_test.ts);
// here, what is WorkersKvUrlCache's own: hashed keys, KV's TTL minimum, KV failures.

Deno.test("WorkersKvUrlCache on workerd's KV: hashed keys, a 60 s TTL at least, no collisions", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker();
  const namespace = await worker.kv("OUTPOST_URL_CACHE");
  const cache = new WorkersKvUrlCache(namespace);
  const long = `https://example.com/${"a".repeat(4000)}`;
  const before = Date.now();
  await cache.set(long, { storedAt: 1234, page: page(long, "long") }, 1000);
  assert.deepEqual(await cache.get(long), { storedAt: 1234, page: page(long, "long") });
  const { keys } = await namespace.list();
  assert.equal(keys.length, 1);
  assert.match(keys[0].name, /^outpost:url_cache:[0-9a-f]{64}$/);
  // A 1-second TTL hint becomes KV's 60-second minimum instead of a failed write.
  assert.ok(keys[0].expiration! * 1000 >= before + 59_000);
  // An entry for another URL stored under the same key (a collision) is not served.
  const value = JSON.parse((await namespace.get(keys[0].name))!);
  await namespace.put(keys[0].name, JSON.stringify({ ...value, key: "https://other.example/" }));
  assert.equal(await cache.get(long), undefined);
  assert.equal(await cache.get("https://never.example/"), undefined);
});

Deno.test("a failing KV namespace costs a network read, never the tool call", {
  timeout: 120_000,
}, async () => {
  await using origin = localServer(() => new Response("fresh from the origin"));
  const errors: unknown[] = [];
  const failing = {
    get: () => Promise.reject(new Error("KV GET failed: 429 Too Many Requests")),
    put: () => Promise.reject(new Error("KV PUT failed: 429 Too Many Requests")),
  };
  const cache = new WorkersKvUrlCache(failing, { onError: (error) => errors.push(error) });
  const reader = new HttpReader({ cache, allowPrivateNetwork: true });
  const first = await reader.read(`${origin.origin}/page`);
  const second = await reader.read(`${origin.origin}/page`);
  assert.equal(first.text, "fresh from the origin");
  assert.equal(second.text, "fresh from the origin");
  assert.equal(origin.received.length, 2);
  assert.equal(errors.length, 4, "two failed reads and two failed writes were reported");
});

Deno.test("WorkersKvUrlCache refuses what is not a KV namespace, and an overlong prefix", () => {
  assert.throws(() => new WorkersKvUrlCache({} as never), /KV namespace binding/);
  assert.throws(
    () =>
      new WorkersKvUrlCache({ get: () => Promise.resolve(null), put: () => Promise.resolve() }, {
        prefix: "p".repeat(129),
      }),
    /at most 128 bytes/,
  );
});
