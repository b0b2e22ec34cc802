import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeHTML, decodeHTMLAttribute } from "entities/decode";
import { htmlToMarkdown } from "../src/fetch/mod.ts";
import { decode } from "../src/html/decode.ts";
import { assertLinear } from "./support/linear_time.ts";
import { namedReferences } from "./support/named_references.ts";

// The `entities` package's decoders are the reference: they follow the HTML standard, and
// src/html/named_references.ts is written from their table.
const expected = (text: string, attribute: boolean) =>
  attribute ? decodeHTMLAttribute(text) : decodeHTML(text);

Deno.test("a reference that stands for two code units is read whole: astral letters, letters with a mark", () => {
  const md = (html: string) => htmlToMarkdown(html, { baseUrl: "https://example.com/" }).markdown;
  assert.equal(md("<p>&Afr; &NotEqualTilde; &fjlig;</p>"), "𝔄 ≂̸ fj");
  assert.equal(
    htmlToMarkdown('<img alt="&Afr;&bne;" src="/a.png">', {
      baseUrl: "https://example.com/",
      inlineImages: "markdown",
    }).markdown,
    "![𝔄=⃥](https://example.com/a.png)",
  );
  const double = namedReferences().filter(({ value }) => value.length === 2);
  assert.ok(double.length > 50, `${double.length} references of two code units`);
  for (const { name, value } of double) assert.equal(decode(`&${name};`, false), value, name);
});

Deno.test("every named reference decodes as the standard says, in text and in attribute values", () => {
  const references = namedReferences();
  assert.equal(references.length, 2125);
  assert.equal(references.filter((reference) => reference.legacy).length, 106);
  for (const { name } of references) {
    for (const after of ["", ";", ";x", "=", "a", "Z", "1", " ", "&", "é", "#"]) {
      for (const attribute of [false, true]) {
        const text = `x&${name}${after}`;
        assert.equal(decode(text, attribute), expected(text, attribute), `${text} ${attribute}`);
      }
    }
  }
});

Deno.test("any mix of references, near misses and numbers decodes as the standard says", () => {
  const piece = fc.constantFrom(
    "&",
    "#",
    "x",
    "X",
    ";",
    "=",
    " ",
    "é",
    "0",
    "9",
    "f",
    "A",
    "z",
    "00000000000041",
    "110000",
    "d800",
    "80",
    "9f",
    "amp",
    "AMP",
    "not",
    "notin",
    "in",
    "frac12",
    "frac1",
    "Afr",
    "NotEqualTilde",
    "fjlig",
    "lt",
    "nbsp",
    "copy",
    "CounterClockwiseContourIntegral",
    "99999999999999999999",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (pieces, attribute) => {
      const text = pieces.join("");
      assert.equal(decode(text, attribute), expected(text, attribute));
    }),
    { numRuns: 5_000 },
  );
});

Deno.test({
  name: "hostile references are decoded in one pass: N vs 4N",
  timeout: 60_000,
  async fn() {
    const shapes: [string, (n: number) => string][] = [
      ["long names", (n) => `&${"a".repeat(n)};`.repeat(4)],
      ["names near a legacy one", (n) => "&notinx".repeat(n)],
      ["long numbers", (n) => `&#${"9".repeat(n)};&#x${"f".repeat(n)}`],
      ["ampersands", (n) => "&".repeat(n)],
    ];
    for (const [what, build] of shapes) {
      await assertLinear(what, build, (text) => decode(text, true), { n: 20_000 });
    }
  },
});
