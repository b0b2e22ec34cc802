/**
 * Type-checks modules as a web-only runtime sees them: the libs of `web_only.json` (ECMAScript
 * and a Web Worker's globals, the common ground of Workers, Vercel Edge, Deno and Node), so that
 * `Deno`, `process`, `Buffer`, `Bun`, `require` or `window` do not compile. deno.json's import
 * map is copied in, so that the package versions stay written in one place.
 */
const root = new URL("../../", import.meta.url);

/** What `deno check` said about the modules. */
export interface WebOnlyCheck {
  ok: boolean;
  /** `deno check`'s diagnostics, without colour. */
  output: string;
}

/** Runs `deno check` on `files` (paths relative to `cwd`) with the web-only libs. */
export async function webOnlyCheck(
  files: readonly string[],
  cwd: string | URL = root,
): Promise<WebOnlyCheck> {
  const read = async (path: string) =>
    JSON.parse(await Deno.readTextFile(new URL(path, import.meta.url)));
  const { imports } = await read("../../deno.json");
  const { compilerOptions } = await read("./web_only.json");
  const dir = await Deno.makeTempDir({ prefix: "outpost-web-only-" });
  try {
    const config = `${dir}/deno.json`;
    await Deno.writeTextFile(config, JSON.stringify({ imports, compilerOptions }));
    // The same versions as dev.lock, from a copy: this config's smaller graph would prune it.
    const lock = `${dir}/dev.lock`;
    await Deno.copyFile(new URL("dev.lock", root), lock);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", `--lock=${lock}`, "--config", config, ...files],
      cwd,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { ok: code === 0, output: decode(stdout) + decode(stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The portable modules under `dir` (the repository root, or a copy of it): mod.ts and src/. */
export async function portableModules(dir: string | URL = root): Promise<string[]> {
  const base = new URL(String(dir).replace(/\/?$/, "/"), "file:///");
  const files = ["mod.ts"];
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(new URL(path, base))) {
      const child = `${path}${entry.name}`;
      if (entry.isDirectory) await walk(`${child}/`);
      else if (entry.name.endsWith(".ts")) files.push(child);
    }
  };
  await walk("src/");
  return files.sort();
}
