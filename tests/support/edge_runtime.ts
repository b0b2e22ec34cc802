import { installNodeModules } from "./bundle.ts";

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
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) {
      await stop();
      throw new Error(`edge-runtime did not start: ${output}`);
    }
    output += value;
  }
  // Whatever the function logs later is drained, so that the process never blocks on a full pipe.
  const drained = (async () => {
    while (!(await lines.read()).done) {
      // Discarded.
    }
  })();
  return {
    url: output.trim().replace(/\/$/, ""),
    async [Symbol.asyncDispose]() {
      await stop();
      await drained;
    },
  };
}
