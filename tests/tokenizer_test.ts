import assert from "node:assert/strict";
import fc from "fast-check";
import { Tokenizer } from "htmlparser2";
import { htmlToMarkdown } from "../src/fetch/mod.ts";
import { tokenize } from "../src/html/tokenizer.ts";
import { findCorpus } from "../bench/corpus.ts";
import { assertLinear } from "./support/linear_time.ts";

const md = (html: string, content: "main" | "full" = "main") =>
  htmlToMarkdown(html, { baseUrl: "https://example.com/", content }).markdown;

/** Our tokenizer's report of `html`, one line per event. */
function ours(html: string): string[] {
  const events: string[] = [];
  const cut = (start: number, end: number) => html.slice(start, end);
  tokenize(html, {
    ontext: (start, end) => events.push(`text ${cut(start, end)}`),
    onopentagname: (start, end) => events.push(`open ${cut(start, end)}`),
    onattribute: (nameStart, nameEnd, valueStart, valueEnd) =>
      events.push(`attr ${cut(nameStart, nameEnd)}=${cut(valueStart, valueEnd)}`),
    onopentagend: (_end, selfClosing) => events.push(selfClosing ? "end />" : "end >"),
    onclosetag: (start, end) => events.push(`close ${cut(start, end)}`),
    onend: () => events.push("eof"),
  });
  return events;
}

/**
 * htmlparser2's report of `html` in the same terms. Comments and declarations report nothing.
 * Two tags cut short by the end of the page are left out, as ours leaves out every such tag:
 * after a closing tag, htmlparser2 reports text from offset -1 (the page's last character);
 * after the start of a raw-text tag's name (`<scr`), it reports that name as text, `<` dropped.
 */
function theirs(html: string): string[] {
  const events: string[] = [];
  const cut = (start: number, end: number) => html.slice(start, end);
  let name = "";
  let value = "";
  let lastText = -1;
  const none = () => {};
  const tokenizer = new Tokenizer({ decodeEntities: false }, {
    ontext: (start, end) => {
      if (start < 0) return;
      events.push(`text ${cut(start, end)}`);
      lastText = start;
    },
    onopentagname: (start, end) => events.push(`open ${cut(start, end)}`),
    onattribname: (start, end) => {
      name = cut(start, end);
      value = "";
    },
    onattribdata: (start, end) => value += cut(start, end),
    onattribend: () => events.push(`attr ${name}=${value}`),
    onopentagend: () => events.push("end >"),
    onselfclosingtag: () => events.push("end />"),
    onclosetag: (start, end) => events.push(`close ${cut(start, end)}`),
    onend: () => events.push("eof"),
    onattribentity: none,
    ontextentity: none,
    oncomment: none,
    oncdata: none,
    ondeclaration: none,
    onprocessinginstruction: none,
  });
  tokenizer.write(html);
  tokenizer.end();
  const cutName = /<[a-z]+$/i.exec(html);
  if (cutName && lastText === cutName.index + 1 && events.at(-2)?.startsWith("text ")) {
    events.splice(-2, 1);
  }
  return events;
}

/** Pieces that meet every state of an HTML tokenizer when strung together at random. */
// deno-fmt-ignore
const PIECES = [
  "<", "</", ">", "/>", "/", " ", "\n", "\t", "=", '"', "'", "&amp;", "a", "B", "x1", "-",
  "<a", "<p ", "<div", "</a>", "</p", "</div >", "</ x>", "</>", "</3>", "<3", "< b",
  ' href="/x"', " href='y'", " href=/z/", " data-v=a>b", " checked", " =odd", ' a="1" a="2"',
  "<!--", "-->", "--!>", "<!-->", "<!--->", "--", "<!", "<!doctype html>", "<!DOCTYPE", "<?xml ?>",
  "<![CDATA[", "]]>", "]]]>", "<br/>", "<img src=x />", "<hr / >",
  "<script>", "</script>", "</SCRIPT >", "</scriptx>", "<style>", "</style", "<title>",
  "</title>", "<textarea>", "</textarea>", "<xmp>", "</xmp>", "<iframe>", "</iframe>",
  "<noembed>", "</noembed>", "<noframes>", "</noframes>", "<plaintext>", "<scripts>", "<Script ",
  "<scr", "<tit", "<xm",
];

Deno.test({
  name: "splits any string of tag pieces as htmlparser2's tokenizer does",
  timeout: 60_000,
  fn() {
    const page = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(""));
    fc.assert(
      fc.property(page, (html) => assert.deepEqual(ours(html), theirs(html))),
      { numRuns: 20_000, seed: 11 },
    );
  },
});

Deno.test({
  name: "splits every page of the shared corpus as htmlparser2's tokenizer does",
  ignore: findCorpus() === undefined,
  timeout: 60_000,
  fn() {
    const dir = findCorpus()!;
    let pages = 0;
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isDirectory) continue;
      const html = Deno.readTextFileSync(`${dir}/${entry.name}/source.html`);
      const [a, b] = [ours(html), theirs(html)];
      assert.equal(a.length, b.length, entry.name);
      a.forEach((event, i) => assert.equal(event, b[i], `${entry.name}, event ${i}`));
      pages++;
    }
    assert.ok(pages >= 130, `${pages} pages`);
  },
});

Deno.test("comments, doctypes, CDATA and processing instructions show nothing", () => {
  assert.equal(
    md(
      "<!doctype html><p>a<!-- <b>not</b> --> b<!--> c<!---> d<![CDATA[<i>x</i>]]> e<?php x ?></p>",
    ),
    "a b c d e",
  );
  assert.equal(md("<p>kept</p><!-- never closed <p>gone</p>"), "kept");
});

Deno.test("scripts, styles and titles are raw text up to their own closing tag", () => {
  const result = htmlToMarkdown(
    "<title>A <b>bold</b> title</title><script>if (a </b> '</scriptx>') x()</SCRIPT >" +
      "<style>p::after{content:'</p>'}</style><p>text</p>",
    { baseUrl: "https://example.com/" },
  );
  assert.equal(result.title, "A <b>bold</b> title");
  assert.equal(result.markdown, "text");
  // What a textarea holds is its text, tags and all.
  assert.equal(md("<textarea><p>typed</p></textarea><p>after</p>"), "\\<p>typed\\</p>\n\nafter");
});

Deno.test("attribute values: quoted with > inside, unquoted with slashes, first of a name wins", () => {
  assert.equal(
    md(`<p><a title="a > b" href='/one' href="/two">x</a> <a href=/docs/>docs</a></p>`, "full"),
    "[x](https://example.com/one) [docs](https://example.com/docs/)",
  );
});

Deno.test({
  name: "a page cut off inside a tag keeps the text before it",
  timeout: 10_000,
  fn() {
    assert.equal(md('<p>before</p><a href="/never-closed'), "before");
    assert.equal(md("<p>before</p><div class=x"), "before");
    assert.equal(md("<p>before</p></div"), "before");
    // `< ` opens nothing (and needs no escape in Markdown either); `<d` opens a tag, as in a
    // browser.
    assert.equal(md("<p>a < b and c<d</p>"), "a < b and c");
    assert.equal(md("<p>ends with </p>text<"), "ends with\n\ntext\\<");
  },
});

Deno.test({
  name: "hostile shapes are read in one pass: N vs 4N",
  timeout: 60_000,
  async fn() {
    const shapes: [string, (n: number) => string, (n: number) => string | number][] = [
      ["comment never closed", (n) => "<p>a</p><!--" + "-x".repeat(n), () => "a"],
      ["script end tags cut short", (n) => "<p>a</p><script>" + "</scrip ".repeat(n), () => "a"],
      ["attributes", (n) => "<p " + "a=b ".repeat(n) + ">x</p>", () => "x"],
      ["tag name never closed", (n) => "<p>a</p><" + "b".repeat(n), () => "a"],
      ["end tags without names", (n) => "<p>a</p>" + "</".repeat(n) + "x", () => "a"],
      ["less-than signs", (n) => "<p>" + "< ".repeat(n) + "</p>", (n) => 3 * n - 1],
    ];
    for (const [what, build, expected] of shapes) {
      const n = 8_000;
      const out = md(build(n));
      assert.equal(typeof expected(n) === "number" ? out.length : out, expected(n), what);
      await assertLinear(what, build, md, { n });
    }
  },
});
