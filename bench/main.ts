/**
 * Runs every benchmark: `deno task bench`.
 *
 * @module
 */
import { benchBundle } from "./bundle.ts";
import { benchHtmlToMarkdown, benchScaling } from "./html_to_markdown.ts";

await benchHtmlToMarkdown();
benchScaling();
await benchBundle();
