import assert from "node:assert/strict";
import postgres from "postgres";
import type { CachedPage } from "../src/fetch/mod.ts";
import { PostgresUrlCache } from "../edge/postgres/mod.ts";
import { urlCacheContract } from "../src/testing/mod.ts";
import { freshDatabase, postgresMissing } from "./support/postgres.ts";

// What every UrlCache must do is checked by the contract suite, here on a real PostgreSQL server
// (tests/support/postgres.ts); below, what is PostgresUrlCache's own.

const client = (url: string) => postgres(url, { onnotice: () => {} });

const count = urlCacheContract({
  name: "PostgresUrlCache",
  async create({ clock }) {
    const sql = client(await freshDatabase());
    return { cache: new PostgresUrlCache(sql, { clock }), close: () => sql.end() };
  },
  test: (definition) =>
    Deno.test({ ...definition, ignore: definition.ignore || !!postgresMissing }),
});

function entry(url: string, text: string): CachedPage {
  return {
    storedAt: 1_700_000_000_000,
    page: { url, status: 200, mediaType: "text/plain", text, images: [], sizeCapped: false },
  };
}

Deno.test("the contract runs whole on PostgreSQL, its clock-driven case included", () => {
  assert.equal(count, 15);
});

Deno.test({
  name: "keys and pages with U+0000 and lone surrogates round-trip exactly, kept apart",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    const sql = client(await freshDatabase());
    try {
      const cache = new PostgresUrlCache(sql);
      const keys = ["a\u0000b", "a\ud800b", "a\udc00b", "a\ufffdb", "ab"];
      for (const [i, key] of keys.entries()) await cache.set(key, entry(key, `${i}\u0000\ud800`));
      for (const [i, key] of keys.entries()) {
        assert.deepEqual(await cache.get(key), entry(key, `${i}\u0000\ud800`), `key #${i}`);
      }
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name: "caches on one database share entries within a space, and nothing across spaces",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    const url = await freshDatabase();
    const [one, two] = [client(url), client(url)];
    try {
      const page = entry("https://a.example/", "shared");
      await new PostgresUrlCache(one).set(page.page.url, page);
      assert.deepEqual(await new PostgresUrlCache(two).get(page.page.url), page, "another replica");
      assert.equal(
        await new PostgresUrlCache(two, { space: "team-b" }).get(page.page.url),
        undefined,
      );
    } finally {
      await Promise.all([one.end(), two.end()]);
    }
  },
});

Deno.test({
  name: "expired rows are deleted by later writes, a bounded batch at a time",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    const { FakeClock } = await import("./support/fake_clock.ts");
    const sql = client(await freshDatabase());
    try {
      const clock = new FakeClock();
      const cache = new PostgresUrlCache(sql, { clock });
      for (let i = 0; i < 150; i++) await cache.set(`k${i}`, entry(`k${i}`, "x"), 1_000);
      await clock.advance(1_001);
      await cache.set("fresh", entry("fresh", "y"));
      const rows = async () => (await sql`SELECT count(*)::int AS n FROM outpost_url_cache`)[0].n;
      assert.equal(await rows(), 51, "one write deletes 100 expired rows");
      await cache.set("fresh", entry("fresh", "z"));
      assert.equal(await rows(), 1);
    } finally {
      await sql.end();
    }
  },
});

Deno.test("a bad client or space is refused at construction", () => {
  assert.throws(
    () => new PostgresUrlCache({} as never),
    /needs a client of the `postgres` package/,
  );
  const sql = postgres("postgres://nobody@127.0.0.1:1/none");
  for (const space of ["", "a b", "x".repeat(201), 7]) {
    assert.throws(() => new PostgresUrlCache(sql, { space: space as string }), /space must be/);
  }
});
