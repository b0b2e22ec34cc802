/**
 * Writes the operator console as the Worker's static assets, from the modules the other runtimes
 * serve it from inline: `index.html` (the page, bringing in the two files below), `console.js`,
 * `console.css`, and `_headers`, which gives them the page's policy, with `'self'` in place of a
 * nonce. Keeping the console out of the Worker's bundle leaves its size budget to the tools.
 * `wrangler.jsonc`'s build command runs it:
 * `deno run --allow-write=DIR console_assets.ts DIR`.
 *
 * @module
 */
import { CONSOLE_SCRIPT_MIN, CONSOLE_STYLE_MIN } from "../../../src/http/console_min.ts";
import { consoleHeaders, consolePage } from "../../../src/http/console_page.ts";

/**
 * Writes the console's files into `dir`, made anew: every file there is served, so none that an
 * earlier build wrote may stay.
 */
export async function writeConsoleAssets(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(dir, { recursive: true });
  // One rule for every file (on the script and style, no-store and nosniff are what counts);
  // each asset keeps its own content type.
  const { "content-type": _, ...headers } = consoleHeaders("'self'");
  const rules = Object.entries(headers).map(([name, value]) => `  ${name}: ${value}\n`).join("");
  const files = {
    "index.html": consolePage(
      `<link rel="stylesheet" href="console.css">`,
      `<script src="console.js"></script>`,
    ),
    "console.js": CONSOLE_SCRIPT_MIN,
    "console.css": CONSOLE_STYLE_MIN,
    "_headers": `/*\n${rules}`,
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
}

if (import.meta.main) {
  const [dir] = Deno.args;
  if (!dir) throw new Error("Usage: console_assets.ts DIR");
  await writeConsoleAssets(dir);
}
