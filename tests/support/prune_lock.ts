/**
 * `deno task lock`: writes deno.lock as dev.lock cut down to the npm packages that the service
 * and the published modules load, at dev.lock's versions.
 *
 * Deno fetches every package of the lockfile it runs with before anything runs, so deno.lock
 * holds only those, and a first `deno task start` fetches nothing the tests need. dev.lock,
 * which the test task and CI use, pins those plus what tests, benchmarks and README examples use
 * (deno.json's `scopes`). After a change of dependencies: run the tests (they update dev.lock),
 * then this. `tests/lockfile_test.ts` checks that deno.lock is what this writes.
 *
 * @module
 */

const root = new URL("../../", import.meta.url);

interface Lockfile {
  version: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, unknown>;
  workspace?: unknown;
}

/**
 * The modules users run: every export of deno.json, and every module a task runs with the
 * default lockfile (`deno task start` and the like; not the tests' and benchmarks').
 */
export async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const run = Object.values(config.tasks as Record<string, string>)
    .flatMap((task) => task.split("&&"))
    .map((command) => command.trim().split(/\s+/))
    .filter((args) => args[0] === "deno" && args[1] === "run" && !args.includes("--lock=dev.lock"))
    .flatMap((args) => args.filter((arg) => arg.endsWith(".ts")))
    .filter((path) => !/^(\.\/)?(tests|bench)\//.test(path));
  return [...new Set([...Object.values(config.exports as Record<string, string>), ...run])]
    .map((path) => path.replace(/^\.\//, ""));
}

/** The ids (`name@version…`) of the npm packages the entry points load, as dev.lock pins them. */
export async function loadedPackages(entries: string[]): Promise<Set<string>> {
  const loaded = new Set<string>();
  for (const entry of entries) {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--lock=dev.lock", "--frozen", entry],
      cwd: root,
      env: { NO_COLOR: "1" },
    }).output();
    if (code !== 0) {
      throw new Error(
        `dev.lock does not cover ${entry}: ${new TextDecoder().decode(stderr)}\n` +
          "Run the tests once (they update dev.lock), then deno task lock.",
      );
    }
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
  return loaded;
}

/**
 * Names a dependency by its bare package name where the lockfile holds one version of it, as
 * Deno writes lockfiles: in dev.lock some need their version, being there in several.
 */
function shortenDependencies(npm: Record<string, unknown>): Record<string, unknown> {
  const name = (id: string) => id.replace(/(.)@.*$/, "$1");
  const versions = new Map<string, number>();
  for (const id of Object.keys(npm)) versions.set(name(id), (versions.get(name(id)) ?? 0) + 1);
  return Object.fromEntries(
    Object.entries(npm).map(([id, entry]) => {
      const { dependencies } = entry as { dependencies?: string[] };
      if (!dependencies) return [id, entry];
      const short = dependencies.map((dep) => versions.get(name(dep)) === 1 ? name(dep) : dep);
      return [id, { ...entry as object, dependencies: short }];
    }),
  );
}

/** deno.lock's text: dev.lock with only the packages the entry points load. */
export async function runtimeLock(): Promise<string> {
  const dev: Lockfile = JSON.parse(await Deno.readTextFile(new URL("dev.lock", root)));
  const unknown = Object.keys(dev).filter((key) =>
    !["version", "specifiers", "npm", "workspace"].includes(key)
  );
  if (unknown.length > 0) {
    throw new Error(`dev.lock has sections this script does not prune: ${unknown.join(", ")}`);
  }
  const loaded = await loadedPackages(await entryPoints());
  const name = (specifier: string) => specifier.replace(/^npm:/, "").replace(/(.)@.*$/, "$1");
  const pruned: Lockfile = {
    version: dev.version,
    specifiers: Object.fromEntries(
      Object.entries(dev.specifiers ?? {}).filter(([specifier, version]) =>
        loaded.has(`${name(specifier)}@${version}`)
      ),
    ),
    npm: shortenDependencies(
      Object.fromEntries(Object.entries(dev.npm ?? {}).filter(([id]) => loaded.has(id))),
    ),
    workspace: dev.workspace,
  };
  return `${JSON.stringify(pruned, null, 2)}\n`;
}

if (import.meta.main) {
  await Deno.writeTextFile(new URL("deno.lock", root), await runtimeLock());
  console.log("deno.lock now pins what the service and the published modules load.");
}
