/**
 * What a page built by JavaScript still carries without running it: its description (`meta`
 * description, `og:description`) and its data blocks (JSON-LD, `__NEXT_DATA__` and other JSON
 * scripts), compacted, for pages whose readable text is empty or nearly so.
 *
 * @module
 */
import { escapeLineStart, escapeText } from "./escape.ts";
import { clip } from "./text.ts";

/** Readable text shorter than this makes a page thin: its data is shown too. */
export const THIN = 100;
/** Characters of data blocks read from one page, and shown. */
export const MAX_DATA_READ = 1_000_000;
const MAX_DATA_SHOWN = 20_000;

/** The description and data blocks as Markdown: each block compact JSON in a fenced block. */
export function pageData(description: string, blocks: string[]): string {
  const parts: string[] = [];
  if (description !== "") parts.push(escapeLineStart(escapeText(description, false)));
  let budget = MAX_DATA_SHOWN;
  for (const block of blocks) {
    if (budget <= 0) break;
    let json: string | undefined;
    try {
      json = JSON.stringify(JSON.parse(block));
    } catch {
      continue; // a truncated or broken block says nothing reliable
    }
    if (json === undefined || json.length <= 2) continue;
    json = clip(json, budget);
    budget -= json.length;
    let fence = "```";
    while (json.includes(fence)) fence += "`";
    parts.push(`${fence}json\n${json}\n${fence}`);
  }
  return parts.join("\n\n");
}
