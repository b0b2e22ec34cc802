/**
 * Benchmarks `htmlToMarkdown` on the shared corpus of real pages, in one process, against two
 * references: htmlparser2's bare tokenizer with empty callbacks (the floor every streaming
 * converter on it pays) and turndown on a linkedom DOM (the common way to do it). Also measures
 * output size against the article, article recall, the share of output that is URLs or comes
 * before the article, and the converter's bundle size. The cost against the floor is measured
 * in Deno here (the source modules, as a Deno program imports them), and on the package bundled
 * for Node under both Node and Deno (one program, the runtimes compared), each in one process,
 * in CPU time over interleaved rounds (bench/converter_speed.ts).
 *
 * Recall is pooled over all pages: of all distinct word 5-grams of each `expected.html` (the
 * article as Mozilla's Readability extracts it; text nodes joined as rendered), the share found
 * in our output, read without link targets and image syntax, since URLs are not article words.
 * Each CJK ideograph or kana counts as a word, as those scripts do not space their words.
 * Size is counted in characters and in o200k tokens (what the agent pays), output against the
 * article's whitespace-collapsed text; per page too, so that no page hides in the pool.
 *
 * Run with `deno task bench`, or `deno run -A bench/html_to_markdown.ts`. The corpus is found at
 * `$OUTPOST_CORPUS`, else `<repo>/../shared/corpus/readability-pages`, else
 * `/work/shared/corpus/readability-pages`.
 *
 * @module
 */
import TurndownService from "turndown";
import { parseHTML } from "linkedom";
import process from "node:process";
import { htmlToMarkdown } from "../src/fetch/mod.ts";
import { findCorpus } from "./corpus.ts";
import { percentile, type Speed, type SpeedReport, timeAgainstFloor } from "./converter_speed.ts";
import { bundleForNode, findNode } from "../tests/support/node.ts";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const BASE_URL = "http://fakehost/test/page.html";
const ROUNDS = 31;
const REFERENCE_ROUNDS = 2;

/** A corpus page: its source, and the article text a reader mode extracts from it. */
export interface CorpusPage {
  name: string;
  html: string;
  bytes: number;
  article: string;
  /** The article's text, whitespace collapsed, and its o200k tokens. */
  articleText: string;
  articleTokens: number;
}

export function loadCorpus(dir: string): CorpusPage[] {
  const pages: CorpusPage[] = [];
  const names = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  for (const name of names) {
    const bytes = Deno.readFileSync(`${dir}/${name}/source.html`);
    const expected = Deno.readTextFileSync(`${dir}/${name}/expected.html`);
    const { document } = parseDocument(`<!doctype html><html><body>${expected}</body></html>`);
    const article = visibleText(document.body);
    const articleText = article.replace(/\s+/g, " ").trim();
    pages.push({
      name,
      html: new TextDecoder().decode(bytes),
      bytes: bytes.length,
      article,
      articleText,
      articleTokens: countTokens(articleText),
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

/**
 * Ordered-list numbers and footnote labels at the start of a line (outside code blocks, which
 * are matched whole and kept): the article's text, read from its DOM, has no list numbers, so
 * they would break the 5-grams across every item boundary.
 */
const MARKERS =
  /(^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\2[^\n]*$)|^[ \t>]*(?:\d+\.|\[\^[^\]\s]+\]:)[ \t]/gm;

/** Our Markdown as read: link targets and images, which are not article text, left out. */
function readable(markdown: string): string {
  return markdown.replace(MARKERS, (_match, fence) => fence ?? "").replace(
    /!\[[^\]]*\]\((?:<[^>]*>|[^)]*)\)/g,
    " ",
  ).replace(
    /\]\((?:<[^>]*>|[^)]*)\)/g,
    "]",
  );
}

/** The floor: htmlparser2's tokenizer bundled into a module of its own (see `loadApart`). */
let tokenizeOnly: (html: string) => string;
/** Our tokenizer with nothing listening, bundled into a module of its own likewise. */
let tokenizeAlone: (html: string) => string;

/**
 * Loads `entry` bundled as a module instance of its own, so that what it runs shares no JIT state
 * (inline caches, feedback) with the converter or anything else timed here: the floor, and our
 * tokenizer alone, whose empty sink would otherwise make every tokenizer callback of the
 * converter's a choice of two.
 */
async function loadApart<T>(entry: string): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "outpost-apart-" });
  const file = `${dir}/module.js`;
  await Deno.writeFile(file, await bundle(new URL(entry, import.meta.url).pathname, CONFIG, false));
  const module = await import(`file://${file}`);
  await Deno.remove(dir, { recursive: true });
  return module;
}

const CONFIG = new URL("../deno.json", import.meta.url).pathname;
/** The lockfile of everything, bench dependencies included (`deno.lock` pins what users run). */
const DEV_LOCK = new URL("../dev.lock", import.meta.url).pathname;

/** `entry` bundled for the browser as one ES module, with the import map of `config`. */
async function bundle(entry: string, config: string, minify: boolean): Promise<Uint8Array> {
  const args = ["bundle", "--config", config, "--platform", "browser", "--format", "esm"];
  // The repo's own config pins with the lockfile of everything; a throwaway config pins nothing.
  args.push(config === CONFIG ? `--lock=${DEV_LOCK}` : "--no-lock");
  if (minify) args.push("--minify");
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args, entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return output.stdout;
}

export function ours(html: string, content: "main" | "full" = "main"): string {
  return htmlToMarkdown(html, { baseUrl: BASE_URL, content }).markdown;
}

const turndownService = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
function turndownOnLinkedom(html: string): string {
  const { document } = parseDocument(html);
  return turndownService.turndown(
    document.documentElement as Parameters<TurndownService["turndown"]>[0],
  );
}

/** A line of main and full mode's costs against the floor. */
export function costs(main: Speed, full: Speed, rounds: number, target = true): string {
  const spread = (s: Speed) => `${fixed(s.low)}–${fixed(s.high)}`;
  return `${fixed(main.ratio)}× main, ${
    fixed(full.ratio)
  }× full in CPU time (middle half of ${rounds} rounds ${spread(main)} / ${spread(full)}; wall ${
    fixed(main.wallRatio)
  }× / ${fixed(full.wallRatio)}${target ? "; target ≤ 1.2× main" : ""})`;
}

/** Times main mode, full mode and our bare tokenizer against the floor, here in Deno. */
export async function denoSpeed(pages: string[], rounds: number): Promise<SpeedReport> {
  ({ tokenizeOnly } = await loadApart<{ tokenizeOnly: typeof tokenizeOnly }>(
    "floor_tokenizer.ts",
  ));
  ({ tokenizeAlone } = await loadApart<{ tokenizeAlone: typeof tokenizeAlone }>(
    "our_tokenizer.ts",
  ));
  return timeAgainstFloor(pages, tokenizeOnly, [
    ["main", ours],
    ["full", (html) => ours(html, "full")],
    ["tokenizer", tokenizeAlone],
  ], rounds);
}

/**
 * The converter's cost in the package bundled for Node, as a Node user runs it, timed against
 * htmlparser2's tokenizer in one process (bench/converter_speed_node.ts): under `node`, and the
 * same bundle under Deno, the comparison of the two runtimes on one program that the issue's
 * target names. Each is a line of `costs`, or why it was skipped.
 */
export async function bundleSpeed(
  dir: string,
  rounds: number,
): Promise<{ node: string; deno: string }> {
  const node = await findNode();
  const temp = await Deno.makeTempDir({ prefix: "outpost-bench-node-" });
  try {
    const module = await bundleForNode("bench/converter_speed_node.ts", temp);
    const inRuntime = async (command: string, args: string[]): Promise<string> => {
      const output = await new Deno.Command(command, {
        args: [...args, module, dir, String(rounds)],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      if (!output.success) return `failed: ${decoder.decode(output.stderr)}`;
      const report = JSON.parse(decoder.decode(output.stdout));
      return `${costs(report.contenders.main, report.contenders.full, rounds)}, ${report.runtime}`;
    };
    return {
      node: node ? await inRuntime(node, []) : "skipped: no node (OUTPOST_NODE, else PATH)",
      deno: await inRuntime(Deno.execPath(), ["run", "--allow-read"]),
    };
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
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

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** CJK ideographs and kana are words of their own: those scripts put no spaces between words. */
const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}])+/gu;

/** Distinct word 5-grams of `text`, each with the offset in `text` where it first starts. */
function grams(text: string): Map<string, number> {
  const words: string[] = [];
  const offsets: number[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    words.push(match[0]);
    offsets.push(match.index);
  }
  const map = new Map<string, number>();
  for (let i = 0; i + 5 <= words.length; i++) {
    const gram = words.slice(i, i + 5).join(" ");
    if (!map.has(gram)) map.set(gram, offsets[i]);
  }
  return map;
}

/** How many of the article's distinct 5-grams `output` has, and where the article starts in it. */
function score(article: string, output: string): { expected: number; hits: number; start: number } {
  const expected = grams(article);
  const found = grams(output);
  let hits = 0;
  let start = Infinity;
  let seen = 0;
  for (const gram of expected.keys()) {
    const at = found.get(gram);
    if (at === undefined) continue;
    hits++;
    // The article starts at the earliest of its first few 5-grams found in the output.
    if (seen++ < 10) start = Math.min(start, at);
  }
  return { expected: expected.size, hits, start: start === Infinity ? 0 : start };
}

/** Characters of link and image targets in `markdown`: `](…)` and `<scheme:…>` autolinks. */
function urlChars(markdown: string): number {
  let total = 0;
  for (const match of markdown.matchAll(/\]\((<[^>]*>|[^)\s]*)\)|<[a-z][a-z\d+.-]*:[^>\s]*>/gi)) {
    total += (match[1] ?? match[0]).length;
  }
  for (const match of markdown.matchAll(/(?<![(<\w])https?:\/\/[^\s)\]>]+/g)) {
    total += match[0].length;
  }
  return total;
}

async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/**
 * Bundles the converter module (minified) and returns its sizes: whole, and alone, with the
 * entity decoder it imports mapped to an empty stub by a throwaway import map.
 */
async function bundleSize(alone: boolean): Promise<{ minified: number; gzipped: number }> {
  const entry = new URL("../src/fetch/html_to_markdown/mod.ts", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: "outpost-bundle-" });
  let config = CONFIG;
  if (alone) {
    await Deno.writeTextFile(
      `${dir}/stub.ts`,
      "export class EntityDecoder {}\n" +
        "export const DecodingMode = {};\nexport const htmlDecodeTree = new Uint16Array();\n",
    );
    config = `${dir}/deno.json`;
    // The repo's import map, but for the decoder: the converter imports other packages too.
    const repo = JSON.parse(await Deno.readTextFile(CONFIG)).imports;
    const imports = { ...repo, "entities/decode": "./stub.ts" };
    await Deno.writeTextFile(config, JSON.stringify({ imports }));
  }
  try {
    const code = await bundle(entry, config, true);
    return { minified: code.length, gzipped: await gzipSize(code) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

function percent(value: number): string {
  return `${(100 * value).toFixed(1)}%`;
}

/** Quality of one reader's outputs on the corpus, pooled and per page. */
export function figures(pages: CorpusPage[], outputs: string[]) {
  let expected = 0, hits = 0, before = 0, chars = 0, urls = 0, late = 0, tokens = 0;
  const perPage = pages.map((page, i) => {
    const output = outputs[i];
    const s = score(page.article, readable(output));
    expected += s.expected;
    hits += s.hits;
    before += s.start;
    chars += output.length;
    urls += urlChars(output);
    const pageTokens = countTokens(output);
    tokens += pageTokens;
    if (s.start > output.length / 2) late++;
    return {
      name: page.name,
      recall: s.expected === 0 ? 1 : s.hits / s.expected,
      size: pageTokens / Math.max(1, page.articleTokens),
    };
  });
  const articleChars = sum(pages.map((page) => page.articleText.length));
  const articleTokens = sum(pages.map((page) => page.articleTokens));
  return {
    recall: hits / expected,
    before: before / chars,
    chars: chars / articleChars,
    tokens: tokens / articleTokens,
    urls: urls / chars,
    late,
    perPage,
  };
}

/** One line of a reader's figures. */
export function describe(f: ReturnType<typeof figures>): string {
  const low = f.perPage.filter((p) => p.recall < 0.8).length;
  const big = f.perPage.filter((p) => p.size > 5).length;
  return `${fixed(f.tokens)}× article tokens (${fixed(f.chars)}× chars), recall ${
    fixed(f.recall, 4)
  }, ${low} pages < 0.8, ${big} pages > 5×, URLs ${percent(f.urls)} of chars, before article ${
    percent(f.before)
  }, article past half on ${f.late} pages`;
}

/** The pages at the edges: lowest recall and largest output against the article. */
export function pageRows(f: ReturnType<typeof figures>): [string, string][] {
  const byRecall = [...f.perPage].sort((a, b) => a.recall - b.recall).slice(0, 6);
  const bySize = [...f.perPage].sort((a, b) => b.size - a.size).slice(0, 6);
  return [
    ["lowest recall (main)", byRecall.map((w) => `${w.name} ${fixed(w.recall, 3)}`).join(", ")],
    ["largest output (main)", bySize.map((w) => `${w.name} ${fixed(w.size, 2)}×`).join(", ")],
  ];
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

  const deno = await denoSpeed(pages.map((page) => page.html), ROUNDS);
  const bundled = await bundleSpeed(dir, ROUNDS);
  const speed = deno.contenders.main;
  for (const page of pages) turndownOnLinkedom(page.html);
  const mine = timePages(pages, ours, 3);
  const reference = timePages(pages, turndownOnLinkedom, REFERENCE_ROUNDS);
  const referenceMs = sum(reference);

  const main = figures(pages, pages.map((page) => ours(page.html)));
  const whole = figures(pages, pages.map((page) => ours(page.html, "full")));
  const turndown = figures(pages, pages.map((page) => turndownOnLinkedom(page.html)));
  const bundle = await bundleSize(false);
  const alone = await bundleSize(true);

  const rows: [string, string][] = [
    [
      "tokenizer floor",
      `${fixed(deno.floor.cpuMs, 1)} ms CPU, ${fixed(totalBytes / 1e3 / deno.floor.cpuMs, 1)} MB/s`,
    ],
    ["our tokenizer alone", `${fixed(deno.contenders.tokenizer.ratio)}× floor`],
    [
      "htmlToMarkdown",
      `${fixed(speed.cpuMs, 1)} ms CPU, ${fixed(totalBytes / 1e3 / speed.cpuMs, 1)} MB/s`,
    ],
    // The target is the bundle's, in both runtimes (below): this process also holds the bench.
    [
      "cost vs floor, Deno, source modules",
      costs(deno.contenders.main, deno.contenders.full, ROUNDS, false),
    ],
    ["cost vs floor, Node", bundled.node],
    ["cost vs floor, Deno on Node's bundle", bundled.deno],
    [
      "turndown+linkedom",
      `${fixed(referenceMs, 1)} ms, ${fixed(referenceMs / deno.floor.wallMs)}× floor, ${
        fixed(referenceMs / speed.wallMs, 1)
      }× ours`,
    ],
    ["per page p50 / p99", `${fixed(median(mine))} ms / ${fixed(percentile(mine, 0.99))} ms`],
    ["main (default)", describe(main)],
    ["full", describe(whole)],
    ["turndown+linkedom", describe(turndown)],
    ["targets", "≤ 1.3× article tokens at recall ≥ 0.99, no page < 0.8 recall or > 5× tokens"],
    ...pageRows(main),
    [
      "bundle, converter alone",
      `${fixed(alone.minified / 1024, 1)} KB minified, ${
        fixed(alone.gzipped / 1024, 1)
      } KB gzipped`,
    ],
    [
      "bundle, with entity decoder",
      `${fixed(bundle.minified / 1024, 1)} KB minified, ${
        fixed(bundle.gzipped / 1024, 1)
      } KB gzipped (target ≤ 30 KB)`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

/**
 * Hostile shapes, each converted at size N and 4N: a time ratio near 4 is linear, near 16
 * quadratic (CPU time, the best of three). The output must also stay within a small multiple
 * of the input.
 */
const HOSTILE: [string, (n: number) => string, number][] = [
  ["spaces then text in <pre>", (n) => `<pre>${" ".repeat(n)}x</pre>`, 100_000],
  [
    "em spaces in a table cell",
    (n) => `<table><tr><td>a${"&#x2003;".repeat(n)}x</td><td>b</td></tr><tr><td>c<td>d</table>`,
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
  ["deep nesting", (n) => "<div><span>".repeat(n) + "deep", 20_000],
  ["unclosed lists", (n) => "<ul><li>item ".repeat(n), 5_000],
  ["huge text node", (n) => `<p>${"word ".repeat(n)}</p>`, 200_000],
  ["table of implicit cells", (n) => "<table>" + "<tr><td>a<td>b<td>c".repeat(n), 20_000],
  [
    "furniture between paragraphs",
    (n) => "<p>text of the article</p><nav><a href=/a>a</a> <a href=/b>b</a></nav>".repeat(n),
    10_000,
  ],
  ["links in links", (n) => "<a href=/a>x".repeat(n), 20_000],
  ["comment of dashes, never closed", (n) => "<p>a</p><!--" + "-x".repeat(n), 200_000],
  ["script of almost-closing tags", (n) => "<script>" + "</scrip ".repeat(n), 100_000],
  ["one tag, many attributes", (n) => "<p " + "a=b ".repeat(n) + ">x</p>", 100_000],
  [
    "table: one wide row, many narrow",
    (n) => "<table><tr>" + "<td>h".repeat(n) + "<tr><td>y".repeat(n) + "</table>",
    8_000,
  ],
  ["table: two rows of n cells", (n) =>
    "<table><tr>" + "<td>a".repeat(n) + "<tr>" +
    "<td>b".repeat(n), 20_000],
  [
    "table: empty cells before the text",
    (n) => "<table><tr>" + "<td>".repeat(n) + "<td>h" + "<tr><td>y".repeat(n) + "</table>",
    20_000,
  ],
  [
    "table: huge colspans",
    (n) => "<table><tr>" + "<td colspan=999999999>h".repeat(n) + "<tr><td>y".repeat(n),
    2_000,
  ],
  ["table: huge rowspans", (n) => "<table>" + "<tr><td rowspan=999999999>a<td>b".repeat(n), 20_000],
  [
    "table: nested ragged tables",
    (n) =>
      "<table><tr><td>" + ("<table><tr>" + "<td>h".repeat(n / 20) + "<tr><td>y".repeat(n / 20) +
        "</table>").repeat(20),
    8_000,
  ],
  [
    "image address of pixel labels",
    (n) => `<img alt=a src="https://e.com/x//${"pixel.".repeat(n)}!">`,
    20_000,
  ],
  ["code class of many words", (n) => `<pre class="${"hljs x ".repeat(n)}">x</pre>`, 100_000],
  ["emphasis markers and underscores", (n) => `<p>${"a_*_b".repeat(n)}</p>`, 20_000],
  ["whitespace of every kind", (n) => `<p>a${" \t\n\u00a0\r\f".repeat(n)}b</p>`, 200_000],
  ["<pre> of blank lines", (n) => `<pre>x${"\n \t\n".repeat(n)}y</pre>`, 200_000],
  [
    "host of labels ending in a digit",
    (n) => `<a href="http://${"a.".repeat(n)}1/x">l</a>`,
    100_000,
  ],
  ["path of query marks", (n) => `<a href='/${"a?#".repeat(n)}"'>l</a>`, 100_000],
  ["tracking parameters", (n) => `<a href="/?${"utm_a=1&x=2&".repeat(n)}">l</a>`, 20_000],
  ["style of semicolons and spaces", (n) => `<p style="${"; ".repeat(n)}display:x">y</p>`, 200_000],
  [
    "class of almost-furniture words",
    (n) => `<div class="${"navx ".repeat(n)}"><p>y</p></div>`,
    100_000,
  ],
  [
    "unfinished character references",
    (n) => `<p>${"&".repeat(n)}${"&#".repeat(n)}${"&amp".repeat(n)}</p>`,
    50_000,
  ],
];

/** CPU milliseconds of one conversion: wall time on a shared machine measures the others too. */
function timeOnce(html: string): number {
  const start = process.cpuUsage();
  ours(html);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

/** Times each hostile shape at N and 4N and prints the ratios of time and of output to input. */
export function benchScaling(): void {
  console.log("html_to_markdown hostile scaling (time at N → 4N; ~4× is linear; output / input):");
  const width = Math.max(...HOSTILE.map(([label]) => label.length));
  for (const [label, build, n] of HOSTILE) {
    const small = build(n);
    const large = build(4 * n);
    timeOnce(small);
    const a = Math.min(timeOnce(small), timeOnce(small), timeOnce(small));
    const b = Math.min(timeOnce(large), timeOnce(large), timeOnce(large));
    const size = Math.max(ours(large).length, ours(large, "full").length) / large.length;
    console.log(
      `  ${label.padEnd(width)}  ${fixed(a, 1)} ms → ${fixed(b, 1)} ms  (${fixed(b / a, 1)}×), ${
        fixed(size)
      }× input`,
    );
  }
}

if (import.meta.main) {
  await benchHtmlToMarkdown();
  benchScaling();
}
