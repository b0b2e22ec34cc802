/**
 * Benchmarks `htmlToMarkdown` on the shared corpus of real pages, in one process, against two
 * references: htmlparser2's bare tokenizer with empty callbacks (the floor every streaming
 * converter on it pays) and turndown on a linkedom DOM (the common way to do it). Also measures
 * output size against the article, article recall, and the converter's bundle size.
 *
 * Recall is the share of word 5-grams of each `expected.html` (the article as Mozilla's
 * Readability extracts it; text nodes joined as rendered) found in our output, read without
 * link targets and image syntax, since URLs are not article words.
 *
 * Run with `deno task bench`, or `deno run -A bench/html_to_markdown.ts`. The corpus is found at
 * `$OUTPOST_CORPUS`, else `<repo>/../shared/corpus/readability-pages`, else
 * `/work/shared/corpus/readability-pages`.
 *
 * @module
 */
import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";
import TurndownService from "turndown";
import { parseHTML } from "linkedom";
import { htmlToMarkdown } from "../mod.ts";
import { findCorpus } from "./corpus.ts";

const BASE_URL = "http://fakehost/test/page.html";
const ROUNDS = 7;
const REFERENCE_ROUNDS = 2;

/** A corpus page: its source, and the article text a reader mode extracts from it. */
interface CorpusPage {
  name: string;
  html: string;
  bytes: number;
  article: string;
}

function loadCorpus(dir: string): CorpusPage[] {
  const pages: CorpusPage[] = [];
  const names = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  for (const name of names) {
    const bytes = Deno.readFileSync(`${dir}/${name}/source.html`);
    const expected = Deno.readTextFileSync(`${dir}/${name}/expected.html`);
    const { document } = parseDocument(`<!doctype html><html><body>${expected}</body></html>`);
    pages.push({
      name,
      html: new TextDecoder().decode(bytes),
      bytes: bytes.length,
      article: visibleText(document.body),
    });
  }
  return pages;
}

interface TextNode {
  nodeType: number;
  tagName?: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNode>;
}

/** linkedom's parse, typed by what we use: its own types assume the browser's DOM library. */
function parseDocument(html: string): { document: { body: TextNode; documentElement: unknown } } {
  return parseHTML(html) as unknown as { document: { body: TextNode; documentElement: unknown } };
}

const BLOCK_TAGS =
  /^(?:address|article|aside|blockquote|br|dd|details|div|dl|dt|figcaption|figure|footer|form|h[1-6]|header|hr|img|li|main|nav|ol|p|pre|section|table|td|th|tr|ul)$/i;

/**
 * The text a reader sees: text nodes joined as rendered, with block boundaries as spaces
 * (`textContent` would glue the last word of one paragraph to the first of the next).
 */
function visibleText(root: TextNode): string {
  const parts: string[] = [];
  const stack: (TextNode | string)[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === "string") {
      parts.push(node);
    } else if (node.nodeType === 3) {
      parts.push(node.textContent ?? "");
    } else if (node.nodeType === 1 && !/^(?:script|style)$/i.test(node.tagName ?? "")) {
      const block = BLOCK_TAGS.test(node.tagName ?? "");
      if (block) stack.push(" ");
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]);
      if (block) stack.push(" ");
    }
  }
  return parts.join("");
}

/** Our Markdown as read: link targets and images, which are not article text, left out. */
function readable(markdown: string): string {
  return markdown.replace(/!\[[^\]]*\]\((?:<[^>]*>|[^)]*)\)/g, " ").replace(
    /\]\((?:<[^>]*>|[^)]*)\)/g,
    "]",
  );
}

const EMPTY_CALLBACKS: TokenizerCallbacks = {
  onattribdata() {},
  onattribentity() {},
  onattribend() {},
  onattribname() {},
  oncdata() {},
  onclosetag() {},
  oncomment() {},
  ondeclaration() {},
  onend() {},
  onopentagend() {},
  onopentagname() {},
  onprocessinginstruction() {},
  onselfclosingtag() {},
  ontext() {},
  ontextentity() {},
};

function tokenizeOnly(html: string): string {
  const tokenizer = new Tokenizer({ decodeEntities: true }, EMPTY_CALLBACKS);
  tokenizer.write(html);
  tokenizer.end();
  return "";
}

function ours(html: string): string {
  return htmlToMarkdown(html, { baseUrl: BASE_URL }).markdown;
}

const turndownService = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
function turndownOnLinkedom(html: string): string {
  const { document } = parseDocument(html);
  return turndownService.turndown(
    document.documentElement as Parameters<TurndownService["turndown"]>[0],
  );
}

/** Times each page `rounds` times, interleaving pages; returns per-page median milliseconds. */
function timePages(pages: CorpusPage[], convert: (html: string) => string, rounds: number) {
  const samples: number[][] = pages.map(() => []);
  for (let round = 0; round < rounds; round++) {
    pages.forEach((page, i) => {
      const start = performance.now();
      convert(page.html);
      samples[i].push(performance.now() - start);
    });
  }
  return samples.map((times) => median(times));
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function grams(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const set = new Set<string>();
  for (let i = 0; i + 5 <= words.length; i++) set.add(words.slice(i, i + 5).join(" "));
  return set;
}

/** Share of the article's word 5-grams found in `output`, or `undefined` for tiny articles. */
function recall(article: string, output: string): number | undefined {
  const expected = grams(article);
  if (expected.size === 0) return undefined;
  const found = grams(output);
  let hits = 0;
  for (const gram of expected) if (found.has(gram)) hits++;
  return hits / expected.size;
}

async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Bundles the converter module with its dependencies (minified) and returns its sizes. */
async function bundleSize(): Promise<{ minified: number; gzipped: number }> {
  const entry = new URL("../src/fetch/html_to_markdown.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--minify", "--platform", "browser", "--format", "esm", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return { minified: output.stdout.length, gzipped: await gzipSize(output.stdout) };
}

function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

/** Runs the benchmark and prints its figures. */
export async function benchHtmlToMarkdown(): Promise<void> {
  const dir = findCorpus();
  if (!dir) {
    console.log("html_to_markdown: corpus not found; set OUTPOST_CORPUS. Skipped.");
    return;
  }
  const pages = loadCorpus(dir);
  const totalBytes = sum(pages.map((p) => p.bytes));
  console.log(`html_to_markdown: ${pages.length} pages, ${fixed(totalBytes / 1e6)} MB from ${dir}`);

  // Warm up every path so that the JIT has settled before timing.
  for (let i = 0; i < 3; i++) for (const page of pages) tokenizeOnly(page.html), ours(page.html);
  for (const page of pages) turndownOnLinkedom(page.html);

  const floor = timePages(pages, tokenizeOnly, ROUNDS);
  const mine = timePages(pages, ours, ROUNDS);
  const reference = timePages(pages, turndownOnLinkedom, REFERENCE_ROUNDS);
  const floorMs = sum(floor);
  const mineMs = sum(mine);
  const referenceMs = sum(reference);

  const outputs = pages.map((page) => ours(page.html));
  const referenceOutputs = pages.map((page) => turndownOnLinkedom(page.html));
  const outTokens = outputs.map((text) => text.length / 4);
  const articleTokens = pages.map((page) => page.article.replace(/\s+/g, " ").trim().length / 4);
  const ratios = pages.map((_, i) => outTokens[i] / Math.max(1, articleTokens[i]));
  const recalls = pages.map((page, i) => recall(page.article, readable(outputs[i])));
  const referenceRecalls = pages.map((page, i) =>
    recall(page.article, readable(referenceOutputs[i]))
  );
  const scored = recalls.filter((r): r is number => r !== undefined);
  const referenceScored = referenceRecalls.filter((r): r is number => r !== undefined);
  const worst = pages
    .map((page, i) => ({ name: page.name, recall: recalls[i] ?? 1 }))
    .sort((a, b) => a.recall - b.recall)
    .slice(0, 5);
  const bundle = await bundleSize();

  const rows: [string, string][] = [
    ["tokenizer floor", `${fixed(floorMs, 1)} ms, ${fixed(totalBytes / 1e3 / floorMs, 1)} MB/s`],
    ["htmlToMarkdown", `${fixed(mineMs, 1)} ms, ${fixed(totalBytes / 1e3 / mineMs, 1)} MB/s`],
    [
      "turndown+linkedom",
      `${fixed(referenceMs, 1)} ms, ${fixed(totalBytes / 1e3 / referenceMs, 1)} MB/s`,
    ],
    ["cost vs floor", `${fixed(mineMs / floorMs)}× (target ≤ 2×)`],
    ["turndown+linkedom vs floor", `${fixed(referenceMs / floorMs)}×`],
    ["speed-up vs turndown+linkedom", `${fixed(referenceMs / mineMs, 1)}× (target ≥ 8×)`],
    ["per page p50 / p99", `${fixed(median(mine))} ms / ${fixed(percentile(mine, 0.99))} ms`],
    [
      "turndown per page p50 / p99",
      `${fixed(median(reference))} ms / ${fixed(percentile(reference, 0.99))} ms`,
    ],
    [
      "output tokens per page",
      `mean ${Math.round(sum(outTokens) / pages.length)}, median ${Math.round(median(outTokens))}`,
    ],
    [
      "output / article tokens",
      `${fixed(sum(outTokens) / sum(articleTokens))}× overall, median ${
        fixed(median(ratios))
      }× (target ≤ 2.7×)`,
    ],
    [
      "article recall (5-grams)",
      `mean ${fixed(sum(scored) / scored.length, 4)} (target ≥ 0.975); turndown ${
        fixed(sum(referenceScored) / referenceScored.length, 4)
      }`,
    ],
    ["lowest recall", worst.map((w) => `${w.name} ${fixed(w.recall, 3)}`).join(", ")],
    [
      "bundle (converter + htmlparser2)",
      `${fixed(bundle.minified / 1024, 1)} KB minified, ${
        fixed(bundle.gzipped / 1024, 1)
      } KB gzipped (target ≤ 30 KB)`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

/**
 * Hostile shapes that once took quadratic time, each converted at size N and 4N: a ratio near
 * 4 is linear, near 16 quadratic.
 */
const HOSTILE: [string, (n: number) => string, number][] = [
  ["spaces then text in <pre>", (n) => `<pre>${" ".repeat(n)}x</pre>`, 100_000],
  [
    "em spaces in a table cell",
    (n) => `<table><tr><td>a${"&#x2003;".repeat(n)}x</td><td>b</td></tr></table>`,
    50_000,
  ],
  [
    "<pre> of spaces in a cell",
    (n) => `<table><tr><td><pre>${" ".repeat(n)}y</pre></td><td>b</td></tr></table>`,
    100_000,
  ],
  [
    "nested tables",
    (n) => "<table><tr><td>x</td><td>".repeat(n) + "deep" + "</td></tr></table>".repeat(n),
    4_000,
  ],
  [
    "stray closing tags deep in a cell",
    (n) => "<b><table><tr><td>" + "<div>".repeat(1_500) + "</b>".repeat(n) + "</table>",
    50_000,
  ],
];

function timeOnce(html: string): number {
  const start = performance.now();
  ours(html);
  return performance.now() - start;
}

/** Times each hostile shape at N and 4N and prints the ratio. */
export function benchScaling(): void {
  console.log("html_to_markdown adversarial scaling (time at N → 4N; ~4× is linear):");
  const width = Math.max(...HOSTILE.map(([label]) => label.length));
  for (const [label, build, n] of HOSTILE) {
    const small = build(n);
    const large = build(4 * n);
    timeOnce(small);
    const a = Math.min(timeOnce(small), timeOnce(small), timeOnce(small));
    const b = Math.min(timeOnce(large), timeOnce(large), timeOnce(large));
    console.log(
      `  ${label.padEnd(width)}  ${fixed(a, 1)} ms → ${fixed(b, 1)} ms  (${fixed(b / a, 1)}×)`,
    );
  }
}

if (import.meta.main) {
  await benchHtmlToMarkdown();
  benchScaling();
}
