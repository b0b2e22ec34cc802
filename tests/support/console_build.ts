// The operator console's script and style as the page serves them: console_script.ts and
// console_style.ts (readable, with their comments) minified by esbuild, which takes about a
// third off the Worker's share of them (2.4 KB gzipped). `deno run -A
// tests/support/console_build.ts` (then `deno fmt`) rewrites src/http/console_min.ts;
// tests/console_build_test.ts keeps them equal.
import * as esbuild from "esbuild";
import { CONSOLE_SCRIPT } from "../../src/http/console_script.ts";
import { CONSOLE_STYLE } from "../../src/http/console_style.ts";

/**
 * The console's script minified, wrapped in a function so that its names stay out of the
 * page's globals, and its style sheet minified.
 */
export async function minifiedConsole(): Promise<{ script: string; style: string }> {
  try {
    const script = await esbuild.transform(CONSOLE_SCRIPT, {
      minify: true,
      format: "iife",
      target: "es2022",
      charset: "utf8",
    });
    const style = await esbuild.transform(CONSOLE_STYLE, {
      loader: "css",
      minify: true,
      charset: "utf8",
    });
    return { script: script.code.trim(), style: style.code.trim() };
  } finally {
    await esbuild.stop();
  }
}

if (import.meta.main) {
  const { script, style } = await minifiedConsole();
  await Deno.writeTextFile(
    new URL("../../src/http/console_min.ts", import.meta.url),
    `// The operator console's script and style, minified from console_script.ts and
// console_style.ts. Written by \`deno run -A tests/support/console_build.ts\` (then \`deno fmt\`);
// tests/console_build_test.ts keeps them equal.

/** The script the console page inlines. */
export const CONSOLE_SCRIPT_MIN: string = ${JSON.stringify(script)};

/** The style sheet the console page inlines. */
export const CONSOLE_STYLE_MIN: string = ${JSON.stringify(style)};
`,
  );
}
