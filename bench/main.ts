/**
 * Runs every benchmark: `deno task bench`.
 *
 * @module
 */
import { benchHtmlToMarkdown } from "./html_to_markdown.ts";

await benchHtmlToMarkdown();
