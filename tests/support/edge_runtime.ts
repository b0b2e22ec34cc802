import { installNodeModules } from "./bundle.ts";
import { firstLineUrl } from "./child_url.ts";

/** A service-worker bundle running in edge-runtime; `await using` stops it. */
export interface EdgeRuntimeServer extends AsyncDisposable {
  /** The server's origin, without a trailing slash. */
  url: string;
}

/** Starts `code` (an IIFE service-worker script) in edge-runtime with `env` as `process.env`. */
export async function edgeRuntimeServer(
  code: string,
  env: Record<string, string>,
): Promise<EdgeRuntimeServer> {
  await installNodeModules();
  const bundlePath = await Deno.makeTempFile({ suffix: ".js" });
  await Deno.writeTextFile(bundlePath, code);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--lock=dev.lock",
      "--node-modules-dir=manual",
      "-A",
      new URL("../fixtures/edge_runtime_server.ts", import.meta.url).pathname,
      bundlePath,
      JSON.stringify(env),
    ],
    cwd: new URL("../../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const stop = async () => {
    await child.stdin.close().catch(() => {});
    await child.status;
    await Deno.remove(bundlePath).catch(() => {});
  };
  const { url, drained } = await firstLineUrl(child.stdout, "edge-runtime", stop);
  return {
    url,
    async [Symbol.asyncDispose]() {
      await stop();
      await drained;
    },
  };
}
