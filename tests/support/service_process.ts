/**
 * `deno task start` as a subprocess, for the tests that run the service as users do.
 *
 * @module
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);
/** How long the service may take to start, type-checking included, before the test fails. */
const START_TIMEOUT_MS = 60_000;

/** The deadline of a test that starts the service (or runs its command line) `runs` times. */
export function within(runs: number): { timeout: number } {
  return { timeout: runs * START_TIMEOUT_MS + 30_000 };
}

/** The `deno task start` command line, minus `deno`, so the test runs exactly what users run. */
export async function startArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const [deno, ...args] = (config.tasks.start as string).split(/\s+/);
  assert.equal(deno, "deno");
  return args;
}

/** A running service. */
export interface Started {
  url: string;
  output: string;
  /** Reads on from stdout until what came after the start-up lines matches `pattern`. */
  more(pattern: RegExp): Promise<RegExpExecArray>;
  /** Stops the service and resolves to what it wrote to stderr. */
  stop(): Promise<string>;
  /** Kills the service with SIGKILL, as a crash would end it, and waits until it is gone. */
  kill(): Promise<void>;
}

/** Starts the service as a subprocess and waits until it says where it listens. */
export async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...await startArgs(), "--port", "0", ...args],
    cwd: root,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The child inherits only what it needs: no TAVILY_API_KEY, so search would use DuckDuckGo.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  // A service that never says it listens is killed, so the test fails instead of hanging.
  const deadline = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
  let output = "";
  for (;;) {
    const match = /listening on (http:\/\/\S+?)\/\n[^]*Press Ctrl-C to stop\.\n/.exec(output);
    if (match) {
      clearTimeout(deadline);
      let after = output.slice(match.index + match[0].length);
      return {
        url: match[1],
        output,
        async more(pattern) {
          for (;;) {
            const found = pattern.exec(after);
            if (found) return found;
            const { value, done } = await reader.read();
            if (done) throw new Error(`stdout ended without ${pattern}: ${after}`);
            after += value;
          }
        },
        async stop() {
          child.kill("SIGTERM");
          const status = await child.status;
          await reader.cancel();
          const stderr = await new Response(child.stderr).text();
          // It handles SIGTERM: a clean exit, not death by the signal.
          assert.equal(status.code, 0, stderr);
          return stderr;
        },
        async kill() {
          child.kill("SIGKILL");
          await child.status;
          await reader.cancel();
          await child.stderr.cancel();
        },
      };
    }
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(deadline);
      const status = await child.status;
      const stderr = await new Response(child.stderr).text();
      throw new Error(`the service exited (${status.code}): ${output}${stderr}`);
    }
    output += value;
  }
}
