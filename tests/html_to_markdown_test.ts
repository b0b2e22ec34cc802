import assert from "node:assert/strict";
import { htmlToMarkdown } from "../src/fetch/mod.ts";
import { findCorpus } from "../bench/corpus.ts";
import { assertLinear } from "./support/linear_time.ts";

const BASE = "https://example.com/docs/page.html";
// Images are written as Markdown here, so that their mechanics show; the default (alt text only)
// has its own test.
const md = (html: string) =>
  htmlToMarkdown(html, { baseUrl: BASE, inlineImages: "markdown" }).markdown;
/** Another site than the page's: main mode keeps the targets of links there. */
const OTHER = "https://source.example";
// Link mechanics are the writer's, alike in both modes; main mode writes links to the page's own
// site as text, so they are checked on the whole page.
const full = (html: string) =>
  htmlToMarkdown(html, { baseUrl: BASE, content: "full", inlineImages: "markdown" }).markdown;

Deno.test("headings, paragraphs, line breaks and rules", () => {
  assert.equal(
    md("<h1>Title</h1><p>One<br>two</p><hr><h3>  Sub  <br> head </h3><p>Three</p>"),
    "# Title\n\nOne\ntwo\n\n---\n\n### Sub head\n\nThree",
  );
});

Deno.test("tag and attribute names are read in any case, custom and foreign elements too", () => {
  assert.equal(
    md(
      '<H2>Title</H2><P Class="x">see <A HREF="https://a.org/">this</A>, <a hReF="//b.org/">that</a> and ' +
        "<IMG SRC=/i.png ALT=pic></P><DIV HIDDEN>gone</DIV><Span>kept</Span>" +
        "<SPAN aria-HIDDEN=true>no</SPAN><UL><LI>one<LI>two</UL>",
    ),
    "## Title\n\nsee [this](https://a.org/), [that](https://b.org/) and " +
      "![pic](https://example.com/i.png)\n\nkept\n\n- one\n- two",
  );
  assert.equal(
    md("<p>a<custom-Tag><b>b</B></custom-tag>c</P><SVG><text>drop</text></svg><p>d</p>"),
    "a**b**c\n\nd",
  );
});

Deno.test("nested lists keep their markers and ordered lists keep start", () => {
  assert.equal(
    md('<ul><li>a<ul><li>a1</li><li>a2</li></ul></li><li>b</li></ul><ol start="3"><li>c<li>d</ol>'),
    "- a\n  - a1\n  - a2\n- b\n\n3. c\n4. d",
  );
  assert.equal(md("<ol><li><p>para</p><p>more</p></li></ol>"), "1. para\n\n   more");
});

Deno.test("blockquotes, emphasis, strikethrough and inline code", () => {
  assert.equal(
    md(
      "<blockquote><p>quoted <b>bold</b> <i>it</i></p><p><s>gone</s></p></blockquote><p>after</p>",
    ),
    "> quoted **bold** *it*\n>\n> ~~gone~~\n\nafter",
  );
  assert.equal(
    md("<p>use <code>a ` b</code> and <code>`x`</code></p>"),
    "use ``a ` b`` and `` `x` ``",
  );
  assert.equal(md("<p>x<b> spaced </b>y<em></em></p>"), "x **spaced** y");
});

Deno.test("pre blocks are fenced with their language and a fence longer than any inside", () => {
  assert.equal(
    md('<pre><code class="language-ts">const a = 1;\n\nconst b = "```";\n</code></pre>'),
    '````ts\nconst a = 1;\n\nconst b = "```";\n````',
  );
  assert.equal(md('<pre class="lang-py">x &lt; 1</pre>'), "```py\nx < 1\n```");
});

Deno.test("tables become GFM pipe tables; single-column layout tables are unwrapped", () => {
  assert.equal(
    md(
      "<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td><p>one</p><p>two</p></td></tr></table>",
    ),
    "| Name | Value |\n| --- | --- |\n| a\\|b | one two |",
  );
  assert.equal(
    md("<table><tr><td><h2>Layout</h2><p>Body text</p></td></tr></table>"),
    "## Layout\n\nBody text",
  );
});

Deno.test("ordinary tables keep their columns: spans, short rows, spacer columns", () => {
  assert.equal(
    md("<table><tr><th>a<th>b<th>c<tr><td colspan=2>x<td>y<tr><td>1<td>2<td>3</table>"),
    "| a | b | c |\n| --- | --- | --- |\n| x |  | y |\n| 1 | 2 | 3 |",
  );
  assert.equal(
    md(
      "<table><tr><th>Name<th>Q1<th>Q2<th>Q3<tr><td>a<td>1<tr><td>b<td><td><td>3<tr><td>c<td>1<td>2<td>3</table>",
    ),
    "| Name | Q1 | Q2 | Q3 |\n| --- | --- | --- | --- |\n| a | 1 |  |  |\n| b |  |  | 3 |\n| c | 1 | 2 | 3 |",
  );
  assert.equal(
    md("<table><tr><td colspan=40>wide title<tr><td>k<td>v<tr><td>k2<td>v2</table>"),
    "| | |\n| --- | --- |\n| wide title |  |\n| k | v |\n| k2 | v2 |",
  );
  assert.equal(
    md("<table><tr><td><td>x<td><td>y<tr><td><td>1<td><td>2</table>"),
    "| | |\n| --- | --- |\n| x | y |\n| 1 | 2 |",
  );
  // 64 columns are still a pipe table; so is a header over rows shorter than it.
  const wide = md("<table><tr>" + "<th>h".repeat(64) + "<tr>" + "<td>v".repeat(64) + "</table>");
  assert.equal(wide.split("\n")[2], "|" + " v |".repeat(64));
  const sparse = md("<table><tr>" + "<th>h".repeat(12) + "<tr><td>a".repeat(4) + "</table>");
  assert.equal(sparse.split("\n").length, 6);
});

Deno.test("links and images are absolute, resolved against <base href>, decoded and trimmed", () => {
  assert.equal(
    full('<base href="/root/"><a href="  a?x=1&amp;y=2 ">A</a> <img src="i.png" alt="pic">'),
    "[A](https://example.com/root/a?x=1&y=2) ![pic](https://example.com/root/i.png)",
  );
  assert.equal(full('<a href="//cdn.example.net/x">B</a>'), "[B](https://cdn.example.net/x)");
});

Deno.test("brackets in link text and alt are escaped; odd URLs are wrapped", () => {
  assert.equal(full('<a href="/x">[1]</a>'), "[\\[1\\]](https://example.com/x)");
  assert.equal(full('<img src="/a.png" alt="a [b]">'), "![a \\[b\\]](https://example.com/a.png)");
  assert.equal(
    full('<a href="/wiki/Foo_(bar)">Foo</a>'),
    "[Foo](<https://example.com/wiki/Foo_(bar)>)",
  );
});

Deno.test("javascript:, vbscript:, data: and fragment links become plain text", () => {
  assert.equal(
    md(
      '<a href="javascript:alert(1)">a</a> <a href=" JavaScript:x">b</a> <a href="vbscript:x">c</a> <a href="data:text/html,x">d</a> <a href="#top">e</a>',
    ),
    "a b c d e",
  );
  assert.equal(md('<img src="data:image/png;base64,AAAA" alt="x">'), "");
});

/** Schemes that are not the web's: local files, scripts, data, mail, phones, apps. */
const OFF_WEB = [
  "file:///etc/passwd",
  "file://server/share/x",
  "javascript:alert(1)",
  "vbscript:x",
  "data:text/html,x",
  "ftp://example.com/x",
  "mailto:a@example.com",
  "tel:+15551234567",
  "sms:+15551234567",
  "blob:https://example.com/0b1d",
  "filesystem:https://example.com/temporary/x",
  "about:blank",
  "chrome://settings",
  "view-source:https://example.com/",
  "ws://example.com/socket",
  "whatsapp://send?text=x",
  "intent://scan/#Intent;scheme=zxing;end",
  "ms-settings:privacy",
  "x-custom-app:open",
  "slack://open",
];

/** Ways a page can spell a scheme so that a plain prefix check misses it. */
const SPELLINGS: ((url: string) => string)[] = [
  (url) => url,
  (url) => url.toUpperCase(),
  (url) => `  ${url}`,
  (url) => `\t${url}\n`,
  (url) => url.replace(":", "\t:"),
  (url) => url[0] + "\n" + url.slice(1),
  (url) => url[0] + "&Tab;" + url.slice(1),
  (url) => `&#${url.charCodeAt(0)};${url.slice(1)}`,
  (url) => `&#x${url.charCodeAt(0).toString(16)};${url.slice(1)}`,
  (url) => url.replace(":", "&colon;"),
  (url) => `&#0000${url.charCodeAt(0)}${url.slice(1)}`,
  (url) => `\u0001${url}`,
];

Deno.test("links and images off the web become text, however the scheme is spelled", () => {
  let cases = 0;
  for (const url of OFF_WEB) {
    for (const spell of SPELLINGS) {
      const href = spell(url).replaceAll('"', "&quot;");
      const page = `<p>Read <a href="${href}">the notes</a> and <a href="${href}">${url}</a>.</p>` +
        `<img src="${href}" alt="pic"><img src="/p.png" data-src="${href}" alt="lazy">` +
        `<img srcset="${href} 2000w, /small.png 100w" alt="set">` +
        `<picture><source srcset="${href} 3x"><img src="/fallback.png" alt="pic2"></picture>` +
        `<meta property="og:image" content="${href}">`;
      for (const content of ["main", "full"] as const) {
        const { markdown, images } = htmlToMarkdown(page, { baseUrl: BASE, images: true, content });
        const context = `${JSON.stringify(href)} (${content}): ${markdown}`;
        // Every link and image target left is a web address; the link text stays.
        for (const [, target] of markdown.matchAll(/\]\(<?([^)>\s]*)/g)) {
          assert.match(target, /^https:\/\/example\.com\//, context);
        }
        assert.ok(markdown.startsWith("Read the notes and "), context);
        for (const image of images) assert.match(image.url, /^https:\/\/example\.com\//, context);
        cases++;
      }
    }
  }
  assert.equal(cases, OFF_WEB.length * SPELLINGS.length * 2);
  // Web addresses in the same places stay links and images.
  assert.equal(
    full(
      '<a href=" HTTPS://Example.com/a ">a</a> <a href="HTTP://example.com/b">b</a> <img src="//cdn.example.com/i.png" alt=i>',
    ),
    "[a](https://example.com/a) [b](http://example.com/b) ![i](https://cdn.example.com/i.png)",
  );
});

Deno.test("links resolve as the URL parser resolves them, on every shortcut past it", () => {
  const hrefs = [
    "//cdn.example.org/a/b?c=d#e",
    "//cdn.example.org",
    "//CDN.example.org/x",
    "//xn--bcher-kva.example/x",
    "http://example.org",
    "https://sub.example.org",
    "http://Example.org",
    "http://10.0.0.1",
    "http://example.org.",
    "https://example.org?q",
    "https://example.org/a/../b",
    "/root/./x",
    "/root/%2E%2E/x",
    "relative/x?y",
    "https://example.org#top",
    "https://example.org?q='a'#f",
    "https://example.org/a('b')?c=(d)'e#f(g)'h",
    "/wiki/Foo_(bar)",
    "/a)b/(c?'",
  ];
  for (const href of hrefs) {
    const url = new URL(href, BASE).href;
    // Markdown reads a target with parentheses in angle brackets.
    const target = /[()]/.test(url) ? `<${url}>` : url;
    assert.equal(full(`<a href="${href}">t</a>`), `[t](${target})`, href);
  }
});

Deno.test("relative links against a base off the web become text", () => {
  for (const base of ["file:///home/me/page.html", "ftp://example.com/dir/", "about:blank"]) {
    const { markdown, images } = htmlToMarkdown(
      '<p><a href="x.html">x</a> <a href="//host/y">y</a> <a href="/z">z</a><img src="i.png" alt="i"></p>' +
        '<meta property="og:image" content="/og.png">',
      { baseUrl: base, images: true },
    );
    assert.equal(markdown, "x y z", base);
    assert.deepEqual(images, [], base);
  }
  // A page's own <base href> off the web does the same.
  for (const href of ["file:///", "FILE:///c:/", "ftp://example.com/", "mailto:me@example.com"]) {
    assert.equal(
      md(
        `<base href="${href}"><a href="x">x</a> <img src="i.png" alt="i"> <a href="https://example.org/">o</a>`,
      ),
      "x [o](https://example.org/)",
      href,
    );
  }
});

Deno.test("inlineImages: none (the default), alt text only, or Markdown images; the image list either way", () => {
  const page =
    `<p>See <img src="/chart.png" alt="the [chart]"> and <a href="${OTHER}/a"><img src="/logo.png" alt="Logo"></a>` +
    '<img src="/deco.png" alt=""><img src="/noalt.png"></p>';
  const run = (inlineImages?: "markdown" | "alt" | "none") =>
    htmlToMarkdown(page, { baseUrl: BASE, images: true, inlineImages });
  // By default an image costs the reader nothing and loads nothing where the answer is rendered;
  // the image list has the URLs and alt texts.
  assert.equal(run().markdown, "See and");
  assert.equal(run("none").markdown, run().markdown);
  assert.equal(run("alt").markdown, "See the [chart] and [Logo](https://source.example/a)");
  assert.equal(
    run("markdown").markdown,
    "See ![the \\[chart\\]](https://example.com/chart.png) and [![Logo](https://example.com/logo.png)](https://source.example/a)",
  );
  const listed = run().images.map((image) => image.url);
  assert.equal(listed.length, 4);
  for (const mode of ["markdown", "alt"] as const) assert.deepEqual(run(mode).images, run().images);
  // Alt text is page text: it cannot open a block or a link.
  assert.equal(
    htmlToMarkdown('<img src="/a.png" alt="# [x](javascript:y)">', {
      baseUrl: BASE,
      inlineImages: "alt",
    })
      .markdown,
    "\\# [x\\](javascript:y)",
  );
  assert.throws(
    // @ts-expect-error: checked at run time too
    () => htmlToMarkdown("<p>x</p>", { baseUrl: BASE, inlineImages: "text" }),
    /inlineImages must be "markdown", "alt" or "none", not "text"/,
  );
});

Deno.test("definition lists", () => {
  assert.equal(
    md("<dl><dt>Term</dt><dd>Meaning</dd><dt>T2<dd>M2</dl>"),
    "Term\n: Meaning\nT2\n: M2",
  );
});

/** Enough readable text that the page is not taken for one built by JavaScript. */
const KEPT = "This paragraph is kept: it is the readable text of the page, long enough to read."
  .repeat(2);

Deno.test("scripts, styles, hidden content, the head and comments are dropped", () => {
  const html = `<html><head><title>T</title><style>p{}</style><script>var s=1</script>
    <meta name="description" content="meta text"></head><body>
    <script>alert("x")</script><noscript>enable js</noscript><template><p>tpl</p></template>
    <svg><text>svg text</text></svg><iframe>frame</iframe><canvas>cv</canvas><object>obj</object>
    <!-- a comment --><div hidden>hidden</div><p aria-hidden="true">aria</p>
    <span style="color:red; display : none">styled</span><p>${KEPT}</p><select><option>opt</select></body></html>`;
  const result = htmlToMarkdown(html, { baseUrl: BASE });
  assert.equal(result.markdown, KEPT);
  assert.equal(result.title, "T");
  assert.equal(result.scripted, false);
});

Deno.test("whitespace is normalised and never two blank lines in a row", () => {
  const out = md(
    "<div>\n\n  a   b\t\n</div><p></p><p> </p><br><br><br><div><p>c</p></div>\n\n<p>d&nbsp;e</p>",
  );
  assert.equal(out, "a b\n\nc\n\nd e");
  assert.doesNotMatch(md("<p>a</p>" + "<p><br></p><div></div>".repeat(50) + "<p>b</p>"), /\n\n\n/);
});

Deno.test("entities are decoded", () => {
  assert.equal(md("<p>&lt;tag&gt; &amp; &eacute; &#x1F600; &copy</p>"), "\\<tag> & é 😀 ©");
});

Deno.test("character references decode as in a browser, and decoded text stays text", () => {
  // Text and values are decoded whole: a `]` from a reference cannot forge a link.
  assert.equal(
    full("<p>[a&#93;(https://evil.example/) a&#95;b</p>"),
    "[a\\](https://evil.example/) a_b",
  );
  // In attribute values a reference without `;` before `=` or a letter stays as written.
  assert.equal(
    full('<a href="/s?x=1&copy=2&amp;y=&lt;3">l</a>'),
    "[l](https://example.com/s?x=1&copy=2&y=%3C3)",
  );
  assert.equal(full("<p>&notit; &amp &#66 end&amp</p>"), "¬it; & B end&");
  // Raw text has none: `<xmp>` and data scripts keep theirs as written.
  assert.equal(full("<xmp>&lt;b&gt;</xmp>"), "```\n&lt;b&gt;\n```");
  const title = htmlToMarkdown("<title>A &amp; B</title>x", { baseUrl: BASE }).title;
  assert.equal(title, "A & B");
});

Deno.test("malformed markup is read the way a browser would", () => {
  assert.equal(full("<p>one<p>two<div>three</span></div>four"), "one\n\ntwo\n\nthree\nfour");
  assert.equal(full("<b>bold <i>both</b> italic</i>"), "**bold *both*** italic");
  assert.equal(full("<ul><li>a<li>b</ul>"), "- a\n- b");
  assert.equal(
    full("<a href='/a'>one <a href='/b'>two</a>"),
    "[one](https://example.com/a) [two](https://example.com/b)",
  );
});

Deno.test("images: largest srcset candidate, picture sources, og:image, deduplicated", () => {
  const html =
    `<head><meta property="og:image" content="/og.png"><meta name="twitter:image" content="/og.png"></head>
    <img src="/small.jpg" srcset="/s.jpg 320w, /l.jpg 1280w, /m.jpg 640w" alt="sized">
    <img src="/d.jpg" srcset="/d1.jpg, /d2.jpg 2x" alt="dense">
    <picture><source srcset="/p.webp 1x, /p2.webp 2x" type="image/webp"><img src="/p.jpg" alt="pic"></picture>
    <img src="data:image/gif;base64,R0lGOD" alt="inline"><img src="#x"><img src="/small.jpg" alt="again">`;
  const { images } = htmlToMarkdown(html, { baseUrl: BASE, images: true });
  assert.deepEqual(images, [
    { url: "https://example.com/og.png", alt: "" },
    { url: "https://example.com/l.jpg", alt: "sized" },
    { url: "https://example.com/d2.jpg", alt: "dense" },
    { url: "https://example.com/p2.webp", alt: "pic" },
    { url: "https://example.com/p.jpg", alt: "pic" },
    { url: "https://example.com/small.jpg", alt: "again" },
  ]);
  assert.deepEqual(htmlToMarkdown(html, { baseUrl: BASE }).images, []);
});

Deno.test("at most 1,000 images are collected", () => {
  const html = Array.from({ length: 1_500 }, (_, i) => `<img src="/${i}.png">`).join("");
  assert.equal(htmlToMarkdown(html, { baseUrl: BASE, images: true }).images.length, 1_000);
});

Deno.test("a page with nothing but <noscript> returns that text", () => {
  assert.equal(
    md(
      '<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script>boot()</script>',
    ),
    "You need to enable JavaScript to run this app.",
  );
  assert.equal(md("<div id='app'></div><script>boot()</script>"), "");
});

Deno.test({
  name: "10,000-deep nesting neither overflows nor blows up the output",
  timeout: 20_000,
  fn: () => {
    const depth = 10_000;
    for (
      const [open, close] of [
        ["<div>", "</div>"],
        ["<b>", "</b>"],
        ["<blockquote>", "</blockquote>"],
        ["<ul><li>x", "</li></ul>"],
        ["<table><tr><td>", "</td></tr></table>"],
        ["<a href='/a'>", "</a>"],
      ]
    ) {
      const html = open.repeat(depth) + "deep" + close.repeat(depth);
      const out = md(html);
      assert.ok(out.includes("deep"), open);
      assert.ok(out.length < 1_000_000, `${open}: ${out.length} chars`);
    }
    assert.equal(md("<div>".repeat(depth) + "<p>unclosed"), "unclosed");
  },
});

Deno.test({
  name: "megabyte attributes are read whole and kept out of the text",
  timeout: 20_000,
  fn: () => {
    const big = "x".repeat(1_000_000);
    const html =
      `<p title="${big}" data-x="${big}">a</p><a href="/${big}">link</a><img alt="${big}" src="/i.png"><p style="${
        "color:red;".repeat(100_000)
      }">b</p>`;
    const out = full(html);
    assert.ok(out.startsWith("a\n\n[link](https://example.com/xxx"));
    assert.ok(out.endsWith("\n\nb"));
  },
});

Deno.test("a bad baseUrl is a TypeError that says so", () => {
  assert.throws(() => htmlToMarkdown("<p>x</p>", { baseUrl: "not a url" }), /absolute baseUrl/);
});

const corpus = findCorpus();
if (!corpus) {
  console.log("html_to_markdown corpus tests skipped: corpus not found (set OUTPOST_CORPUS).");
}

Deno.test({
  name: "corpus sample: title found, no script text, every link absolute",
  ignore: !corpus,
  fn() {
    const names = [...Deno.readDirSync(corpus!)].filter((e) => e.isDirectory).map((e) => e.name)
      .sort();
    const sample = names.filter((_, i) => i % 5 === 0);
    assert.ok(sample.length >= 20);
    for (const name of sample) {
      const html = Deno.readTextFileSync(`${corpus}/${name}/source.html`);
      const { title, markdown } = htmlToMarkdown(html, {
        baseUrl: "http://fakehost/test/page.html",
      });
      const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
      if (rawTitle && rawTitle.trim() !== "") {
        const expectedTitle = decodeEntities(rawTitle).replace(/[\t\n\f\r \u00a0]+/g, " ").trim();
        assert.equal(title, expectedTitle, `${name}: title`);
      }
      const flat = markdown.replace(/\s+/g, " ");
      const outsideScripts = html.replace(/<script[\s\S]*?<\/script>/gi, "").replace(/\s+/g, " ");
      for (
        const [, body] of html.matchAll(
          /<script(?![^>]*type="text\/(?:template|html)")[^>]*>([\s\S]*?)<\/script>/gi,
        )
      ) {
        const snippet = body.replace(/\s+/g, " ").trim().slice(0, 60);
        if (snippet.length < 60 || outsideScripts.includes(snippet)) continue;
        assert.ok(!flat.includes(snippet), `${name}: script text leaked: ${snippet}`);
      }
      for (const [, target] of markdown.matchAll(/\]\(<?([^)\s>]*)/g)) {
        assert.match(target, /^[a-z][a-z\d+.-]*:/i, `${name}: relative link ${target}`);
      }
      assert.doesNotMatch(markdown, /\n\n\n/, `${name}: two blank lines`);
    }
  },
});

/** Decodes the entities corpus titles use, independently of the converter's tokenizer. */
function decodeEntities(text: string): string {
  const named: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: "\u00a0",
    mdash: "\u2014",
    ndash: "\u2013",
    raquo: "\u00bb",
    laquo: "\u00ab",
    middot: "\u00b7",
    hellip: "\u2026",
    rsquo: "\u2019",
    lsquo: "\u2018",
    rdquo: "\u201d",
    ldquo: "\u201c",
    bull: "\u2022",
    copy: "\u00a9",
  };
  return text.replace(/&(?:#(\d+)|#x([\da-f]+)|(\w+));/gi, (entity, dec, hex, name) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    const decoded = named[name.toLowerCase()];
    assert.ok(decoded !== undefined, `unknown entity in a corpus title: ${entity}`);
    return decoded;
  });
}

Deno.test("a dropped subtree ends where the browser ends it, not at a same-named tag", () => {
  assert.equal(md('<p>one</p><svg class="icon"/><p>after</p>'), "one\n\nafter");
  assert.equal(md("<p>one</p><svg><use href='#i'/></svg><p>after</p>"), "one\n\nafter");
  // `/>` closes foreign content only: an HTML element opens as without it, what it holds is
  // dropped, and what follows it up to its closing tag is inside it (a script's code, too).
  assert.equal(md("<div hidden/><p>inside</p></div><p>after</p>"), "after");
  for (
    const tag of [
      'script type="text/javascript"',
      "style",
      "iframe",
      "noembed",
      "noframes",
      "noscript",
      "template",
      "select",
      "object",
      "div hidden",
      'span style="display:none"',
    ]
  ) {
    const name = tag.split(" ")[0];
    assert.equal(
      md(`<p>one</p><${tag}/>var a &amp; <b>b</b></${name}><p>after</p>`),
      "one\n\nafter",
    );
  }
  assert.equal(md("<div hidden><div/>inside</div>still inside</div><p>after</p>"), "after");
  assert.equal(md("<p hidden>s<p>visible 1<p>visible 2</p>"), "visible 1\n\nvisible 2");
  assert.equal(md("<ul><li hidden>x<li>a<li>b</ul><p>after</p>"), "- a\n- b\n\nafter");
  assert.equal(
    md('<table><tr><th style="display:none">h<th>v1<th>v2</tr><tr><td>x<td>y</table>'),
    "| v1 | v2 |\n| --- | --- |\n| x | y |",
  );
  assert.equal(
    md("<dl><dt>a<dd hidden>x<dt>term<dd>def</dl><p>after</p>"),
    "a\nterm\n: def\n\nafter",
  );
  assert.equal(md("<option hidden>x<option>y<p>after</p>"), "y\n\nafter");
  assert.equal(md("<basefont hidden><p>after</p>"), "after");
  assert.equal(md("<span hidden>a<span>b</span>c</span>d"), "d");
  assert.equal(md("<div>a<template><p>x</div>y</template>b</div>c"), "ab\nc");
  assert.equal(md("<p>a<span style='display:none-ish'>b</span></p>"), "ab");
});

Deno.test("foreign content and objects left open end where the browser ends them", () => {
  // An end tag of an element open around an unclosed `<svg>`, `<canvas>`, `<object>` or
  // `<datalist>` ends it too: the rest of the page shows.
  for (const open of ["<svg><use href='#i'/>", "<canvas>", "<object data=x>", "<datalist>"]) {
    assert.equal(md(`<div><p>one</p>${open}</div><p>after</p>`), "one\n\nafter", open);
  }
  assert.equal(md("<div><p>one<math><mi>a</div><p>after</p>"), "onea\n\nafter");
  // In SVG, `<title>`, `<style>` and `<script>` are elements, not raw text to their closing
  // tags (an icon's `<title/>`), hidden or not.
  for (const name of ["title", "style", "script"]) {
    assert.equal(md(`<p>one</p><svg><${name}/><path d=""/></svg><p>after</p>`), "one\n\nafter");
    assert.equal(md(`<div hidden><svg><${name}/></svg></div><p>after</p>`), "after");
  }
  // In HTML, they stay raw text.
  assert.equal(md("<p>one</p><title>a<b>c</title><style>p</style><p>after</p>"), "one\n\nafter");
});

Deno.test("adjacent identical emphasis merges instead of breaking the markup", () => {
  assert.equal(full("<i>a</i><i>b</i>"), "*ab*");
  assert.equal(full("<b>a</b><b>b</b>"), "**ab**");
  assert.equal(full("<b><i>a</i></b><b>c</b>"), "***a*c**");
  assert.equal(full("<i>a</i> <i>b</i>"), "*a* *b*");
  assert.equal(
    full("<a href='/a'>a</a><a href='/b'>b</a>"),
    "[a](https://example.com/a) [b](https://example.com/b)",
  );
});

Deno.test("backslashes cannot break link text, alts or angle-bracket URLs", () => {
  assert.equal(full("<a href=/x>a\\]b</a>"), "[a\\\\\\]b](https://example.com/x)");
  assert.equal(full('<img src="/a.png" alt="q\\]">'), "![q\\\\\\]](https://example.com/a.png)");
  assert.equal(full('<a href="/a b?x=\\">q</a>'), "[q](<https://example.com/a%20b?x=%5C>)");
  assert.equal(full('<a href="/a?x=\\">q</a>'), "[q](<https://example.com/a?x=%5C>)");
});

Deno.test("a srcset placeholder does not hide the real image", () => {
  const { images } = htmlToMarkdown(
    '<img src="/real.jpg" srcset="data:image/gif;base64,AAA 1x" alt="r"><img srcset="#x 1x, /b.jpg 2x">',
    { baseUrl: BASE, images: true },
  );
  assert.deepEqual(images, [
    { url: "https://example.com/real.jpg", alt: "r" },
    { url: "https://example.com/b.jpg", alt: "" },
  ]);
});

Deno.test("odd list starts, adjacent quotes, header-only columns and a late <base>", () => {
  assert.equal(md('<ol start="-3"><li>a<li>b</ol>'), "0. a\n1. b");
  assert.equal(md("<blockquote>a</blockquote><blockquote>b</blockquote>"), "> a\n\n> b");
  assert.equal(
    md("<table><tr><th>Name</th></tr><tr><td>a</td></tr></table>"),
    "| Name |\n| --- |\n| a |",
  );
  assert.equal(
    md('<a href="x">1</a><base href="https://other.example/d/"><a href="y">2</a>'),
    "[1](https://other.example/d/x) [2](https://other.example/d/y)",
  );
  assert.equal(md("<p>a<hr>b"), "a\n\n---\n\nb");
  // The first `<base>` applies to links before it too, in any case and whatever follows the
  // name; tags that only start like it do not.
  const decoys =
    '<b>bold</b><basefont href="https://wrong.example/"><Bases href="https://wrong.example/">';
  for (const tag of ["<base ", "<BASE\t", "<BaSe\n", "<bAsE\f", "<basE\r", "<base/"]) {
    assert.equal(
      full(`<a href="x">1</a>${decoys}${tag}href="https://other.example/d/"><a href="y">2</a>`),
      "[1](https://other.example/d/x)**bold**[2](https://other.example/d/y)",
      JSON.stringify(tag),
    );
  }
  // One in a comment or in raw text (a script, a style, a title…) is no tag, as browsers read it.
  const wrong = '<base href="https://wrong.example/">';
  for (
    const hidden of [
      `<!-- ${wrong} -->`,
      `<script>document.write('${wrong}')</script>`,
      `<style>/* ${wrong} */</style>`,
      `<title>${wrong}</title>`,
      `<template>${wrong}</template>`,
    ]
  ) {
    assert.equal(full(`${hidden}<a href="x">1</a>`), "[1](https://example.com/docs/x)", hidden);
    assert.equal(
      full(`<head>${hidden}<base href="https://other.example/d/"></head><a href="x">1</a>`),
      "[1](https://other.example/d/x)",
      hidden,
    );
  }
});

// Hostile shapes that were quadratic: at these sizes a quadratic path takes minutes, so the
// timeout fails the test instead of hanging the run; `deno task bench` measures their scaling.
const HEAD = "<tr><th>h</th><th>i</th></tr>";
Deno.test({
  name: "hostile inputs come out right: long space runs in <pre> and cells, deep tables",
  timeout: 20_000,
  fn() {
    const spaces = " ".repeat(200_000);
    assert.equal(md(`<pre>${spaces}x</pre>`), "```\n" + spaces + "x\n```");
    assert.equal(md(`<pre>x${spaces}</pre>`), "```\nx\n```");
    assert.equal(
      md(`<table>${HEAD}<tr><td>a${"&#x2003;".repeat(100_000)}x</td><td>b</td></tr></table>`),
      `| h | i |\n| --- | --- |\n| a${"\u2003".repeat(100_000)}x | b |`,
    );
    assert.equal(
      md(`<table>${HEAD}<tr><td><pre>${" ".repeat(100_000)}y</pre></td><td>b</td></tr></table>`),
      `| h | i |\n| --- | --- |\n| \`\`\` ${" ".repeat(100_000).trim()}y \`\`\` | b |`,
    );
    const depth = 20_000;
    const nested = `<table>${HEAD}<tr><td>x</td><td>`.repeat(depth) + "deep" +
      "</td></tr></table>".repeat(depth);
    const out = md(nested);
    assert.ok(out.startsWith("h\n\ni\n\nx\n\nh\n\ni\n\nx\n\nh\ni\nx\n"), out.slice(0, 80));
    assert.ok(out.endsWith("\nh\ni\nx\ndeep"), out.slice(-80));
    assert.equal(out.split("x").length - 1, depth);
  },
});

Deno.test({
  name: "stray closing tags deep in a page are ignored at once",
  timeout: 20_000,
  fn() {
    const html = "<b><table><tr><td>" + "<div>".repeat(1_500) + "text" + "</b>".repeat(200_000) +
      "</div>".repeat(1_500) + "</td></tr></table>after</b>";
    assert.equal(md(html), "text\n\n**after**");
  },
});

Deno.test("implicitly closed cells and rows keep all their data", () => {
  assert.equal(
    md("<table><tr><td>a<td>b<tr><td>c<td>d</table>"),
    "| | |\n| --- | --- |\n| a | b |\n| c | d |",
  );
  assert.equal(
    md(
      "<table><thead><tr><th>A<th>B<tbody><tr><td>1<td>2<tr><td>3<td>4<tfoot><tr><td>s<td>t</table>",
    ),
    "| A | B |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n| s | t |",
  );
  const rows = 1_000;
  const out = md("<table>" + "<tr><td>a<td>b<td>c".repeat(rows) + "</table>");
  assert.equal(out.split("\n").length, rows + 2);
  assert.equal(out.split("a").length - 1, rows);
});

Deno.test("layout tables are plain blocks; a header row only from real header cells", () => {
  assert.equal(
    md("<table><tr><td><img src=/a.png alt=a><td><img src=/b.png alt=b></table>"),
    "![a](https://example.com/a.png)\n\n![b](https://example.com/b.png)",
  );
  assert.equal(
    md("<table><tr><td><h2>Head</h2><p>text<td>side<tr><td>1<td>2</table>"),
    "## Head\n\ntext\n\nside\n\n1\n\n2",
  );
  assert.equal(
    md("<table><tr><th>k<td>v<tr><th>k2<td>v2</table>"),
    "| | |\n| --- | --- |\n| k | v |\n| k2 | v2 |",
  );
  // A lone spanning <th> is a title, not a header.
  assert.equal(
    md("<table><tr><th colspan=2>Title<tr><td>k<td>v<tr><td>k2<td>v2</table>"),
    "| | |\n| --- | --- |\n| Title |  |\n| k | v |\n| k2 | v2 |",
  );
});

Deno.test("a <pre> of several lines in a cell keeps its lines", () => {
  assert.equal(
    md("<table><tr><td><pre>a = 1\nb = 2</pre><td>x<tr><td>1<td>2</table>"),
    "```\na = 1\nb = 2\n```\n\nx\n\n1\n\n2",
  );
});

Deno.test("page text cannot forge headings, lists, quotes, links, emphasis or HTML", () => {
  assert.equal(
    full("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
    "\\<script>alert(1)\\</script>",
  );
  assert.equal(full("<p># not a heading</p>"), "\\# not a heading");
  assert.equal(full("<p>1986. A year</p><p>2) two</p>"), "1986\\. A year\n\n2\\) two");
  assert.equal(
    full("<p>- dash</p><p>+ plus</p><p>&gt; quote</p>"),
    "\\- dash\n\n\\+ plus\n\n\\> quote",
  );
  assert.equal(full("<p>a<br>---</p><p>===</p>"), "a\n\\---\n\n\\===");
  assert.equal(full("<p>see [a](b) and ![c](d)</p>"), "see [a\\](b) and ![c\\](d)");
  assert.equal(
    full("<p>*stars* _under_ snake_case `tick`</p>"),
    "\\*stars\\* \\_under\\_ snake_case \\`tick\\`",
  );
  assert.equal(full("<p>Wow!<a href=/x>link</a></p>"), "Wow\\![link](https://example.com/x)");
  // Only where it would matter: mid-line markers and plain prose stay as they are.
  assert.equal(full("<p>a # b - c 1. d > e</p>"), "a # b - c 1. d > e");
  assert.equal(full("<ul><li>1. first</ul>"), "- 1\\. first");
  assert.equal(full("<h2># tag</h2>"), "## # tag");
});

Deno.test("code languages from every common class convention", () => {
  const cases: [string, string][] = [
    ['<pre class="javascript">x</pre>', "javascript"],
    ['<pre><code class="hljs python">x</code></pre>', "python"],
    ['<div class="sourceCode"><pre class="sourceCode r">x</pre></div>', "r"],
    ['<pre class="brush: js; gutter: false">x</pre>', "js"],
    ['<pre data-lang="go">x</pre>', "go"],
    ['<pre class="highlight-source-rust">x</pre>', "rust"],
    ['<pre><code class="lang-ruby">x</code></pre>', "ruby"],
    ['<pre class="prettyprint">x</pre>', ""],
  ];
  for (const [html, language] of cases) assert.equal(md(html), "```" + language + "\nx\n```", html);
});

Deno.test("alt text is capped inside inline images, so the URL stays in view", () => {
  const out = md(`<img src="/i.png" alt="${"word ".repeat(10_000)}">`);
  assert.ok(out.length < 300, `${out.length} chars`);
  assert.ok(out.endsWith("…](https://example.com/i.png)"), out.slice(-60));
});

Deno.test("words the browser shows apart stay apart", () => {
  assert.equal(
    md("<a href=#main>Skip to content</a><a href=#idx>Skip to site index</a>"),
    "Skip to content Skip to site index",
  );
  assert.equal(md("<p>a <button>Show</button><button>Undo</button> b</p>"), "a Show Undo b");
  assert.equal(md("<p><label>Name</label><input>x</p>"), "Name x");
});

Deno.test("tracking parameters are dropped from links and images", () => {
  assert.equal(
    full('<a href="/a?utm_source=x&id=3&fbclid=abc#top">A</a> <a href="/b?UTM_medium=y">B</a>'),
    "[A](https://example.com/a?id=3#top) [B](https://example.com/b)",
  );
  assert.equal(
    full('<a href="/c?gclid=1&mc_eid=2&msclkid=3&_hsenc=4&igshid=5&dclid=6&mc_cid=7">C</a>'),
    "[C](https://example.com/c)",
  );
  assert.equal(
    full('<img src="/i.png?utm_campaign=z" alt="i">'),
    "![i](https://example.com/i.png)",
  );
  // Names that merely start like one stay.
  assert.equal(
    full('<a href="/d?spmode=1&trkid=2">D</a>'),
    "[D](https://example.com/d?spmode=1&trkid=2)",
  );
  // Without a `?` there is no query: a path or fragment that only looks like one stays whole.
  assert.equal(
    full('<a href="/e&utm_source=x">E</a> <a href="/f#g?fbclid=1&utm_medium=y">F</a>'),
    "[E](https://example.com/e&utm_source=x) [F](https://example.com/f#g?fbclid=1&utm_medium=y)",
  );
});

Deno.test("an Amazon affiliate's parameters are dropped from its links, the product kept", () => {
  // A product's page: its path names it; of the query only the variant and seller picked stay.
  assert.equal(
    full(
      '<a href="https://www.amazon.com/Fluke-117/dp/B000O3LUEI?&linkCode=ll1&tag=xy-20' +
        '&linkId=ffe3&language=en_US&ref_=as_li_ss_tl">Fluke</a>',
    ),
    "[Fluke](https://www.amazon.com/Fluke-117/dp/B000O3LUEI)",
  );
  assert.equal(
    full(
      '<a href="https://amazon.co.uk/gp/product/B01ABCDEFG?ie=UTF8&tag=a-21&camp=1634' +
        '&creativeASIN=B01ABCDEFG&th=1&hvadid=3098&hvpos=&keywords=klein%2B11061&psc=1">B</a>',
    ),
    "[B](https://amazon.co.uk/gp/product/B01ABCDEFG?th=1&psc=1)",
  );
  // Elsewhere in the store the query may be the page's (a search's words): only the affiliate's
  // and the click's parameters go.
  assert.equal(
    full('<a href="https://www.amazon.de/s?k=multimeter&tag=x-21&ref=nb_sb_noss&qid=17">S</a>'),
    "[S](https://www.amazon.de/s?k=multimeter)",
  );
  // On other sites such names are the site's own: a tag, a reference.
  assert.equal(
    full(
      '<a href="https://example.org/dp/B000O3LUEI?tag=rust&ref_=x&linkId=3">P</a> ' +
        '<a href="https://amazon.com.evil.example/p?tag=1">Q</a>',
    ),
    "[P](https://example.org/dp/B000O3LUEI?tag=rust&ref_=x&linkId=3) " +
      "[Q](https://amazon.com.evil.example/p?tag=1)",
  );
});

Deno.test("one link per <a>, however many blocks or lines it wraps", () => {
  assert.equal(
    full('<a href="/card"><h3>Title</h3><p>Description</p><img src=/t.png alt="thumb"></a>'),
    "### [Title](https://example.com/card)\n\nDescription\n\n![thumb](https://example.com/t.png)",
  );
  assert.equal(full('<a href="/x">line1<br>line2</a>'), "[line1 line2](https://example.com/x)");
});

Deno.test("a link whose text is its address is printed once", () => {
  assert.equal(
    full(
      '<a href="https://example.org/docs">https://example.org/docs</a> <a href="https://example.org/">example.org</a>',
    ),
    "https://example.org/docs https://example.org/",
  );
  assert.equal(full('<a href="/y">other text</a>'), "[other text](https://example.com/y)");
});

Deno.test("tracking pixels, spacers, beacons and decorative images are dropped", () => {
  assert.equal(
    md(
      '<img src="/p.gif" width="1" height="1"><img src="/z.png" width="0"><img src="https://www.facebook.com/tr?id=1&ev=PageView"><img src="/spacer.gif"><img src="https://ssl.google-analytics.com/collect?v=1"><img src="/deco.png" alt=""><img src="/real.png" alt="Real">',
    ),
    "![Real](https://example.com/real.png)",
  );
  const { images } = htmlToMarkdown('<img src="/p.gif" width="1"><img src="/a.png" alt="">', {
    baseUrl: BASE,
    images: true,
  });
  assert.deepEqual(images, [{ url: "https://example.com/a.png", alt: "" }]);
});

const PARA = "This is the article text, long enough to count as the content of the page. ".repeat(
  4,
);

Deno.test("main content: landmark kept; navigation, banners, share bars, asides and footers left out", () => {
  const html = `<body><a href="#main">Skip to content</a>
    <header><nav><ul><li><a href=/a>Home</a><li><a href=/b>News</a><li><a href=/c>Sport</a></ul></nav></header>
    <div class="cookie-banner">We use cookies <button>Accept</button></div>
    <main id=main><h1>Headline</h1><p>${PARA}</p>
    <div class="share-bar"><a href=/s1>Share</a> <a href=/s2>Tweet</a></div><p>Second paragraph.</p></main>
    <aside><h2>Related</h2><ul><li><a href=/r1>Other story</a><li><a href=/r2>Another</a></ul></aside>
    <footer><p>© 2026 Example</p><a href=/privacy>Privacy</a></footer></body>`.replaceAll(
    "href=/",
    `href=${OTHER}/`,
  );
  const main = htmlToMarkdown(html, { baseUrl: BASE });
  assert.equal(main.markdown, `# Headline\n\n${PARA.trim()}\n\nSecond paragraph.`);
  const full = htmlToMarkdown(html, { baseUrl: BASE, content: "full" });
  assert.equal(full.omitted, 0);
  assert.ok(full.markdown.startsWith("Skip to content\n\n- [Home]"), full.markdown.slice(0, 40));
  assert.ok(full.markdown.includes("© 2026 Example"));
  assert.equal(main.omitted, full.markdown.length - main.markdown.length);
});

Deno.test("main content without landmarks: furniture by name, role and link density left out", () => {
  const html = `<div id="menu"><a href=/a>Home</a> <a href=/b>News</a> <a href=/c>Sport</a></div>
    <div class="post"><h1>T</h1><p>${PARA}</p><p>See <a href=${OTHER}/x>this source</a> for more.</p></div>
    <div role="complementary"><p>Ads and such</p></div>
    <div><a href=/t1>tag</a>, <a href=/t2>tag2</a>, <a href=/t3>tag3</a></div>
    <div class="comments"><h3>Comments</h3><form><textarea></textarea><button>Post</button></form></div>
    <section id="sharing-with-a-friend"><p>Sections named like furniture stay.</p></section>`;
  const { markdown, omitted } = md2(html);
  assert.equal(
    markdown,
    `# T\n\n${PARA.trim()}\n\nSee [this source](https://source.example/x) for more.\n\nSections named like furniture stay.`,
  );
  assert.ok(omitted > 0);
});

Deno.test("main content: a single dominant <article> is the content; several are not", () => {
  const one = `<div>${
    "<p>intro</p>".repeat(3)
  }</div><article><p>${PARA}</p></article><p>outside</p>`;
  assert.equal(md2(one).markdown, PARA.trim());
  const index = `<article><p>${PARA}</p></article><article><p>${PARA}</p></article><p>outside</p>`;
  assert.equal(md2(index).markdown, `${PARA.trim()}\n\n${PARA.trim()}\n\noutside`);
});

Deno.test("main content: where nothing stands out the whole page is returned", () => {
  const links = Array.from({ length: 30 }, (_, i) => `<li><a href=/s${i}>Story ${i}</a></li>`);
  const html = `<ul>${links.join("")}</ul>`;
  const result = md2(html);
  assert.equal(result.omitted, 0);
  assert.equal(result.markdown.split("\n").length, 30);
  // A <main> holding almost nothing is no content to keep alone.
  const thin = `<main><p>Hi</p></main><div><p>${PARA}</p></div>`;
  assert.equal(md2(thin).markdown, `Hi\n\n${PARA.trim()}`);
});

Deno.test("main content: furniture framing the landmark stays; interface text stays out", () => {
  const html =
    `<div class="sidebar-layout"><main><p>${PARA}</p><p>Read <button>Show more</button> on.</p></main></div>`;
  assert.equal(md2(html).markdown, `${PARA.trim()}\n\nRead on.`);
});

Deno.test("content option is checked", () => {
  assert.throws(
    () => htmlToMarkdown("<p>x</p>", { baseUrl: BASE, content: "some" as "main" }),
    /content must be "main" or "full"/,
  );
});

function md2(html: string) {
  return htmlToMarkdown(html, { baseUrl: BASE });
}

Deno.test("a page built by JavaScript gives its description and data blocks", () => {
  const html = `<head><meta name="description" content="A shop for *shoes*.">
    <script type="application/ld+json">{ "@type": "Product", "name": "Red shoe",
      "offers": { "price": "49.00" } }</script></head>
    <body><div id="__next"></div>
    <script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"title":"Hello"}}}</script>
    <script type="application/json">{broken</script><script>window.x = {"a": 1}</script></body>`;
  const result = md2(html);
  assert.equal(result.scripted, true);
  assert.equal(
    result.markdown,
    'A shop for \\*shoes\\*.\n\n```json\n{"@type":"Product","name":"Red shoe","offers":{"price":"49.00"}}\n```\n\n```json\n{"props":{"pageProps":{"title":"Hello"}}}\n```',
  );
  // Pages with text of their own keep the data out.
  const page = md2(`<meta name="description" content="d"><p>${PARA}</p>`);
  assert.equal(page.markdown, PARA.trim());
  assert.equal(page.scripted, false);
});

Deno.test({
  name: "a page's data blocks are read within a budget",
  timeout: 20_000,
  fn() {
    const big = JSON.stringify({ text: "x".repeat(3_000_000) });
    const result = md2(`<script type="application/ld+json">${big}</script>`);
    assert.equal(result.markdown, "");
    const some = md2(
      `<script type="application/ld+json">${JSON.stringify({ t: "y".repeat(50_000) })}</script>`,
    );
    assert.ok(some.markdown.length < 21_000, `${some.markdown.length}`);
    assert.ok(some.markdown.endsWith("…\n```"));
  },
});

/** Named pages of the corpus, each with link targets of its navigation. */
const NAVIGATION: Record<string, string[]> = {
  "bbc-1": ["](http://fakehost/accessibility/)", "](http://fakehost/sport/)"],
  "cnn": ["](http://money.cnn.com/investing/thebuzz/"],
  "guardian-1": ["](https://www.theguardian.com/us/commentisfree)"],
  "wapo-1": ["](http://www.posttv.com/"],
  "engadget": ["](https://www.engadget.com/user/login)"],
  "ars-1": ["](http://fakehost/information-technology/)"],
  "telegraph": ["](http://fakehost/premium/)"],
  "buzzfeed-1": ["](http://fakehost/animals)"],
  "seattletimes-1": ["](http://fakehost/seattle-news/transportation/)"],
  "wordpress": ["](https://wptavern.com/category/bbpress)"],
  "heise": ["navi_oben_ct"],
  "lemonde-1": ["](http://fakehost/international/)"],
  "royal-road": ["](http://fakehost/fictions/trending)"],
};

Deno.test({
  name: "corpus: main content drops the navigation of named pages and keeps their article",
  ignore: !corpus,
  fn() {
    for (const [name, targets] of Object.entries(NAVIGATION)) {
      const html = Deno.readTextFileSync(`${corpus}/${name}/source.html`);
      const expected = Deno.readTextFileSync(`${corpus}/${name}/expected.html`);
      const options = { baseUrl: "http://fakehost/test/page.html" };
      const main = htmlToMarkdown(html, options);
      const full = htmlToMarkdown(html, { ...options, content: "full" });
      for (const target of targets) {
        assert.ok(full.markdown.includes(target), `${name}: ${target} in the full page`);
        assert.ok(!main.markdown.includes(target), `${name}: ${target} left out`);
      }
      assert.ok(main.omitted > 0 && main.markdown.length < full.markdown.length, name);
      const article = htmlToMarkdown(expected, { ...options, content: "full" }).markdown;
      const recall = shareOfGrams(article, main.markdown);
      assert.ok(recall >= 0.95, `${name}: article recall ${recall.toFixed(3)}`);
    }
  },
});

/** The share of `article`'s distinct word 5-grams found in `output`. */
function shareOfGrams(article: string, output: string): number {
  const grams = (text: string) => {
    const words = text.replace(/\]\([^)]*\)/g, "]").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const set = new Set<string>();
    for (let i = 0; i + 5 <= words.length; i++) set.add(words.slice(i, i + 5).join(" "));
    return set;
  };
  const expected = grams(article);
  const found = grams(output);
  let hits = 0;
  for (const gram of expected) if (found.has(gram)) hits++;
  return expected.size === 0 ? 1 : hits / expected.size;
}

Deno.test({
  name: "hostile input in main-content mode stays linear and small: N vs 4N",
  timeout: 60_000,
  async fn() {
    // Furniture between every paragraph: every stretch is cut, the text kept.
    const furniture = (n: number) =>
      "<p>kept words here</p><nav><a href=/a>a</a> <a href=/b>b</a></nav>".repeat(n);
    const out = md(furniture(2_000));
    assert.equal(out.split("kept words here").length - 1, 2_000);
    assert.ok(!out.includes("](https://example.com/a)"));
    await assertLinear("furniture between paragraphs", furniture, md, { n: 500 });
    // A huge class name made of furniture words, and huge ids.
    const names = (n: number) =>
      `<div class="${"share_".repeat(n)}" id="${"share_".repeat(n)}"><p>x</p></div><p>${PARA}</p>`;
    assert.equal(md(names(8_000)), PARA.trim());
    await assertLinear("class and id of furniture words", names, md, { n: 8_000 });
    // Cells full of furniture, and tens of thousands of implicit cells.
    const cells = (n: number) =>
      `<table>${"<tr><td>v<nav><a href=/n>n</a></nav><td>w".repeat(n)}</table>`;
    const table = md(cells(2_000));
    assert.equal(table.split("| v | w |").length - 1, 2_000);
    assert.ok(table.length < 20 * 2_000);
    await assertLinear("cells of furniture", cells, md, { n: 500 });
    // Landmarks nested deep, and many articles.
    const deep = (n: number) => "<main><article>".repeat(n) + PARA;
    assert.equal(md(deep(2_000)), PARA.trim());
    await assertLinear("landmarks nested deep", deep, md, { n: 1_000 });
    const articles = (n: number) => `<article><p>${"word ".repeat(30)}</p></article>`.repeat(n);
    assert.ok(md(articles(500)).length < articles(500).length);
    await assertLinear("many articles", articles, md, { n: 200 });
  },
});

Deno.test("main content: a sentence of short links is prose, not a menu", () => {
  const html =
    `<main><p><a href=${OTHER}/n>Ann Lee</a> has been eliminated from “<a href=${OTHER}/s>The Show</a>.”</p>
    <p>${PARA}</p><p>See <a href=${OTHER}/x>Xavier</a> and <a href=${OTHER}/y>Yvonne</a>.</p>
    <p><a href=/h>Home</a> · <a href=/a>About</a> · <a href=/c>Contact</a></p></main>`;
  assert.equal(
    md(html),
    "[Ann Lee](https://source.example/n) has been eliminated from “[The Show](https://source.example/s).”" +
      `\n\n${PARA.trim()}\n\nSee [Xavier](https://source.example/x) and [Yvonne](https://source.example/y).`,
  );
});

Deno.test("main content: an article's footer is about it, not of it", () => {
  const meta = "<p>Posted in News by Ann Lee on 3 May. Tags: rivers, boats. Licence CC BY.</p>";
  const post = `<header><h1>Title</h1><p>By Ann Lee</p></header><p>${PARA}</p>`;
  const text = `# Title\n\nBy Ann Lee\n\n${PARA.trim()}`;
  assert.equal(md(`<article>${post}<footer>${meta}</footer></article>`), text);
  assert.equal(md(`<main><section>${post}<footer>${meta}</footer></section></main>`), text);
  // A footer that holds most of the article is kept.
  assert.equal(
    md(`<article><h1>Title</h1><footer><p>${PARA}</p></footer></article>`),
    `# Title\n\n${PARA.trim()}`,
  );
});

Deno.test("main content: a block mostly of links to the site's own pages is its feed, however long", () => {
  const headlines = Array.from(
    { length: 4 },
    (_, i) =>
      `<li>12:0${i} <a href=/news/${i}>A long headline of another story, number ${i}</a></li>`,
  ).join("");
  const post = `<h1>Title</h1><p>${PARA}</p>`;
  const text = `# Title\n\n${PARA.trim()}`;
  assert.equal(md(`<main>${post}<ul>${headlines}</ul></main>`), text);
  // Whether links keep their targets or not.
  const withLinks = htmlToMarkdown(`<main>${post}<ul>${headlines}</ul></main>`, {
    baseUrl: BASE,
    links: true,
  });
  assert.equal(withLinks.markdown, text);
  // Cards in blocks, each an image and a title, are alike.
  const cards = Array.from(
    { length: 4 },
    (_, i) =>
      `<div><a href=/t${i}><img src=/t${i}.jpg alt="Story ${i}"><b>Story ${i}</b></a></div>`,
  ).join("");
  assert.equal(md(`<main>${post}<div>${cards}</div></main>`), text);
  // A paragraph of them is a sentence, whatever its links.
  const sentence = `<p>See <a href=/a>how the harbour was rebuilt after the storm</a>, ` +
    `<a href=/b>why the ferry stopped running that year</a> and ` +
    `<a href=/c>the mayor's plan for a bridge across the river</a>.</p>`;
  assert.equal(md(`<main>${post}${sentence}</main>`).split("\n\n").length, 3);
  // Links to other sites are sources or references: kept.
  const sources = headlines.replaceAll("href=/news", `href=${OTHER}/news`);
  assert.equal(md(`<main>${post}<ul>${sources}</ul></main>`).split("\n").length, 3 + 4 + 1);
});

Deno.test('main content: a section\'s title and its "more" link to one place are no menu', () => {
  const section =
    `<div><h2><a href="/opinion">Opinion</a></h2><a href="/opinion">More in Opinion ›</a>` +
    `</div><p>${PARA}</p>`;
  assert.equal(md(section), `## Opinion\n\nMore in Opinion ›\n\n${PARA.trim()}`);
  // Two places are a choice, as in a menu.
  const menu = section.replace('href="/opinion">More', 'href="/sport">More');
  assert.equal(md(menu), PARA.trim());
});

Deno.test("main content: embedded posts are content, whatever their social class word", () => {
  const tweet = "A quoted post that the article discusses at some length, word for word.";
  const html = `<article><p>${PARA}</p><div class="social-media-embed"><blockquote><p>${tweet}</p>
    </blockquote></div><p>After.</p></article><div class="social-links"><a href=/f>Facebook</a></div>`;
  assert.equal(md(html), `${PARA.trim()}\n\n> ${tweet}\n\nAfter.`);
});

Deno.test("main content: a related-posts box of nested articles does not win over the post", () => {
  const teaser = (i: number) =>
    `<article><h3><a href=/t${i}>Teaser headline number ${i} of the box</a></h3><p>A teaser's` +
    ` summary of another story that runs to a few words.</p></article>`;
  const post = `<p>${PARA}</p><p>${PARA}</p><p>${PARA}</p>`;
  const box = (inner: string) => `<div class="post"><h1>Title</h1>${post}</div>${inner}`;
  const kept = `# Title\n\n${[PARA, PARA, PARA].map((p) => p.trim()).join("\n\n")}`;
  const nested = box(
    `<div class="related-posts"><article>${
      Array.from({ length: 7 }, (_, i) => teaser(i)).join("")
    }</article></div>`,
  );
  assert.equal(md(nested), kept);
  const siblings = box(
    `<section class="related">${Array.from({ length: 7 }, (_, i) => teaser(i)).join("")}</section>`,
  );
  assert.equal(md(siblings), kept);
});

Deno.test("main content: Blogger's post wrapper is no widget", () => {
  const html = `<div class="widget PageList"><ul><li><a href=/>Home</a><li><a href=/p>About</a></ul>
    </div><div class="widget Blog" id="Blog1"><div class="post hentry"><h3>Post</h3><p>${PARA}</p>
    </div></div><div class="widget BlogArchive"><ul><li><a href=/a1>2024</a><li><a href=/a2>2025</a>
    </ul></div><div class="widget Profile"><p>${"About me, the author of this blog. ".repeat(4)}</p>
    </div><div class="widget Text"><p>${
    "A note in the sidebar, on every page. ".repeat(6)
  }</p></div>`;
  assert.equal(md(html), `### Post\n\n${PARA.trim()}`);
});

Deno.test("main content: a page builder's widget blocks hold the post; a sidebar widget does not", () => {
  // Builders name every block of the post `*-widget-*`; a sidebar's widgets carry the class
  // `widget` itself, or `widget_<type>`.
  const block = (text: string) =>
    `<div class="pb-widget-wrap"><div class="pb-widget pb-widget-text-editor"><div ` +
    `class="pb-widget-container"><p>${text}</p></div></div></div>`;
  const parts = ["First part of the post.", "Second part of the post.", "Third part."].map(
    (part) => `${part} ${PARA}`.trim(),
  );
  const sidebar =
    `<div class="side"><div class="widget widget_text"><p>${
      "A note in the sidebar, shown beside every post of the site. ".repeat(4)
    }</p></div><div class="widget_custom_html"><p>${"Another box of the sidebar. ".repeat(8)}</p>` +
    `</div></div>`;
  assert.equal(md(parts.map(block).join("") + sidebar), parts.join("\n\n"));
});

Deno.test("main content: a list the text introduces is the article's, however short its links", () => {
  const names = ["Al's Moving", "Big Apple Movers", "Careful Brothers", "Dumbo Moving"];
  const list = `<ul>${
    names.map((name, i) => `<li><a href=/m/${i}>${name}</a></li>`).join("")
  }</ul>`;
  const intro = "These movers did not make our top list, but are worth a look:";
  const items = names.map((name) => `- ${name}`).join("\n");
  const page = (box: string) => `<main><h1>Movers</h1><p>${PARA}</p>${box}<p>${PARA}</p></main>`;
  const kept = `# Movers\n\n${PARA.trim()}\n\n${intro}\n\n${items}\n\n${PARA.trim()}`;
  assert.equal(md(page(`<p>${intro}</p>${list}`)), kept);
  // In a block of its own, which its links would make a menu's.
  const block = `<div><h3>Other movers</h3><p>${intro}</p>${list}</div>`;
  assert.equal(md(page(block)), kept.replace(intro, `### Other movers\n\n${intro}`));
  // Not introduced, it is a menu; introduced in furniture, furniture.
  const menu = `# Movers\n\n${PARA.trim()}\n\n${PARA.trim()}`;
  assert.equal(md(page(list)), menu);
  assert.equal(md(page(`<div class="sidebar"><p>Follow us:</p>${list}</div>`)), menu);
});

Deno.test("main content: a list a sentence introduces is the article's when its prose goes on", () => {
  const names = ["Python", "Intro to SQL", "Advanced SQL", "Data Cleaning"];
  const list = `<ul>${
    names.map((name, i) => `<li><a href=/course/${i}>${name}</a></li>`).join("")
  }</ul>`;
  const intro = "The platform offers a series of courses. Each leads to a certificate.";
  const items = names.map((name) => `- ${name}`).join("\n");
  const page = (after: string) =>
    `<main><h1>Courses</h1><p>${PARA}</p><p>${intro}</p>${list}${after}</main>`;
  const head = `# Courses\n\n${PARA.trim()}\n\n${intro}`;
  assert.equal(md(page(`<p>${PARA}</p>`)), `${head}\n\n${items}\n\n${PARA.trim()}`);
  // The next section's title and figure between, then its prose.
  assert.equal(
    md(page(`<h2>Next</h2><figure><img src=/n.png alt=Next></figure><p>${PARA}</p>`)),
    `${head}\n\n${items}\n\n## Next\n\n![Next](https://example.com/n.png)` +
      `\n\n${PARA.trim()}`,
  );
  // After the post's last paragraph, a feed: nothing of the post follows it, or only what
  // another block holds, or no prose.
  const cut = head;
  assert.equal(md(page("")), cut);
  assert.equal(md(page(`<div><p>${PARA}</p></div>`)).startsWith(`${cut}\n\n${PARA.trim()}`), true);
  assert.equal(md(page("<p>Share this page.</p>")), `${cut}\n\nShare this page.`);
  assert.equal(
    md(`<main><div><p>${PARA}</p><p>${intro}</p>${list}</div><div><p>${PARA}</p></div></main>`),
    `${PARA.trim()}\n\n${intro}\n\n${PARA.trim()}`,
  );
});

Deno.test("main content: a page builder's block named widget, all prose, is the post's", () => {
  // HubSpot's `widget-span`, SiteOrigin's `so-panel widget`: class words of a sidebar's boxes.
  const parts = [1, 2, 3].map((i) => `Part ${i} of the post. ${PARA}${PARA}${PARA}${PARA}`.trim());
  const blocks = parts.map((part, i) =>
    `<div class="${
      i ? "so-panel widget widget_sow-editor" : "span12 widget-span"
    }"><p>${part}</p></div>`
  ).join("");
  const sidebar = `<div class="widget widget_text"><p>${"About this blog. ".repeat(12)}</p></div>` +
    `<div class="widget widget_recent"><ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li></ul></div>`;
  assert.equal(
    md(`<main><h1>Post</h1>${blocks}${sidebar}</main>`),
    `# Post\n\n${parts.join("\n\n")}`,
  );
});

Deno.test("main content: a page builder's panel is the post's, however short", () => {
  // SiteOrigin's `so-panel widget`: a short lead, then the body, each a panel.
  const lead = "This guide gives prices for electrical work around the city. It is a guide only.";
  const panel = (text: string) =>
    `<div class="so-panel widget widget_sow-editor"><p>${text}</p></div>`;
  const sidebar = `<div class="widget widget_text"><p>About this blog.</p></div>`;
  assert.equal(
    md(`<main><h1>Prices</h1>${panel(lead)}${panel(PARA)}${sidebar}</main>`),
    `# Prices\n\n${lead}\n\n${PARA.trim()}`,
  );
});

Deno.test("main content: an accordion's question, a button in a heading, is the heading's text", () => {
  const item = (i: number) =>
    `<div class="faq-item"><h3><button aria-expanded=false><span>Question ${i}?</span></button>` +
    `</h3><div><p>Answer ${i}. ${PARA}</p></div></div>`;
  const answers = [1, 2].map((i) => `### Question ${i}?\n\nAnswer ${i}. ${PARA.trim()}`);
  assert.equal(
    md(`<main><h1>FAQ</h1>${item(1)}${item(2)}<button>Load more</button></main>`),
    `# FAQ\n\n${answers.join("\n\n")}`,
  );
});

Deno.test("main content: sections titled with links to their own place are no teasers", () => {
  const section = (i: number) =>
    `<section><h2 id=s${i}><a href="#s${i}">Part ${i}</a></h2><p>What part ${i} says.</p></section>`;
  const html = `<main><h1>Reference</h1><p>${PARA}</p><div>${
    [1, 2, 3, 4].map(section).join("")
  }</div></main>`;
  const parts = [1, 2, 3, 4].map((i) => `## Part ${i}\n\nWhat part ${i} says.`).join("\n\n");
  assert.equal(md(html), `# Reference\n\n${PARA.trim()}\n\n${parts}`);
});

Deno.test("main content: a dialog of the site's policies, however long, leaves the page its text", () => {
  // A product page ten times shorter than the policies its footer opens in dialogs.
  const policy = `<p>${
    "We keep what you tell us for as long as the law asks us to. ".repeat(12)
  }</p>`;
  const html = `<main><h1>Wool shoe</h1><p>${PARA}</p></main><footer><a href=/p>Privacy</a>` +
    `</footer><div role="dialog"><h2>Privacy policy</h2>${policy.repeat(12)}</div>`;
  assert.equal(md(html), `# Wool shoe\n\n${PARA.trim()}`);
});

Deno.test("main content: a layout table's cell keeps the post, whatever the post's class", () => {
  // An emailed newsletter's page: the post, named like furniture, in a layout table's cell.
  const post = `<div class="newsletter-issue"><h1>Issue</h1><p>${PARA}</p><p>${PARA}</p><div ` +
    `class="share"><a href=/s>Share</a> <a href=/t>Post</a></div></div>`;
  const side = `<div class="promo"><p>${
    "A word from a sponsor, in a column beside the post. ".repeat(5)
  }</p></div>`;
  const html = `<table role=presentation><tr><td>${post}</td><td>${side}</td></tr></table>`;
  const result = htmlToMarkdown(html, { baseUrl: BASE });
  assert.equal(result.markdown, `# Issue\n\n${PARA.trim()}\n\n${PARA.trim()}`);
  assert.ok(result.omitted > side.length / 2);
});

Deno.test("main content: a <main> nested in the page's <main> does not stand for the page", () => {
  const place = "A place the guide describes, in a main element of its own, with a few words. "
    .repeat(3).trim();
  const html =
    `<nav><a href=/a>Home</a> <a href=/b>News</a></nav><main><h1>Guide</h1><p>${PARA}</p>` +
    `<div class="place"><main><p>${place}</p></main></div><p>${PARA}</p></main>`;
  assert.equal(md(html), `# Guide\n\n${PARA.trim()}\n\n${place}\n\n${PARA.trim()}`);
});

Deno.test("main content: when little text remains, the best candidate, not the whole page", () => {
  const post = "The one post of this thread, which says what the forum thread is about. ".repeat(6);
  const menu = Array.from({ length: 40 }, (_, i) => `<li><a href=/m${i}>Forum ${i}</a>`).join("");
  const html = `<nav><ul>${menu}</ul></nav><div class="comments"><div class="comment"><p>${post}` +
    `</p><div><a href=/r>Reply</a> <a href=/q>Quote</a></div></div></div><footer><ul>${menu}</ul></footer>`;
  assert.equal(md(html), post.trim());
});

Deno.test("main content: a chapter beside its table of contents is kept, the contents cut", () => {
  const toc = Array.from(
    { length: 14 },
    (_, i) => `<dt><span><a href="/docs/s${i}.html">11.${i}. Section number ${i}</a></span></dt>`,
  ).join("");
  const intro = "Indexes are a common way to enhance database performance. An index allows the " +
    "server to find rows much faster than it could without one. But indexes add overhead to " +
    "the system as a whole, so they should be used sensibly.";
  const nav =
    `<div><a href="/docs/p.html">Prev</a> <a href="/docs/">Up</a> <a href="/docs/n.html">Next</a></div>`;
  const chapter = `<div class="chapter"><h2>Chapter 11. Indexes</h2><div class="toc"><p><b>` +
    `Table of Contents</b></p><dl>${toc}</dl></div><p>${intro}</p></div>`;
  const html = `<div><a href="/">Home</a> <a href="/docs/">Docs</a></div><div id="docContent">` +
    `${nav}${chapter}${nav}</div><div><h2>Corrections</h2><p>${PARA}</p></div>`;
  assert.equal(
    md(html),
    `## Chapter 11. Indexes\n\n${intro}\n\n## Corrections\n\n${PARA.trim()}`,
  );
  // A block of menus with a few words of its own is still cut.
  const menus = `<div><p>Follow us</p><ul>${toc}</ul><p>Copyright 2024 The Site</p></div>`;
  assert.equal(md(`<div><h1>Title</h1><p>${PARA}</p></div>${menus}`), `# Title\n\n${PARA.trim()}`);
});

Deno.test("main content: a listing's cards with summaries are its content when little else is", () => {
  const summary =
    "What the program teaches, who it is for and how long it runs, in a sentence of its own. "
      .repeat(2).trim();
  const menu = Array.from({ length: 20 }, (_, i) => `<li><a href=/m${i}>Menu entry ${i}</a>`)
    .join("");
  const page = (body: string) =>
    `<nav><ul>${menu}</ul></nav><main><h1>Programs</h1>${body}</main><footer><ul>${menu}</ul>` +
    `</footer>`;
  const items = (title: (i: number) => string) =>
    Array.from(
      { length: 6 },
      (_, i) => `<div><a href=/p${i}>${title(i)}<p>${summary}</p></a></div>`,
    )
      .join("");
  const listing = (title: (i: number) => string) =>
    Array.from({ length: 6 }, (_, i) => `${title(i)}\n\n${summary}`).join("\n\n");
  // Cards whose whole box is the link, a title and its summary: a page of programs…
  const cards = items((i) => `<div>Program ${i}</div>`);
  assert.equal(
    md(page(`<article><div>${cards}</div></article>`)),
    `# Programs\n\n${listing((i) => `Program ${i}`)}`,
  );
  // … or of search results, each titled by a heading.
  const results = items((i) => `<h3>Result ${i}</h3>`);
  assert.equal(
    md(page(`<div>${results}</div>`)),
    `# Programs\n\n${listing((i) => `### Result ${i}`)}`,
  );
  // Beside an article they are teasers ("Trending"), cut with their heading.
  const article = `<p>${PARA}</p><p>${PARA}</p><h2>Trending</h2>`;
  const text = `# Programs\n\n${PARA.trim()}\n\n${PARA.trim()}`;
  assert.equal(md(page(`${article}<div>${cards}</div>`)), text);
  assert.equal(md(page(`${article}<div>${results}</div>`)), text);
});

Deno.test("tables: a rowspan keeps the next rows' cells in their columns", () => {
  assert.equal(
    md(
      "<table><tr><th>A<th>B<th>C<tr><td rowspan=2>x<td>1<td>2<tr><td>3<td>4<tr><td>y<td>5<td>6</table>",
    ),
    "| A | B | C |\n| --- | --- | --- |\n| x | 1 | 2 |\n|  | 3 | 4 |\n| y | 5 | 6 |",
  );
  assert.equal(
    md("<table><tr><th>A<th>B<th>C<tr><td>1<td rowspan=3 colspan=2>wide<tr><td>2<tr><td>3</table>"),
    "| A | B | C |\n| --- | --- | --- |\n| 1 | wide |  |\n| 2 |  |  |\n| 3 |  |  |",
  );
});

Deno.test("tables: <tfoot> prints after the body, wherever it stands", () => {
  assert.equal(
    md(
      "<table><thead><tr><th>Item<th>Cost</thead><tfoot><tr><th>Item<th>Cost</tfoot>" +
        "<tbody><tr><td>a<td>1<tr><td>b<td>2</tbody></table>",
    ),
    "| Item | Cost |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n| Item | Cost |",
  );
});

Deno.test("MathML prints once, as the TeX of its annotation", () => {
  const math = (display: string) =>
    `<math${display}><semantics><mrow><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>+</mo><msup><mi>x</mi>` +
    `<mn>2</mn></msup></mrow><annotation encoding="application/x-tex">\\frac{a}{b}+x^2` +
    `</annotation></semantics></math>`;
  assert.equal(md(`<p>So ${math("")} holds.</p>`), "So $\\frac{a}{b}+x^2$ holds.");
  assert.equal(
    md(`<p>So</p>${math(' display="block"')}<p>holds.</p>`),
    "So\n\n$$\\frac{a}{b}+x^2$$\n\nholds.",
  );
  // Without TeX, its text as the browser shows it.
  assert.equal(md("<p>x <math><mi>y</mi></math> z</p>"), "x y z");
});

Deno.test("code language from the class of the block wrapping the <pre>", () => {
  assert.equal(
    md('<div class="highlight highlight-source-rust notranslate"><pre>fn main() {}</pre></div>'),
    "```rust\nfn main() {}\n```",
  );
  assert.equal(
    md(
      '<div class="language-python highlighter-rouge"><div class="highlight"><pre>x = 1</pre></div></div><pre>y</pre>',
    ),
    "```python\nx = 1\n```\n\n```\ny\n```",
  );
});

Deno.test("a code block's lines in blocks: each a line, closed by its own closing tag", () => {
  // An editor's markup: one <div> per line, inside a <div> around the <pre>, in the page's
  // <main>. A line's </div> closed the editor's wrapper, and the code block after one line.
  const line = (code: string) => `<div class="line"><span class="k">${code}</span><br/></div>`;
  const editor = `<div class="editor"><pre><code>${line("if (a) {")}${line("  b();")}` +
    `<div class="line">}</div></code></pre></div>`;
  const code = "```\nif (a) {\n  b();\n}\n```";
  assert.equal(
    md(`<main><p>${PARA}</p>${editor}<p>${PARA}</p></main>`),
    `${PARA.trim()}\n\n${code}\n\n${PARA.trim()}`,
  );
  assert.equal(md("<pre>x<div>y</div>z</pre>"), "```\nx\ny\nz\n```");
  assert.equal(md("<p><code>a<div>b</div>c</code></p>"), "`a b c`");
  // A closing tag for a block opened before the code still ends it, as in a browser.
  assert.equal(md("<div><pre>x</div><p>after</p>"), "```\nx\n```\n\nafter");
});

Deno.test("footnote references and their notes are Markdown footnotes", () => {
  const html = `<p>As a source says.<sup id="fnref1"><a href="#fn1">1</a></sup> And another` +
    `<a href="#fn2" class="footnote-ref"><sup>[2]</sup></a>.</p><ol class="footnotes">` +
    `<li id="fn1"><p>The first note. <a href="#fnref1" class="footnote-back">↩︎</a></p></li>` +
    `<li id="fn2">The second note. <a href="#fnref2">↩</a></li></ol>`;
  assert.equal(
    md(html),
    "As a source says.[^1] And another[^2].\n\n[^1]: The first note.\n\n[^2]: The second note.",
  );
});

Deno.test("< is escaped only where it could start a tag", () => {
  assert.equal(
    md("<p>5 &lt; 6 and 3 &lt;= 4, a&lt;b, &lt;/x&gt; &lt;!-- c</p>"),
    "5 < 6 and 3 <= 4, a\\<b, \\</x> \\<!-- c",
  );
  assert.equal(md("<p>x &lt;<b>y</b></p>"), "x \\<**y**");
});

Deno.test("heading permalink marks and back-links cost nothing", () => {
  assert.equal(
    md(
      '<h2 id="s">Setup<a class="headerlink" href="#s">¶</a></h2><h3>Use <a href="#u">#</a></h3>' +
        '<p>Text <a href="#top">↑</a> and <a href="#faq">the FAQ</a>.</p>',
    ),
    "## Setup\n\n### Use\n\nText and the FAQ.",
  );
});

Deno.test("an image without alt text costs nothing in the text; one its caption repeats, no alt", () => {
  const page =
    '<p>See <img src="/noalt.png"> <a href="/big.png"><img src="/thumb.png"></a>here.</p>' +
    '<p><img src="/i.jpg" alt="IMG_3886.JPG"></p>' +
    '<figure><a href="/f.png"><img src="/f.png" alt="A cat on a mat."></a>\n<figcaption>' +
    "A cat on a mat. (Photo: Ann)</figcaption></figure>" +
    '<figure><img src="/g.png" alt="A dog"><figcaption>Rex, 2019</figcaption></figure>';
  const result = htmlToMarkdown(page, { baseUrl: BASE, images: true, inlineImages: "markdown" });
  assert.equal(
    result.markdown,
    "See here.\n\n![](https://example.com/f.png)\nA cat on a mat. (Photo: Ann)" +
      "\n\n![A dog](https://example.com/g.png)\nRex, 2019",
  );
  assert.equal(result.images.length, 5);
  // As alt text, an image its caption repeats is left to the caption; by default, every image.
  assert.equal(
    htmlToMarkdown(page, { baseUrl: BASE, inlineImages: "alt" }).markdown,
    "See here.\n\nA cat on a mat. (Photo: Ann)\n\nA dog\nRex, 2019",
  );
  assert.equal(
    htmlToMarkdown(page, { baseUrl: BASE }).markdown,
    "See here.\n\nA cat on a mat. (Photo: Ann)\n\nRex, 2019",
  );
});

Deno.test("titles that are links, ad labels and zero-width lines cost few tokens", () => {
  const html = `<main><h1><a href="/post/1">The post</a></h1><p>${PARA}</p>` +
    '<div class="x">Advertisement</div><p>Continue reading the main story</p><p>\u200b\u200b</p>' +
    '<div><p>Advertisement</p><a href="#after-ad">Continue reading the main story</a></div>' +
    `<h2>See <a href="${OTHER}/y">why</a></h2><p>Last.</p></main>`;
  assert.equal(
    md(html),
    `# The post\n\n${PARA.trim()}\n\n## See [why](https://source.example/y)\n\nLast.`,
  );
  // The whole page keeps every link.
  const full = htmlToMarkdown(html, { baseUrl: BASE, content: "full" }).markdown;
  assert.ok(full.startsWith("# [The post](https://example.com/post/1)"), full.slice(0, 50));
});

Deno.test("main content: a list of thousands of links is cut however much of the page it is", () => {
  const names = Array.from({ length: 300 }, (_, i) => `<a href=/u${i}>reader_${i}</a>`).join(", ");
  const html = `<div class="post"><p>${PARA}</p><p>${PARA}</p></div><p class="kudos">${names}` +
    " and 12 guests left kudos on this work!</p>";
  assert.equal(md(html), `${PARA.trim()}\n\n${PARA.trim()}`);
});

Deno.test("main content: an <aside> is cut however long, a class-named block only when small", () => {
  const feed = Array.from({ length: 12 }, (_, i) => `<p>Live item ${i}: ${PARA}</p>`).join("");
  const html =
    `<main><h1>Title</h1><p>${PARA}</p><aside role="complementary">${feed}</aside></main>`;
  assert.equal(md(html), `# Title\n\n${PARA.trim()}`);
  // A wrapper only named like furniture that holds most of the page is its content.
  const named = `<div class="sidebar-wrap"><p>${PARA}</p><p>${PARA}</p></div><p>Small print.</p>`;
  assert.equal(md(named), `${PARA.trim()}\n\n${PARA.trim()}\n\nSmall print.`); // A list so named is a collection (a thread, a gallery's legends), cut however long.
  const items = Array.from({ length: 8 }, (_, i) => `<li><h2>Slide ${i}</h2><p>${PARA}</p></li>`);
  for (const name of ["comments", "legends"]) {
    const list = `<div><h1>Title</h1><p>${PARA}</p><ul class="${name}">${
      items.join("")
    }</ul></div>`;
    assert.equal(md(list), `# Title\n\n${PARA.trim()}`);
  }
});

Deno.test("main content: a <header> is the page's banner, but a section's own heading", () => {
  const html = `<header><p>Site banner text</p></header><div><section><header><h2>Part one</h2>` +
    `<p>The part's standfirst.</p></header><p>${PARA}</p></section></div>`;
  assert.equal(md(html), `## Part one\n\nThe part's standfirst.\n\n${PARA.trim()}`);
});

Deno.test("main content: a list of teasers is cut however long, with no class word", () => {
  const summary =
    "A teaser's summary of another story, a sentence or two that runs on for a while. "
      .repeat(3);
  const teasers = Array.from(
    { length: 12 },
    (_, i) =>
      `<li><a href=/t${i}><img src=/t${i}.jpg alt=""></a><div><h3>\n <a href=/t${i}>Headline ` +
      `number ${i} of the stream</a></h3><p>${summary}</p><div>Publisher</div></div></li>`,
  ).join("");
  const html = `<main><h1>Title</h1><p>${PARA}</p><p>${PARA}</p><h2>Recommended for You</h2>` +
    `<ul class="x">${teasers}</ul></main>`;
  // Its heading goes with it (see the test of headings left with nothing under them).
  assert.equal(md(html), `# Title\n\n${PARA.trim()}\n\n${PARA.trim()}`);
  // A title may open with a kicker before its link.
  const kicked = teasers.replaceAll("<h3>\n <a", "<h3><b>Opinion</b> <a");
  assert.equal(md(html.replace(teasers, kicked)), md(html));
  // So may cards whose whole box is the link, heading and summary inside it.
  const cards = Array.from(
    { length: 12 },
    (_, i) => `<li><a href=/c${i}><h3>Headline number ${i}</h3><p>${summary}</p></a></li>`,
  ).join("");
  assert.equal(md(html.replace(teasers, cards)), md(html));
  // Sections whose linked titles head long prose are the article.
  const sections = Array.from(
    { length: 3 },
    (_, i) => `<h2><a href=/s${i}>Section ${i}</a></h2><p>${PARA}</p><p>${PARA}</p>`,
  ).join("");
  assert.equal(md(`<div>${sections}</div>`).split("\n\n").length, 9);
});

Deno.test("main content: an article of teaser articles is cut as a list of teasers", () => {
  const cards = Array.from(
    { length: 4 },
    (_, i) => `<article><a href=/t${i}><h3>Headline number ${i}</h3><p>Sub.</p></a></article>`,
  ).join("");
  const post = `<div><h1>Title</h1><p>${PARA}</p><p>${PARA}</p></div>`;
  assert.equal(
    md(`${post}<article><h2>More</h2>${cards}</article>`),
    `# Title\n\n${PARA.trim()}\n\n${PARA.trim()}`,
  );
  // Articles of prose inside one are its sections, kept.
  const sections = Array.from(
    { length: 3 },
    (_, i) =>
      `<article><h3><a href=/s${i}>Part ${i}</a></h3><p>${PARA}</p><p>${PARA}</p></article>`,
  ).join("");
  assert.equal(md(`<article>${sections}</article>`).split("\n\n").length, 9);
});

Deno.test("main content: a small article that is mostly its link is a teaser tile", () => {
  const tile = (i: number) =>
    `<article><a href=/s${i}><img src=/s${i}.jpg><span>Headline of story ${i}</span>` +
    `<span>Top</span></a></article>`;
  const post = `<h1>Title</h1><p>${PARA}</p><p>${PARA}</p>`;
  const html = `<section>${tile(1)}${tile(2)}<div>${post}</div>${tile(3)}${tile(4)}</section>`;
  assert.equal(md(html), `# Title\n\n${PARA.trim()}\n\n${PARA.trim()}`);
  // A page of tiles alone is given whole.
  assert.match(md(`${tile(1)}${tile(2)}`), /^Headline of story 1.*\nHeadline of story 2/);
});

Deno.test("main content: a block of teaser cards, each an <article>, is a list of teasers", () => {
  const cards = Array.from(
    { length: 4 },
    (_, i) =>
      `<article><a href=/t${i}><img src=/t${i}.jpg alt=""><h3>Headline number ${i}</h3>` +
      `<p>A line about it.</p></a></article>`,
  ).join("");
  const post = `<div><h1>Title</h1><p>${PARA}</p><p>${PARA}</p></div>`;
  const text = `# Title\n\n${PARA.trim()}\n\n${PARA.trim()}`;
  assert.equal(md(`${post}<div>${cards}</div>`), text);
  // A block that also holds the post's prose is its frame, not a list (its cards, each a small
  // article that is mostly its link, are teasers all the same).
  assert.equal(md(`<div>${post}${cards}</div>`), text);
});

Deno.test("main content: a heading whose whole section was cut goes with it", () => {
  const teasers = Array.from(
    { length: 4 },
    (_, i) =>
      `<div><h3><a href=/t${i}>Headline of another story ${i}</a></h3><p>Summary.</p></div>`,
  ).join("");
  const post = `<h1>Title</h1><p>${PARA}</p>`;
  const text = `# Title\n\n${PARA.trim()}`;
  // Up to the next heading of its level or above, or to the end of the content.
  assert.equal(
    md(`<main>${post}<h2>Related</h2><div>${teasers}</div><h2>Next</h2><p>${PARA}</p></main>`),
    `${text}\n\n## Next\n\n${PARA.trim()}`,
  );
  assert.equal(
    md(`<main>${post}<h3>Related</h3><div>${teasers}</div><h2>Next</h2><p>${PARA}</p></main>`),
    `${text}\n\n## Next\n\n${PARA.trim()}`,
  );
  assert.equal(md(`<main>${post}<h2>More</h2><div>${teasers}</div><nav>x</nav></main>`), text);
  // A heading over a subsection, or over prose after a share bar, keeps its section.
  assert.equal(
    md(`<main>${post}<h2>Part</h2><div>${teasers}</div><h3>Sub</h3><p>${PARA}</p></main>`),
    `${text}\n\n## Part\n\n### Sub\n\n${PARA.trim()}`,
  );
  assert.equal(
    md(`<main>${post}<h2>Part</h2><div class=share><a href=/s>s</a></div><p>${PARA}</p></main>`),
    `${text}\n\n## Part\n\n${PARA.trim()}`,
  );
});

Deno.test("main content: a block that holds most of the article is its body, whatever its class", () => {
  const body = `<p>${PARA}</p>`.repeat(3);
  const comment = "A reader's comment on the post, a few sentences long, and signed. ".repeat(5);
  for (const name of ["entry themeform share", "post-body widget", "sidebar-layout content"]) {
    const html = `<article><h1>Title</h1><div class="${name}">${body}</div></article>` +
      `<div class="comments">${`<p>${comment}</p>`.repeat(6)}</div>`;
    assert.equal(md(html), `# Title\n\n${`${PARA.trim()}\n\n`.repeat(3).trim()}`, name);
  }
  // A share bar inside the article is still cut.
  const bar = `<div class="share"><p>Share this post with your friends and followers.</p></div>`;
  assert.doesNotMatch(md(`<article><h1>Title</h1>${body}${bar}</article>`), /Share this/);
});

Deno.test("main content: a wrapper of the post and of menus or teasers is no list of teasers", () => {
  const post = `<h1>Title</h1>${`<p>${PARA}</p>`.repeat(3)}`;
  // A block of the page outside the wrapper, enough to be kept with it.
  const about = "About this site: a paragraph on who writes it and why, kept with the post. "
    .repeat(4);
  const expected = `# Title\n\n${`${PARA.trim()}\n\n`.repeat(3)}${about.trim()}`;
  // A menu of linked headings, then the post, in one unnamed wrapper.
  const menu = Array.from(
    { length: 12 },
    (_, i) => `<h3><a href=/s${i}>Section ${i}</a></h3><a href=/s${i}/a>Part a</a>`,
  ).join("");
  assert.equal(md(`<div><nav>${menu}</nav><div>${post}</div></div><p>${about}</p>`), expected);
  // The same menu unnamed, the post, and a sidebar menu: what remains around the post is a third
  // links, but the post's prose is more than two teasers hold.
  const side = Array.from({ length: 15 }, (_, i) => `<a href=/m${i}>Menu item ${i}</a>`).join(" ");
  assert.equal(
    md(`<div><div>${menu}</div><div>${post}</div><div>${side}</div></div><p>${about}</p>`),
    expected,
  );
  // The post, then two boxes of teasers, in one unnamed wrapper.
  const teasers = Array.from(
    { length: 4 },
    (_, i) =>
      `<div><h3><a href=/t${i}>Headline of another story ${i}</a></h3><p>Summary.</p></div>`,
  ).join("");
  assert.equal(
    md(`<div>${post}<div>${teasers}</div><div>${teasers}</div></div><p>${about}</p>`),
    expected,
  );
});

Deno.test("main content: links to the page's own site are text, links elsewhere keep their target", () => {
  const body = `<main><p>Read the notes on <a href="/wiki/Rust">Rust</a> first, then the list in ` +
    `<a href="https://www.example.com/b">part B</a>, the copy at <a href="https://mirror.example/c">C</a>` +
    ` and <a href="${OTHER}/d">a source</a> for all of it.</p><p>${PARA}</p></main>`;
  const text = ` for all of it.\n\n${PARA.trim()}`;
  assert.equal(
    md(body),
    "Read the notes on Rust first, then the list in part B, the copy at " +
      `[C](https://mirror.example/c) and [a source](${OTHER}/d)${text}`,
  );
  // The site a canonical address names is the page's own too (a copy, a mirror, an AMP page).
  const head = '<link rel="canonical" href="https://mirror.example/post">';
  assert.equal(
    md(head + body),
    `Read the notes on Rust first, then the list in part B, the copy at C and [a source](${OTHER}/d)${text}`,
  );
  // A link that continues the page, by its relation or its words, keeps its target.
  const paging = `<main><p>${PARA}</p><p>Read on in <a rel="next" href="/p2">part two</a> or the ` +
    `<a href="/p0">previous part</a>, and <a href="/older">older posts</a> are there, not ` +
    `<a href="/about">the rest</a>.</p></main>`;
  assert.ok(
    md(paging).endsWith(
      "Read on in [part two](https://example.com/p2) or the [previous part](https://example.com/p0), and " +
        "[older posts](https://example.com/older) are there, not the rest.",
    ),
    md(paging),
  );
  // The whole page keeps every link.
  assert.ok(full(body).startsWith("Read the notes on [Rust](https://example.com/wiki/Rust)"));
});

Deno.test("main content: a link is on the page's own site only by its whole host", () => {
  const links = [
    "HTTPS://WWW.EXAMPLE.COM/a",
    "https://example.com:8443/b",
    "//example.com?c",
    "https://example.com.evil.example/d",
    "https://example.community/e",
    "https://example.com@evil.example/f",
    "https://sub.example.com/g",
  ].map((href, i) => `<a href="${href}">L${i}</a>`).join(", ");
  assert.equal(
    md(`<main><p>The story is told at ${links}.</p><p>${PARA}</p></main>`).split("\n\n")[0],
    "The story is told at L0, L1, L2, [L3](https://example.com.evil.example/d), [L4](https://example.community/e), " +
      "[L5](https://example.com@evil.example/f), [L6](https://sub.example.com/g).",
  );
});

Deno.test("main content: a link whose target carries a long payload prints as its text", () => {
  const payload = "x".repeat(400);
  const html =
    `<main><p>${PARA}</p><p>Buy the <a href="${OTHER}/shop/gloves/dp/B01?session=${payload}">` +
    `gloves</a>, see <a href="${OTHER}/?url=${payload}">the offer</a> or <a href="${OTHER}/click/` +
    `${payload}">the ad</a>; read <a href="${OTHER}/guide?page=2">the guide</a>.</p></main>`;
  const main = htmlToMarkdown(html, { baseUrl: BASE }).markdown;
  assert.equal(
    main,
    `${PARA.trim()}\n\nBuy the gloves, see the offer or the ad; ` +
      `read [the guide](${OTHER}/guide?page=2).`,
  );
  // Asked for every address, the model gets them whole.
  const kept = htmlToMarkdown(html, { baseUrl: BASE, links: true }).markdown;
  assert.ok(kept.includes(`(${OTHER}/click/${payload})`));
  assert.ok(kept.includes(`(${OTHER}/shop/gloves/dp/B01?session=${payload})`));
});

Deno.test("main content: a link target is written once, a place on this page not at all", () => {
  const html = `<main><p>See <a href="${OTHER}/wiki/Rust?utm_source=x">Rust</a>, then ` +
    `<a href="${OTHER}/wiki/Rust">the language</a> again, and ` +
    `<a href="${BASE}#History">its history</a> or <a href="page.html#Use">its use</a>.</p>` +
    `<p>${PARA}</p></main>`;
  assert.equal(
    md(html),
    `See [Rust](https://source.example/wiki/Rust), then the language again, and its history or ` +
      `its use.\n\n${PARA.trim()}`,
  );
  // A menu likely to be cut does not take the article's link; the whole page keeps every one.
  const menu = `<div class="menu"><a href=${OTHER}/wiki/Rust>Rust</a></div>${html}`;
  assert.ok(md(menu).startsWith("See [Rust](https://source.example/wiki/Rust), then the language"));
  const full = htmlToMarkdown(html, { baseUrl: BASE, content: "full" }).markdown;
  assert.ok(full.includes("[the language](https://source.example/wiki/Rust)"), full);
});

Deno.test("main content: the site's name over the title is cut, a title's own link is not", () => {
  const post = `<h1>The title</h1><p>${PARA}</p>`;
  const kept = `# The title\n\n${PARA.trim()}`;
  assert.equal(md(`<h1><a href="/">The Site</a></h1>${post}`), kept);
  assert.equal(
    md(`<h1 class="x"><a href="../index.html"><span>The Site</span></a></h1>${post}`),
    kept,
  );
  assert.equal(md(`<a href="https://example.com/"><div><h1>The Site</h1></div></a>${post}`), kept);
  // A heading linking anywhere else, or with more than the link, stays.
  assert.equal(md(`<h2><a href="/news/">News</a></h2>${post}`), `## News\n\n${kept}`);
  assert.equal(md(`<h2>Back <a href="/">home</a></h2>${post}`).split("\n\n").length, 3);
  // Another site's home page: a brand the article is about ("4. One&Only Resorts").
  const brands = [1, 2].map((i) =>
    `<h5><strong><a href="https://brand${i}.example/">${i}. Brand ${i}</a></strong></h5><p>${PARA}</p>`
  ).join("");
  assert.equal(
    md(`<main><h1>Best brands</h1>${brands}</main>`),
    `# Best brands\n\n##### **[1. Brand 1](https://brand1.example/)**\n\n${PARA.trim()}` +
      `\n\n##### **[2. Brand 2](https://brand2.example/)**\n\n${PARA.trim()}`,
  );
});

Deno.test("main content: a teaser's thumbnail is cut, a linked screenshot is kept", () => {
  const summary = "A summary of the story, a sentence or two that says what it is about. ".repeat(
    3,
  );
  const card = (i: number, before: boolean) => {
    const img = `<figure><a href=/story-${i}><img src=/p${i}.jpg alt="A photo of scene ${i}">` +
      `</a><figcaption>Credit Photographer ${i}</figcaption></figure>`;
    const title = `<h2><a href=/story-${i}>Story number ${i}</a></h2>`;
    return `<li><article>${before ? img + title : title + img}<p>${summary}</p></article>`;
  };
  // A section front whose every block is a teaser (the fallback), thumbnails before or after.
  for (const before of [true, false]) {
    const out = md(`<main><ol>${[0, 1, 2].map((i) => card(i, before)).join("")}</ol></main>`);
    assert.ok(!out.includes("!["), out);
    assert.ok(!out.includes("A photo of scene"), out);
    assert.match(out, /## Story number 2/);
    assert.match(out, /Credit Photographer 2/);
  }
  // In an article, a screenshot linked to its page of full size, or a portrait to its person's
  // page, is the article's picture: no title leads there.
  const post = `<article><h1>Post</h1><p>${PARA}</p><a href=/shots/1><img src=/s1.png ` +
    `alt="The main window"></a><p>${PARA}</p><h2><a href=/other>Another story</a></h2></article>`;
  assert.match(md(post), /!\[The main window\]\(https:\/\/example\.com\/s1\.png\)/);
});

Deno.test("main content: reader comments in a plain list are cut, an article that is a list stays", () => {
  const comment = (i: number) =>
    `<li><div><a href=/users/${i}>Reader ${i}</a> <time datetime=2024-05-0${i}>May ${i}, 2024</time>` +
    `</div><p>What reader ${i} thinks of the article, at some length, in a comment of their own.</p>` +
    `<div><a href="/post?replytocom=${i}">Reply</a></div>`;
  const post = `<h1>Post</h1><p>${PARA}</p><p>${PARA}</p>`;
  const kept = `# Post\n\n${PARA.trim()}\n\n${PARA.trim()}`;
  const thread = `<ol>${[1, 2, 3].map(comment).join("")}</ol>`;
  assert.equal(md(`<main>${post}${thread}</main>`), kept);
  // Nested replies, and a thread in an unnamed <ul> after the article.
  const nested = `<ul><li>${comment(1).slice(4)}<ul>${[2, 3].map(comment).join("")}</ul></ul>`;
  assert.equal(md(`<main>${post}${nested}</main>`), kept);
  assert.equal(md(`<main>${post}<div class="discussion">${thread}</div></main>`), kept);
  // A listicle whose body is a list, with an author link and a date in each item: no replies.
  const item = (i: number) =>
    `<li><h2>Step ${i}</h2><p>${PARA}</p><p>By <a href=/a>Ann</a>, <time>May ${i}</time></p>`;
  const listicle = md(`<main><h1>Ten steps</h1><ol>${[1, 2, 3].map(item).join("")}</ol></main>`);
  assert.match(listicle, /Step 3/);
  assert.ok(listicle.split(PARA.trim()).length === 4, listicle);
});

Deno.test("main content: a product call-out keeps its name and price with its bullets", () => {
  const card = (i: number) =>
    `<div class="product-card"><h3 class="product-card__name"><a href="https://shop.example/p${i}` +
    `?tag=aff-20">Acme Kettle ${i}</a></h3><p class="product-card__price"><span>$4${i}.99</span>` +
    ` <del>$59.99</del></p><ul><li>Boils a litre in ${i} minutes</li><li>Keeps warm for an hour` +
    `</li></ul><p><a class="button" href="https://shop.example/p${i}?tag=aff-20">Buy at Shop</a> ` +
    `<a class="button" href="https://other.example/p${i}">$5${i} at Other</a></p></div>`;
  const expected = (i: number) =>
    `### Acme Kettle ${i}\n\n$4${i}.99 ~~$59.99~~\n\n` +
    `- Boils a litre in ${i} minutes\n- Keeps warm for an hour\n\n[Buy at Shop](https://` +
    `shop.example/p${i}?tag=aff-20) [$5${i} at Other](https://other.example/p${i})`;
  const p = PARA.trim();
  // One product in a review, and three in a buying guide (linked titles, yet no teasers).
  assert.equal(
    md(`<article><h1>Review</h1><p>${PARA}</p>${card(1)}<p>${PARA}</p></article>`),
    `# Review\n\n${p}\n\n${expected(1)}\n\n${p}`,
  );
  assert.equal(
    md(`<article><h1>Best kettles</h1><p>${PARA}</p><div>${[1, 2, 3].map(card).join("")}</div>`),
    `# Best kettles\n\n${p}\n\n${[1, 2, 3].map(expected).join("\n\n")}`,
  );
  // A headline's sum is no price: teasers about money are still teasers.
  const teaser = (i: number) =>
    `<li><h3><a href=/t${i}>Bank number ${i} fined $28.8 million</a></h3>`;
  assert.equal(
    md(`<article><h1>Post</h1><p>${PARA}</p><ul>${[1, 2, 3].map(teaser).join("")}</ul></article>`),
    `# Post\n\n${p}`,
  );
});
