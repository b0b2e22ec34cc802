import assert from "node:assert/strict";

// Deno fetches every package of the lockfile it runs with, and `deno task` every package of
// deno.json's `imports`, before anything runs. So deno.lock and `imports` hold what the service and
// the published modules load and nothing else. Packages only tests, benchmarks and README examples
// use are in deno.json's `scopes`, which `deno task` leaves alone, and pinned in dev.lock, which
// the test task and CI use. A plain `deno install`, `deno add` or a test run without
// --lock=dev.lock writes them into deno.lock: the first test below catches that.

const root = new URL("../", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));

interface Lockfile {
  specifiers: Record<string, string>;
  npm: Record<string, { integrity: string }>;
}

async function lockfile(name: string): Promise<Lockfile> {
  return JSON.parse(await Deno.readTextFile(new URL(name, root)));
}

/** The modules users run: every export, and the module `deno task start` runs. */
function entryPoints(): string[] {
  const start = (config.tasks.start as string).split(/\s+/).find((arg) => arg.endsWith(".ts"));
  assert.ok(start, config.tasks.start);
  return [...new Set([...Object.values(config.exports as Record<string, string>), start])]
    .map((path) => path.replace(/^\.\//, ""));
}

/** `npm:@scope/name@range` → `@scope/name`. */
function packageName(specifier: string): string {
  return specifier.replace(/^npm:/, "").replace(/(.)@.*$/, "$1");
}

Deno.test("deno.lock pins exactly the npm packages the service and the published modules load", async () => {
  const entries = entryPoints();
  const rebuild = `rm deno.lock && deno cache --lock=deno.lock ${entries.join(" ")}`;
  const loaded = new Set<string>();
  for (const entry of entries) {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--lock=deno.lock", "--frozen", entry],
      cwd: root,
      env: { NO_COLOR: "1" },
    }).output();
    const message = new TextDecoder().decode(stderr);
    assert.equal(code, 0, `deno.lock does not cover ${entry}: ${message}\nRebuild it: ${rebuild}`);
    // npmPackages lists the whole lockfile; what the entry loads is reached from its modules.
    const info: {
      modules: { npmPackage?: string }[];
      npmPackages?: Record<string, { dependencies: string[] }>;
    } = JSON.parse(new TextDecoder().decode(stdout));
    const reach = (id: string) => {
      if (loaded.has(id)) return;
      loaded.add(id);
      for (const dependency of info.npmPackages?.[id]?.dependencies ?? []) reach(dependency);
    };
    for (const module of info.modules) if (module.npmPackage) reach(module.npmPackage);
  }
  const locked = await lockfile("deno.lock");
  const extra = Object.keys(locked.npm).filter((id) => !loaded.has(id));
  assert.deepEqual(
    extra,
    [],
    "deno.lock holds packages that nothing users run loads, which `deno task start` would " +
      `fetch anyway (a test run without --lock=dev.lock adds them). Restore it with \`git checkout deno.lock\`, or rebuild it: ${rebuild}`,
  );

  const topLevel = new Set(Object.keys(locked.specifiers).map(packageName));
  for (const [name, target] of Object.entries(config.imports as Record<string, string>)) {
    assert.ok(
      topLevel.has(packageName(target)),
      `deno.json imports ${name}, which nothing users run loads, yet \`deno task start\` would ` +
        "fetch it: put packages that only tests, benchmarks or examples use in deno.json's scopes.",
    );
  }
});

Deno.test("dev.lock pins the packages of deno.lock at the same versions", async () => {
  const [locked, dev] = [await lockfile("deno.lock"), await lockfile("dev.lock")];
  for (const [id, entry] of Object.entries(locked.npm)) {
    assert.equal(dev.npm[id]?.integrity, entry.integrity, `${id}: tests must run what users run`);
  }
  for (const [specifier, version] of Object.entries(locked.specifiers)) {
    assert.equal(dev.specifiers[specifier], version, specifier);
  }
});
