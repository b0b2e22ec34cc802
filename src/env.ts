/**
 * Reads an environment variable where the runtime has an environment and lets us read it.
 *
 * This is the core's only contact with runtime globals: on Workers and Vercel Edge there is
 * no environment, and on Deno a missing `--allow-env` throws; both yield `undefined`.
 */
export function readEnv(name: string): string | undefined {
  const runtime = globalThis as {
    Deno?: { env?: { get(key: string): string | undefined } };
    process?: { env?: Record<string, string | undefined> };
  };
  try {
    return runtime.Deno?.env?.get(name) ?? runtime.process?.env?.[name] ?? undefined;
  } catch {
    return undefined;
  }
}
