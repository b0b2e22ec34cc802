/**
 * Hostile shapes through `htmlToMarkdown`: each is converted at size N and 4N in one run, and
 * both its time and its output must grow about fourfold (a quadratic path grows sixteenfold).
 * Each test carries a timeout, so a quadratic path fails instead of hanging the run.
 */
import assert from "node:assert/strict";
import {
  htmlToMarkdown,
  type HtmlToMarkdownOptions,
  type MarkdownResult,
} from "../src/fetch/mod.ts";
import { assertLinear } from "./support/linear_time.ts";

const BASE = "https://example.com/docs/page.html";

/** A shape: how to build it at size `n`, and the N it is measured at. */
type Shape = [name: string, build: (n: number) => string, n: number];

/**
 * Converts each shape at N and 4N (main content and whole page) and checks that output and time
 * grow linearly. The output, which is exact: at most 4× (plus a little) for 4× the input, and
 * within 4× the input. The time: `assertLinear`'s CPU-time ratio, about 4 when linear and 16
 * when quadratic.
 */
async function assertLinearShapes(
  shapes: Shape[],
  options: Partial<HtmlToMarkdownOptions> = {},
): Promise<void> {
  for (const [name, build, n] of shapes) {
    for (const content of ["main", "full"] as const) {
      const all = { baseUrl: BASE, images: true, ...options, content };
      const small = build(n);
      const large = build(4 * n);
      const outA = size(htmlToMarkdown(small, all));
      const outB = size(htmlToMarkdown(large, all));
      const sizes = `${name} (${content}): ${outA} → ${outB} chars`;
      assert.ok(outB <= 4 * outA + 1_000, `output not linear: ${sizes}`);
      assert.ok(outB <= 4 * large.length, `output larger than its input: ${sizes}`);
      await assertLinear(`${name} (${content})`, build, (html) => htmlToMarkdown(html, all), { n });
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
  // The issue's shape: one row of n cells, then n rows of one cell.
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
    "cells each all furniture, in rows and in a row",
    (n) =>
      "<table>" + '<tr><td><div class="promo"><p>x</p><nav><a href=/a>a</a></nav></div>'.repeat(n) +
      "</table><table><tr>" + '<td><div class="promo"><p>y</p></div>'.repeat(n) + "</table>",
    2_000,
  ],
  [
    "layout tables nested in cells of furniture",
    (n) => '<table><tr><td><div class="promo"><h2>x</h2><p>y</p>'.repeat(n),
    1_000,
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
  ["rowspans in every row", (n) => "<table>" + "<tr><td rowspan=99>a<td>b".repeat(n), 2_000],
  [
    "a row of rowspans, then rows",
    (n) => "<table><tr>" + "<td rowspan=40>a".repeat(n) + "<tr><td>b".repeat(n),
    2_000,
  ],
  [
    "footer rows between body rows",
    (n) => "<table>" + "<tfoot><tr><td>f<td>g</tfoot><tbody><tr><td>a<td>b".repeat(n),
    2_000,
  ],
];

Deno.test({
  name: "tables of every hostile shape convert in linear time and size",
  timeout: 300_000,
  fn: () => assertLinearShapes(TABLES),
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

/**
 * Page text each regular expression of the converter reads, shaped to make a backtracking one
 * slow: escaping, whitespace, line starts, code, URLs, tracking parameters, styles, classes,
 * image addresses, character references.
 */
const TEXT: Shape[] = [
  ["emphasis markers and underscores", (n) => `<p>${"a_*_b".repeat(n)}</p>`, 5_000],
  ["backslashes before punctuation", (n) => `<p>${"\\!\\".repeat(n)}</p>`, 10_000],
  ["brackets in link text", (n) => `<a href=/x>${"[_]\\".repeat(n)}</a>`, 5_000],
  ["brackets in alt text", (n) => `<img src=/a.png alt="${"[\\]".repeat(n)}">`, 200_000],
  ["a line of dashes, then text", (n) => `<p>${"-=".repeat(n)}x</p>`, 500_000],
  ["a line of hashes and digits", (n) => `<p>${"#1".repeat(n)}.</p>`, 1_000_000],
  ["whitespace of every kind", (n) => `<p>a${" \t\n\u00a0\r\f".repeat(n)}b</p>`, 200_000],
  ["words between no-break spaces", (n) => `<p>${"\u00a0 x ".repeat(n)}</p>`, 25_000],
  ["<pre> of blank lines", (n) => `<pre>x${"\n \t\n".repeat(n)}y</pre>`, 200_000],
  ["<pre> of indented lines", (n) => `<pre>${("\n" + " ".repeat(40)).repeat(n)}x</pre>`, 50_000],
  [
    "<pre> of backticks",
    (n) => `<pre>${"`` ".repeat(n)}</pre><code>${"`".repeat(n)}</code>`,
    100_000,
  ],
  ["code class of prefixes", (n) => `<pre class="${" brush:".repeat(n)} lang-">x</pre>`, 100_000],
  ["code class of words", (n) => `<pre class="${"hljs x ".repeat(n)}">x</pre>`, 20_000],
  ["code data-lang", (n) => `<pre data-lang="${"a".repeat(n)}!">x</pre>`, 1_000_000],
  [
    "host of labels ending in a digit",
    (n) => `<a href="http://${"a.".repeat(n)}1/x">l</a>`,
    100_000,
  ],
  ["host of one long label", (n) => `<a href="https://${"x".repeat(n)}n--/">l</a>`, 500_000],
  [
    "long targets of many segments and queries",
    (n) =>
      `<p><a href="https://o.example/${"a/".repeat(n)}?q#">l</a> <a href="/?${
        "?".repeat(n)
      }">m</a>`,
    100_000,
  ],
  ["path of query marks", (n) => `<a href='/${"a?#".repeat(n)}"'>l</a>`, 25_000],
  ["path of dot segments", (n) => `<a href="/${"./.".repeat(n)}x">l</a>`, 100_000],
  ["address to wrap", (n) => `<a href="/${"( )<\\".repeat(n)}">l</a>`, 10_000],
  ["tracking parameters", (n) => `<a href="/?${"utm_a=1&x=2&".repeat(n)}">l</a>`, 20_000],
  [
    "hosts of store-like labels",
    (n) =>
      `<a href="https://${"amazon.".repeat(n)}x/?tag=1">l</a>` +
      `<a href="https://amazon.com/${"dp/x/".repeat(n)}?tag=1">m</a>`,
    100_000,
  ],
  [
    "schemes of many letters",
    (n) => `<a href="${"a".repeat(n)}:x">l</a><img alt=i src="${"a+".repeat(n)}">`,
    200_000,
  ],
  [
    "bare hosts of many labels",
    (n) => `<a href="//${"a.".repeat(n)}1">l</a><a href="http://${"a-".repeat(n)}.">m</a>`,
    100_000,
  ],
  ["tags that start like <base>", (n) => `${"<bas<B".repeat(n)}<p>x</p>`, 5_000],
  [
    "links whose text is their address",
    (n) => `<a href="/x">https://example.com/x</a> `.repeat(n),
    5_000,
  ],
  ["style of semicolons and spaces", (n) => `<p style="${"; ".repeat(n)}display:x">y</p>`, 200_000],
  [
    "style with spaced values",
    (n) => `<p style="display:${" ".repeat(n)}none${" ".repeat(n)}!${" ".repeat(n)}x">y</p>`,
    200_000,
  ],
  [
    "script type with trailing spaces",
    (n) => `<script type="application/json${" ".repeat(n)}x">{}</script><p>y</p>`,
    1_000_000,
  ],
  [
    "class of almost-furniture words",
    (n) => `<div class="${"navx ".repeat(n)}"><p>y</p></div>`,
    100_000,
  ],
  [
    "class of builder widget words",
    (n) => `<div class="${"pb-widget ".repeat(n)}widgetx"><p>y</p></div>`,
    100_000,
  ],
  ["<main>s nested, each closed", (n) => "<main><p>y</p>".repeat(n) + "</main>".repeat(n), 5_000],
  ["id of many words", (n) => `<div id="${"a-".repeat(n)}"><p>y</p></div>`, 500_000],
  [
    "image address of pixel labels",
    (n) => `<p>x</p><img alt=a src="https://e.com/x//${"pixel.".repeat(n)}!">`,
    50_000,
  ],
  [
    "image host of pixel labels",
    (n) => `<p>x</p><img alt=a src="https://${"pixel.".repeat(n)}com!x">`,
    20_000,
  ],
  [
    "image address of slashes",
    (n) => `<img alt=a src="https://e.com/${"//a.".repeat(n)}!">`,
    10_000,
  ],
  ["srcset of many candidates", (n) => `<img srcset="${"a.png 1x, ".repeat(n)}">`, 20_000],
  [
    "ampersands and unfinished references",
    (n) => `<p>${"&".repeat(n)}${"&#".repeat(n)}${"&amp".repeat(n)}&#x${"0".repeat(n)}1;</p>`,
    50_000,
  ],
  ["references in an attribute", (n) => `<a href="/${"&a&#".repeat(n)}">l</a>`, 50_000],
  ["MathML never closed", (n) => "<math><mi>x</mi>".repeat(n), 10_000],
  [
    "MathML of many annotations, never closed",
    (n) => "<math>" + "<annotation encoding=x>a</annotation>".repeat(n),
    20_000,
  ],
  [
    "MathML nested, TeX at the end",
    (n) => "<p>x " + "<math>".repeat(n) + "<annotation encoding=application/x-tex>y</annotation>",
    // As deep as the other nesting shapes: 80,000 open elements time the collector, not us.
    5_000,
  ],
  ["fragment links never closed", (n) => `<p>${"<a href=#fn1><sup>[1]".repeat(n)}</p>`, 10_000],
  [
    "footnote references and notes",
    (n) => `<p>${"<a href=#fn1>1</a>".repeat(n)}</p><ol>${"<li id=fn1>note".repeat(n)}</ol>`,
    10_000,
  ],
  [
    "sentences of links",
    (n) => "<p>x</p>" + "<p><a href=/a>a</a> <a href=/b>b</a>.</p>".repeat(n),
    5_000,
  ],
  [
    // Each list restored by the prose after it; or cut, each in a block nested in the last.
    "lists a sentence introduces, prose after them",
    (n) =>
      `<main><p>${"Word ".repeat(60)}</p>` +
      `<p>Some.</p><ul><li><a href=/a>a</a><li><a href=/b>b</a></ul><p>${
        '<span class="share">x</span>'.repeat(20)
      }${"Prose goes on here. ".repeat(6)}</p>`.repeat(n / 20) +
      "<div><p>Some.</p><ul><li><a href=/a>a</a><li><a href=/b>b</a></ul>".repeat(n / 20),
    2_000,
  ],
  [
    // Link targets already written are looked up by value: targets alike at their ends and middle.
    "distinct links alike at their ends and middle",
    (n) =>
      Array.from({ length: n }, (_, i) => `<a href="/${"x".repeat(16)}${i + 1e9}zz">l</a> `).join(
        "",
      ),
    5_000,
  ],
  [
    "images before captions",
    (n) => '<figure><img src=/a.png alt="a b"><figcaption>a b c</figcaption></figure>'.repeat(n),
    5_000,
  ],
  [
    "images of long alts, no caption",
    (n) => `<img src=/a.png alt="${"a ".repeat(200)}"><div>`.repeat(n),
    2_000,
  ],
  ["code lines in blocks", (n) => `<div><pre>${"<div>x<br></div>\n".repeat(n)}</pre>`, 20_000],
  ["blocks nested in code", (n) => `<div><pre>${"<div>x".repeat(n)}</pre>`, 5_000],
  ["code wrappers nested", (n) => `${'<div class="language-x">'.repeat(n)}<pre>y</pre>`, 10_000],
  [
    "relations of spaces before a word",
    (n) =>
      `<link rel="${" ".repeat(n)}canonicalx" href=/c><p><a rel="${" ".repeat(n)}nex" href=/x>` +
      "next</a></p>",
    200_000,
  ],
  [
    "canonical addresses of many sites, then links",
    (n) =>
      Array.from({ length: n }, (_, i) => `<link rel=canonical href="https://h${i}.e/">`)
        .join("") + "<p><a href=/x>x</a></p>".repeat(n),
    5_000,
  ],
  [
    "teaser thumbnails, each then its title, distinct and alike",
    (n) =>
      Array.from(
        { length: n },
        (_, i) =>
          `<a href=/s${i % 2 ? 1e6 + i : 0}><img src=/p.jpg alt=p></a><h2><a href=/s${
            1e6 + i
          }>t</a></h2>`,
      ).join(""),
    5_000,
  ],
  [
    "teaser thumbnails never titled",
    (n) =>
      Array.from({ length: n }, (_, i) => `<a href=/s${1e6 + i}><img src=/p.jpg alt=p></a>`).join(
        "",
      ),
    5_000,
  ],
  ["headings with permalinks", (n) => "<div><h2><a href=#s>s</a></h2><p>x</p>".repeat(n), 5_000],
  ["comments with replies", (n) => "<ul>" + "<li><p>c</p><a href=#r>Reply</a>".repeat(n), 5_000],
  ["priced links in one block", (n) => "<div>" + "<a href=/p>$9 at X</a> ".repeat(n), 5_000],
  ["priced teasers nested", (n) => "<div><h3><a href=/t>t</a></h3><p>€ 5".repeat(n), 5_000],
  ["replies nested in lists", (n) => "<ul><li><a href=#r>Reply</a>".repeat(n), 5_000],
  [
    "link host of many labels",
    (n) => `<p><a href="https://${"www.".repeat(n)}x/">l</a></p>`,
    100_000,
  ],
  ["icons left open in blocks", (n) => "<div><p>x</p><svg><title/><use/></div>".repeat(n), 5_000],
  [
    "wrappers of menus of titles",
    (n) => "<div><nav><h3><a href=/s>s</a></h3></nav>".repeat(n),
    5_000,
  ],
  ["articles of share-classed bodies", (n) => "<article><div class=share>x</div>".repeat(n), 5_000],
  [
    "headings over cut teasers, each",
    (n) =>
      "<h2>R</h2><div><h3><a href=/a>a</a></h3><h3><a href=/b>b</a></h3><h3><a href=/c>c</a></h3></div>"
        .repeat(n),
    2_000,
  ],
  [
    "articles of teaser articles, nested",
    (n) => "<article><article><h3><a href=/t>t</a></h3></article>".repeat(n),
    2_000,
  ],
  [
    "blocks of teaser cards, nested",
    (n) => "<div><article><a href=/t><h3>t</h3></a></article>".repeat(n),
    2_000,
  ],
  [
    "lists of the site's links, in nested blocks",
    (n) =>
      "<div><ul><li>1 <a href=/n>a headline</a><li><a href=/m>m</a><li><a href=/o>o</a></ul>"
        .repeat(n),
    2_000,
  ],
  [
    "self-closed dropped elements",
    (n) => "<div hidden/><script/>x</script><span/>y".repeat(n),
    5_000,
  ],
  ["footers in nested articles", (n) => "<article><footer><p>x</p>".repeat(n), 5_000],
  ["link tiles, each an article", (n) => "<article><a href=/t>tile</a></article>".repeat(n), 5_000],
  ["titles in nested SVG", (n) => "<svg>".repeat(n) + "<title>t</title><style/>".repeat(n), 5_000],
];

Deno.test({
  name: "every regular expression on page text runs in linear time",
  timeout: 240_000,
  fn: () => assertLinearShapes(TEXT),
});
