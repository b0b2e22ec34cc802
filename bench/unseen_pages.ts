/**
 * Main mode on pages kept outside the repository, so that nothing is tuned to them, against
 * Mozilla's Readability with turndown (what Firecrawl-style readers use) on the same pages, with
 * the figures of `deno task bench`'s converter section: output against the article in o200k
 * tokens and characters, pooled article recall, pages below 0.8 and over 5×, the extremes.
 *
 * ```sh
 * deno run --lock=dev.lock -A bench/unseen_pages.ts <dir> [--ours-only]
 * ```
 *
 * `<dir>` holds pairs: `<name>.html`, the page as served (UTF-8, or the charset its head
 * declares), and `<name>.txt`, its article's text; `<name>.url`, the page's address, is optional
 * (the base of its links and the site main mode tells apart). Not part of `deno task bench`:
 * such sets are not ours to ship.
 *
 * @module
 */
import TurndownService from "turndown";
import { parseHTML } from "linkedom";
import { Readability } from "@mozilla/readability";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { htmlToMarkdown } from "../src/fetch/mod.ts";
import { type CorpusPage, describe, figures, pageRows } from "./html_to_markdown.ts";

const FALLBACK_URL = "http://fakehost/page.html";

/** The page's bytes as text, by the charset its first 4 KB declare, else UTF-8. */
function decode(bytes: Uint8Array): string {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
  const label = /charset=["']?([\w-]+)/i.exec(head)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** The pairs in `dir`, by name; a page without its article's text is skipped. */
function loadPages(dir: string): { pages: CorpusPage[]; urls: string[] } {
  const pages: CorpusPage[] = [];
  const urls: string[] = [];
  const names = [...Deno.readDirSync(dir)]
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".html"))
    .map((name) => name.slice(0, -".html".length))
    .sort();
  for (const name of names) {
    const article = readText(`${dir}/${name}.txt`);
    if (article === undefined) continue;
    const bytes = Deno.readFileSync(`${dir}/${name}.html`);
    const articleText = article.replace(/\s+/g, " ").trim();
    pages.push({
      name,
      html: decode(bytes),
      bytes: bytes.length,
      article,
      articleText,
      articleTokens: countTokens(articleText),
    });
    const url = readText(`${dir}/${name}.url`)?.trim();
    urls.push(url && URL.canParse(url) ? url : FALLBACK_URL);
  }
  return { pages, urls };
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];
type TurndownNode = Parameters<TurndownService["turndown"]>[0];

/** linkedom's parse, typed by what we use: its own types assume the browser's DOM library. */
function parse(html: string): { document: { body: unknown } } {
  return parseHTML(html) as unknown as { document: { body: unknown } };
}

/** Readability's article of `html`, as turndown writes it; empty where it finds none. */
function readability(html: string, url: string): string {
  const { document } = parse(html);
  Object.defineProperty(document, "documentURI", { value: url });
  let content: string | null | undefined;
  try {
    content = new Readability(document as ReadabilityDocument).parse()?.content;
  } catch {
    return "";
  }
  if (!content) return "";
  const { document: article } = parse(`<!doctype html><html><body>${content}</body></html>`);
  return turndown.turndown(article.body as TurndownNode);
}

function report(label: string, pages: CorpusPage[], outputs: string[]): void {
  const f = figures(pages, outputs);
  console.log(`${label}: ${describe(f)}`);
  for (const [what, pagesAt] of pageRows(f)) console.log(`  ${what}: ${pagesAt}`);
}

if (import.meta.main) {
  const [dir, flag] = Deno.args;
  if (!dir || (flag !== undefined && flag !== "--ours-only")) {
    console.error("Usage: deno run -A bench/unseen_pages.ts <dir> [--ours-only]");
    Deno.exit(2);
  }
  const { pages, urls } = loadPages(dir);
  console.log(`${pages.length} pages in ${dir}`);
  report(
    "ours, main mode",
    pages,
    pages.map((page, i) => htmlToMarkdown(page.html, { baseUrl: urls[i] }).markdown),
  );
  if (flag !== "--ours-only") {
    report(
      "Readability + turndown",
      pages,
      pages.map((page, i) => readability(page.html, urls[i])),
    );
  }
}
