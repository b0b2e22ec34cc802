import type { Clock } from "../clock.ts";
import type { CachedPage, UrlCache } from "../fetch/url_cache.ts";
import type { Page } from "../fetch/page.ts";
import type { ContractCase } from "./contract_case.ts";
import { fail, isSame, preview, refused, same } from "./checks.ts";
import { FakeClock } from "./fake_clock.ts";

/**
 * What {@linkcode urlCacheContract} gives a cache's factory for one case: the case's clock, to
 * pass on if the cache reads the time.
 *
 * @example
 * ```ts
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import assert from "node:assert/strict";
 * import { urlCacheContract, type UrlCacheSetup } from "@outpost/agent-tools/testing";
 * const create = ({ clock }: UrlCacheSetup) => ({ cache: new MemoryUrlCache({ clock }) });
 * assert.ok(urlCacheContract({ name: "MemoryUrlCache", create, test: () => {} }) > 0);
 * ```
 */
export interface UrlCacheSetup {
  /** The case's clock; it moves only when the case moves it. */
  clock: Clock;
}

/**
 * A {@linkcode UrlCache} built for one case of {@linkcode urlCacheContract}, on an empty store,
 * with what ends it.
 *
 * @example
 * ```ts
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import assert from "node:assert/strict";
 * import { urlCacheContract, type UrlCacheFixture } from "@outpost/agent-tools/testing";
 * const fixture: UrlCacheFixture = { cache: new MemoryUrlCache(), close: () => {} };
 * assert.ok(urlCacheContract({ name: "MemoryUrlCache", create: () => fixture, test: () => {} }) > 0);
 * ```
 */
export interface UrlCacheFixture {
  /** The cache to check. */
  cache: UrlCache;
  /** Closes what `create` opened (a connection, a temporary file), after the case. */
  close?: () => void | Promise<void>;
}

/**
 * Options of {@linkcode urlCacheContract}.
 *
 * @example
 * ```ts
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import assert from "node:assert/strict";
 * import { urlCacheContract, type UrlCacheContractOptions } from "@outpost/agent-tools/testing";
 * const options: UrlCacheContractOptions = {
 *   name: "MemoryUrlCache",
 *   create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
 *   test: Deno.test,
 * };
 * // Registered here by a no-op instead of Deno.test, which a test file would use:
 * assert.ok(urlCacheContract({ ...options, test: () => {} }) > 0);
 * ```
 */
export interface UrlCacheContractOptions {
  /** Names the implementation in every case's name. */
  name: string;
  /** Builds a cache on an empty store (or under a prefix no other case uses) for one case. */
  create(setup: UrlCacheSetup): UrlCacheFixture | Promise<UrlCacheFixture>;
  /**
   * Registers one case with the test runner: `Deno.test` as it is, or an adapter to another
   * runner (`ignore` marks a case that cannot run here, `timeout` bounds it in milliseconds).
   */
  test(definition: ContractCase): unknown;
  /**
   * Whether the cache drops an entry once its TTL has passed on `setup.clock`, as
   * `MemoryUrlCache` does (default `true`). A store that expires entries on its own time, or
   * never (Deno KV, Workers KV), says `false`: the case that moves the time past a TTL is then
   * registered as ignored, saying so in its name.
   */
  readsClock?: boolean;
  /** Each case's time limit, in milliseconds (default 60 000). */
  timeoutMs?: number;
}

interface Case {
  name: string;
  /** The case moves the time past a TTL, so it needs a cache that reads the suite's clock. */
  needsClock?: true;
  run(cache: UrlCache, clock: FakeClock): Promise<void>;
}

/** The freshness window the cases store with: an hour, which no slow machine outlasts. */
const HOUR_MS = 3_600_000;

/**
 * Registers the contract suite of {@linkcode UrlCache} with `options.test`, as the interface's
 * documentation states it: misses and hits field for field, exact keys (the prefixes
 * `HttpReader` puts per guard setting, long URLs), overwrites, large pages, TTLs on a
 * {@linkcode FakeClock}, bad input refused without loss, copies rather than shared objects, and
 * concurrent writes; each case on a fresh cache from `options.create`. Web APIs only, so it runs
 * on any runtime and test runner: someone writing a cache on another store (Redis, Postgres) runs
 * it against theirs. Returns how many cases were registered to run (ignored ones not counted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryUrlCache } from "@outpost/agent-tools/fetch";
 * import { type ContractCase, urlCacheContract } from "@outpost/agent-tools/testing";
 * const cases: ContractCase[] = [];
 * const count = urlCacheContract({
 *   name: "MemoryUrlCache",
 *   create: ({ clock }) => ({ cache: new MemoryUrlCache({ clock }) }),
 *   test: (definition) => cases.push(definition), // or Deno.test
 * });
 * assert.equal(count, cases.length);
 * for (const { fn } of cases) await fn();
 * ```
 */
export function urlCacheContract(options: UrlCacheContractOptions): number {
  const { name, create, test, readsClock = true, timeoutMs = 60_000 } = options;
  let running = 0;
  for (const contractCase of CASES) {
    const ignore = contractCase.needsClock === true && !readsClock;
    running += ignore ? 0 : 1;
    test({
      name: `${name}: ${contractCase.name}${
        ignore ? " (skipped: the cache does not read the suite's clock)" : ""
      }`,
      ignore,
      timeout: timeoutMs,
      fn: async () => {
        const clock = new FakeClock();
        const { cache, close } = await create({ clock });
        try {
          await contractCase.run(cache, clock);
        } finally {
          await close?.();
        }
      },
    });
  }
  return running;
}

/** A page with every field of `Page` set, so that a store dropping one shows. */
function page(url: string, text: string): Page {
  return {
    url,
    status: 200,
    mediaType: "text/markdown",
    title: `Title of ${url.slice(0, 40)} ✓`,
    text,
    images: [{ url: `${url.slice(0, 100)}#a.png`, alt: "Ünïcödé alt 🌍" }],
    sizeCapped: false,
    omitted: 12,
    scripted: false,
  };
}

function entry(clock: FakeClock, url: string, text: string): CachedPage {
  return { storedAt: clock.now(), page: page(url, text) };
}

/** About 1.9 MB of text in multi-byte characters: far beyond a Deno KV value (64 KiB). */
function largeText(tag: string): string {
  return `${tag}: ${"Ünïcödé 🌍 text, split across chunk edges. ".repeat(40_000)}`;
}

const URL_A = "https://example.com/a";

const CASES: Case[] = [
  {
    name: "a key never stored is a miss",
    async run(cache) {
      same(await cache.get(URL_A), undefined, "get of a key never stored");
    },
  },
  {
    name: "an entry comes back field for field, its storedAt as given however old",
    async run(cache, clock) {
      const fresh = entry(clock, URL_A, "# Hello\n\nWorld ✓");
      const old = {
        storedAt: clock.now() - 2 * 86_400_000,
        page: { ...page("https://example.com/old", "old"), status: 404, sizeCapped: true },
      };
      await cache.set(URL_A, fresh, HOUR_MS);
      await cache.set("https://example.com/old", old);
      same(await cache.get(URL_A), fresh, "the entry read back");
      same(await cache.get(URL_A), fresh, "the entry read a second time");
      same(await cache.get("https://example.com/old"), old, "an entry stored two days ago");
    },
  },
  {
    name: "keys are exact: guard prefixes, case, length and odd characters keep entries apart",
    async run(cache, clock) {
      const long = `https://example.com/?q=${"a".repeat(5_000)}`;
      const keys = [
        URL_A,
        `guarded ${URL_A}`,
        `guarded+dns ${URL_A}`,
        `full guarded ${URL_A}`,
        `alt guarded+dns ${URL_A}`,
        "https://example.com/A",
        `${URL_A}/`,
        long,
        `${long}a`,
        "https://例え.jp/ü?q=a b\nc",
        "",
      ];
      for (const [i, key] of keys.entries()) {
        await cache.set(key, entry(clock, URL_A, `entry ${i}`), HOUR_MS);
      }
      for (const [i, key] of keys.entries()) {
        same((await cache.get(key))?.page.text, `entry ${i}`, `the entry under key #${i}`);
      }
      same(await cache.get(`guarded  ${URL_A}`), undefined, "a key never stored, near others");
    },
  },
  {
    name: "a later set replaces the entry, a large page over a small one and back",
    async run(cache, clock) {
      const small = entry(clock, URL_A, "small");
      const large = entry(clock, URL_A, largeText("large"));
      await cache.set(URL_A, small, HOUR_MS);
      await cache.set(URL_A, large, HOUR_MS);
      same(await cache.get(URL_A), large, "the large entry over the small one");
      await clock.advance(1_000);
      const newer = entry(clock, URL_A, "newer");
      await cache.set(URL_A, newer, HOUR_MS);
      same(await cache.get(URL_A), newer, "the small entry over the large one");
    },
  },
  {
    name: "a page far larger than a KV value round-trips character for character",
    async run(cache, clock) {
      const large = entry(clock, URL_A, largeText("kept"));
      await cache.set(URL_A, large, HOUR_MS);
      same(await cache.get(URL_A), large, "the large entry");
    },
  },
  {
    name: "an entry is served while its TTL runs",
    async run(cache, clock) {
      await cache.set(URL_A, entry(clock, URL_A, "within"), HOUR_MS);
      await clock.advance(HOUR_MS - 1_000);
      same((await cache.get(URL_A))?.page.text, "within", "the entry a second before its TTL");
    },
  },
  {
    name: "without ttlMs, with Infinity or with a TTL of centuries an entry does not expire",
    async run(cache, clock) {
      const ttls = [undefined, Infinity, 1e13, Number.MAX_VALUE];
      for (const [i, ttl] of ttls.entries()) {
        await cache.set(`${URL_A}${i}`, entry(clock, URL_A, `ttl ${ttl}`), ttl);
      }
      await clock.advance(10 * 365 * 86_400_000);
      for (const [i, ttl] of ttls.entries()) {
        same((await cache.get(`${URL_A}${i}`))?.page.text, `ttl ${ttl}`, `ttlMs ${ttl}`);
      }
    },
  },
  {
    name: "a key that is not a string is refused by get and set, and nothing changes",
    async run(cache, clock) {
      const kept = entry(clock, URL_A, "kept");
      await cache.set(URL_A, kept, HOUR_MS);
      for (const key of [undefined, null, 42, { toString: () => URL_A }, [URL_A]]) {
        await refused(() => cache.get(key as string), /key/, `get(${String(key)})`);
        await refused(
          () => cache.set(key as string, entry(clock, URL_A, "bad"), HOUR_MS),
          /key/,
          `set(${String(key)}, …)`,
        );
      }
      same(await cache.get(URL_A), kept, "the entry stored before");
    },
  },
  {
    name: "an entry that is not a CachedPage is refused, and the entry stored before stays",
    async run(cache, clock) {
      const kept = entry(clock, URL_A, "kept");
      await cache.set(URL_A, kept, HOUR_MS);
      const good = page(URL_A, "bad");
      const bad = [
        null,
        "a page",
        {},
        { storedAt: String(clock.now()), page: good },
        { storedAt: NaN, page: good },
        { storedAt: Infinity, page: good },
        { page: good },
        { storedAt: clock.now() },
        { storedAt: clock.now(), page: null },
        { storedAt: clock.now(), page: { ...good, text: undefined } },
        { storedAt: clock.now(), page: { ...good, url: 42 } },
        { storedAt: clock.now(), page: { ...good, images: "none" } },
      ];
      for (const [i, value] of bad.entries()) {
        await refused(
          () => cache.set(URL_A, value as unknown as CachedPage, HOUR_MS),
          /entry|storedAt|page/,
          `bad entry #${i}`,
        );
      }
      same(await cache.get(URL_A), kept, "the entry stored before");
    },
  },
  {
    name: "a ttlMs that is not a number > 0 is refused, and the entry stored before stays",
    async run(cache, clock) {
      const kept = entry(clock, URL_A, "kept");
      await cache.set(URL_A, kept, HOUR_MS);
      for (const ttl of [0, -1, -Infinity, NaN, "60000", null]) {
        await refused(
          () => cache.set(URL_A, entry(clock, URL_A, "bad"), ttl as number),
          /ttlMs/,
          `ttlMs ${JSON.stringify(ttl) ?? String(ttl)}`,
        );
      }
      same(await cache.get(URL_A), kept, "the entry stored before");
    },
  },
  {
    name: "the cache keeps its own copy: changing what set took or get gave changes nothing",
    async run(cache, clock) {
      const given = entry(clock, URL_A, "as stored");
      const expected = structuredClone(given);
      await cache.set(URL_A, given, HOUR_MS);
      given.page.text = "changed after set";
      given.page.images.push({ url: "https://example.com/x.png", alt: "x" });
      const read = await cache.get(URL_A);
      same(read, expected, "the entry after the caller changed what it stored");
      read!.page.text = "changed after get";
      read!.storedAt = 0;
      same(await cache.get(URL_A), expected, "the entry after the caller changed what it read");
    },
  },
  {
    name: "concurrent writes to one key: one of them wins, whole, and a later write replaces it",
    async run(cache, clock) {
      const writes = ["a", "b", "c", "d", "e", "f"].map((letter) =>
        entry(clock, URL_A, letter.repeat(130_000))
      );
      await Promise.all(writes.map((written) => cache.set(URL_A, written, HOUR_MS)));
      const kept = await cache.get(URL_A);
      if (!writes.some((written) => isSame(kept, written))) {
        fail(`after concurrent writes, one of them whole, but got ${preview(kept)}`);
      }
      const later = entry(clock, URL_A, "later");
      await cache.set(URL_A, later, HOUR_MS);
      same(await cache.get(URL_A), later, "the entry written after the race");
    },
  },
  {
    name: "concurrent writes to many keys all land",
    async run(cache, clock) {
      const keys = Array.from({ length: 24 }, (_, i) => `${URL_A}?n=${i}`);
      await Promise.all(keys.map((key) => cache.set(key, entry(clock, key, key), HOUR_MS)));
      const read = await Promise.all(keys.map((key) => cache.get(key)));
      for (const [i, key] of keys.entries()) same(read[i], entry(clock, key, key), key);
    },
  },
  {
    name: "reads during an overwrite find the old entry, the new one or none, never a mix",
    async run(cache, clock) {
      const old = entry(clock, URL_A, largeText("old"));
      await cache.set(URL_A, old, HOUR_MS);
      const next = entry(clock, URL_A, largeText("new"));
      const writing = cache.set(URL_A, next, HOUR_MS);
      const reads = await Promise.all(Array.from({ length: 8 }, () => cache.get(URL_A)));
      await writing;
      for (const read of reads) {
        if (read !== undefined && !isSame(read, old) && !isSame(read, next)) {
          fail(`a read during an overwrite gave neither entry: ${preview(read)}`);
        }
      }
      same(await cache.get(URL_A), next, "the entry once the write is done");
    },
  },
  {
    name: "an entry is dropped once its TTL has passed on the clock",
    needsClock: true,
    async run(cache, clock) {
      await cache.set(URL_A, entry(clock, URL_A, "short"), 60_000);
      await cache.set(`${URL_A}/long`, entry(clock, URL_A, "long"), HOUR_MS);
      await clock.advance(60_000);
      same(await cache.get(URL_A), undefined, "the entry whose TTL has passed");
      same((await cache.get(`${URL_A}/long`))?.page.text, "long", "the entry whose TTL runs");
    },
  },
];
