/**
 * What a child process of the tests inherits of this one's environment: where to find programs
 * and Deno's cache, nothing else (no API keys, so a child's search never leaves the machine).
 */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}
