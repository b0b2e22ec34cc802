/**
 * Runs every benchmark: `deno task bench`.
 *
 * @module
 */
import { benchHtmlToMarkdown, benchScaling } from "./html_to_markdown.ts";

await benchHtmlToMarkdown();
benchScaling();
