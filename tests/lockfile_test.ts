import assert from "node:assert/strict";
import { entryPoints, loadedPackages, runtimeLock } from "./support/prune_lock.ts";

// Deno fetches every package of the lockfile it runs with, and `deno task` every package of
// deno.json's `imports`, before anything runs. So deno.lock and `imports` hold what the service and
// the published modules load and nothing else. Packages only tests, benchmarks and README examples
// use are in deno.json's `scopes`, which `deno task` leaves alone, and pinned in dev.lock, which
// the test task and CI use. A plain `deno install`, `deno add` or a test run without
// --lock=dev.lock writes them into deno.lock: the first test below catches that.

const root = new URL("../", import.meta.url);

Deno.test("deno.lock is dev.lock cut down to the packages users run, at the same versions", {
  timeout: 60_000,
}, async () => {
  assert.equal(
    await Deno.readTextFile(new URL("deno.lock", root)),
    await runtimeLock(),
    "deno.lock must pin exactly what the service and the published modules load (Deno fetches " +
      "all it holds on a first `deno task start`): run `deno task lock`.",
  );
});

Deno.test("deno.json imports only what users run; the rest is in its scopes", {
  timeout: 60_000,
}, async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const name = (id: string) => id.replace(/^npm:/, "").replace(/(.)@.*$/, "$1");
  const loaded = new Set([...await loadedPackages(await entryPoints())].map(name));
  for (const [specifier, target] of Object.entries(config.imports as Record<string, string>)) {
    assert.ok(
      loaded.has(name(target)),
      `deno.json imports ${specifier}, which nothing users run loads, yet \`deno task start\` ` +
        "would fetch it: put packages that only tests, benchmarks or examples use in its scopes.",
    );
  }
});
