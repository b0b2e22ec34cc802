/**
 * Hostile shapes through `htmlToMarkdown`: each is converted at size N and 4N in one run, and
 * both its time and its output must grow about fourfold (a quadratic path grows sixteenfold).
 * Each test carries a timeout, so a quadratic path fails instead of hanging the run.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { htmlToMarkdown, type HtmlToMarkdownOptions, type MarkdownResult } from "../mod.ts";

const BASE = "https://example.com/docs/page.html";

/** A shape: how to build it at size `n`, and the N it is measured at. */
type Shape = [name: string, build: (n: number) => string, n: number];

/** CPU milliseconds of one conversion (not wall time: other processes share the machine). */
function cpuTime(html: string, options: HtmlToMarkdownOptions): number {
  const start = process.cpuUsage();
  htmlToMarkdown(html, options);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

/**
 * Converts each shape at N and 4N (main content and whole page) and checks that time and output
 * grow linearly: at most 8× for 4× the input (16× is quadratic), and the output within a few
 * times the input. Times are the fastest of five runs each, taken in turns after a warm-up,
 * and floored at 2 ms, below which they measure noise.
 */
function assertLinear(shapes: Shape[], options: Partial<HtmlToMarkdownOptions> = {}): void {
  for (const [name, build, n] of shapes) {
    for (const content of ["main", "full"] as const) {
      const all = { baseUrl: BASE, images: true, ...options, content };
      const small = build(n);
      const large = build(4 * n);
      // The output first, from the warm-up runs: a quadratic one would take long to time.
      for (let i = 0; i < 2; i++) htmlToMarkdown(small, all);
      const outA = size(htmlToMarkdown(small, all));
      const outB = size(htmlToMarkdown(large, all));
      const sizes = `${name} (${content}): ${outA} → ${outB} chars`;
      assert.ok(outB <= 4 * outA + 1_000, `output not linear: ${sizes}`);
      assert.ok(outB <= 4 * large.length, `output larger than its input: ${sizes}`);
      let a = Infinity;
      let b = Infinity;
      for (let i = 0; i < 5; i++) {
        a = Math.min(a, cpuTime(small, all));
        b = Math.min(b, cpuTime(large, all));
      }
      const label = `${sizes}, ${a.toFixed(1)} ms → ${b.toFixed(1)} ms`;
      if (Deno.env.get("SCALING_LOG")) console.log(`${label}, ${(b / Math.max(a, 2)).toFixed(1)}×`);
      assert.ok(b / Math.max(a, 2) < 8, `time not linear: ${label}`);
    }
  }
}

/** Characters of Markdown and of the image list. */
function size(result: MarkdownResult): number {
  let chars = result.markdown.length;
  for (const image of result.images) chars += image.url.length + image.alt.length;
  return chars;
}

/** Hostile table shapes: wide, ragged, long, sparse, spanning, nested. */
const TABLES: Shape[] = [
  // The shape: one row of n cells, then n rows of one cell.
  [
    "ragged: one wide row, many narrow",
    (n) => "<table><tr>" + "<td>h".repeat(n) + "<tr><td>y".repeat(n) + "</table>",
    2_000,
  ],
  [
    "ragged, the wide row last",
    (n) => "<table>" + "<tr><td>y".repeat(n) + "<tr>" + "<td>h".repeat(n) + "</table>",
    2_000,
  ],
  [
    "ragged, header cells",
    (n) =>
      "<table><thead><tr>" + "<th>h".repeat(n) + "<tbody>" + "<tr><td>y".repeat(n) +
      "</table>",
    2_000,
  ],
  [
    "wide: two rows of n cells",
    (n) => "<table><tr>" + "<td>a".repeat(n) + "<tr>" + "<td>b".repeat(n) + "</table>",
    5_000,
  ],
  ["long: n rows of three cells", (n) => "<table>" + "<tr><td>a<td>b<td>c".repeat(n), 5_000],
  [
    "empty cells before the text",
    (n) => "<table><tr>" + "<td>".repeat(n) + "<td>h" + "<tr><td>y".repeat(n) + "</table>",
    5_000,
  ],
  [
    "text in a different column each row",
    (n) =>
      "<table>" + Array.from({ length: n }, (_, i) => "<tr>" + "<td>".repeat(i % 200) + "<td>x")
        .join("") +
      "</table>",
    500,
  ],
  [
    "huge colspans",
    (n) => "<table><tr>" + "<td colspan=999999999>h".repeat(n) + "<tr><td>y".repeat(n) + "</table>",
    500,
  ],
  [
    "huge colspans, every row",
    (n) => "<table>" + "<tr><td colspan=99999>a<td colspan=99999>b".repeat(n) + "</table>",
    2_000,
  ],
  [
    "huge rowspans",
    (n) => "<table>" + "<tr><td rowspan=999999999>a<td>b".repeat(n) + "</table>",
    5_000,
  ],
  [
    "nested ragged tables",
    (n) =>
      "<table><tr><td>" + ("<table><tr>" + "<td>h".repeat(n / 20) + "<tr><td>y".repeat(n / 20) +
        "</table>").repeat(20) +
      "</table>",
    2_000,
  ],
  [
    "nested tables, unclosed",
    (n) => "<table><tr><td>x<td>" + "<table><tr><td>a<td>".repeat(n),
    2_000,
  ],
  ["many small tables", (n) => "<table><tr><th>a<th>b<tr><td>1<td>2</table>".repeat(n), 2_000],
  ["cells of blocks", (n) => "<table>" + "<tr><td><p>a<p>b<td><ul><li>c</ul>".repeat(n), 2_000],
];

Deno.test({
  name: "tables of every hostile shape convert in linear time and size",
  timeout: 120_000,
  fn: () => assertLinear(TABLES),
});

Deno.test({
  name: "a table too ragged or too wide for a pipe table prints its rows as lines, text kept",
  timeout: 20_000,
  fn() {
    const n = 16_000;
    const ragged = "<table><tr>" + "<td>h".repeat(n) + "<tr><td>y".repeat(n) + "</table>";
    const out = htmlToMarkdown(ragged, { baseUrl: BASE, content: "full" }).markdown;
    const lines = out.split("\n");
    assert.equal(lines.length, n + 1);
    assert.equal(lines[0], Array(n).fill("h").join(" | "));
    assert.ok(lines.slice(1).every((line) => line === "y"));
    // Too wide: 65 columns.
    const wide = "<table><tr>" + "<th>h".repeat(65) + "<tr>" + "<td>|".repeat(65) + "</table>";
    assert.equal(
      htmlToMarkdown(wide, { baseUrl: BASE }).markdown,
      Array(65).fill("h").join(" | ") + "\n" + Array(65).fill("\\|").join(" | "),
    );
  },
});
