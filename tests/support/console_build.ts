// The operator console's script as the page serves it: console_script.ts (readable, with its
// comments) minified by esbuild, which takes about a third off the Worker's share of it
// (2.2 KB gzipped). `deno run -A tests/support/console_build.ts` rewrites
// src/http/console_script_min.ts; tests/console_build_test.ts keeps the two equal.
import * as esbuild from "esbuild";
import { CONSOLE_SCRIPT } from "../../src/http/console_script.ts";

/** console_script.ts minified, wrapped in a function so that its names stay out of the page's globals. */
export async function minifiedConsoleScript(): Promise<string> {
  try {
    const { code } = await esbuild.transform(CONSOLE_SCRIPT, {
      minify: true,
      format: "iife",
      target: "es2022",
      charset: "utf8",
    });
    return code.trim();
  } finally {
    await esbuild.stop();
  }
}

/** The source of src/http/console_script_min.ts for `script`. */
function consoleScriptModule(script: string): string {
  return `// The operator console's script, minified from console_script.ts. Written by
// \`deno run -A tests/support/console_build.ts\` (then \`deno fmt\`); tests/console_build_test.ts
// keeps it equal.

/** The script the console page inlines. */
export const CONSOLE_SCRIPT_MIN: string = ${JSON.stringify(script)};
`;
}

if (import.meta.main) {
  await Deno.writeTextFile(
    new URL("../../src/http/console_script_min.ts", import.meta.url),
    consoleScriptModule(await minifiedConsoleScript()),
  );
}
