import assert from "node:assert/strict";
import { showInvisible } from "../src/human/mod.ts";
import { assertLinear } from "./support/linear_time.ts";

Deno.test("showInvisible writes out every invisible, bidi-control and look-blank character", () => {
  const cases: [string, string][] = [
    ["\u202A\u202B\u202C\u202D\u202E", "⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩⟨U+202E⟩"],
    [
      "\u2066\u2067\u2068\u2069\u200E\u200F\u061C",
      "⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩",
    ],
    ["\u200B\u200C\u200D\u2060\uFEFF\u00AD", "⟨U+200B⟩⟨U+200C⟩⟨U+200D⟩⟨U+2060⟩⟨U+FEFF⟩⟨U+00AD⟩"],
    ["\u{E0041}\uFE0F\u034F\u3164\u2800", "⟨U+E0041⟩⟨U+FE0F⟩⟨U+034F⟩⟨U+3164⟩⟨U+2800⟩"],
    ["\u00A0\u2003\u3000\u2028\u2029", "⟨U+00A0⟩⟨U+2003⟩⟨U+3000⟩⟨U+2028⟩⟨U+2029⟩"],
    ["\x00\x1B\x7F\x85\uD800\uE000", "⟨U+0000⟩⟨U+001B⟩⟨U+007F⟩⟨U+0085⟩⟨U+D800⟩⟨U+E000⟩"],
    // What lays text out, and what is plainly visible, stays as it is.
    ["a b\tc\nd\r\né 日本 שלום ⟨U+202E⟩", "a b\tc\nd\r\né 日本 שלום ⟨U+202E⟩"],
  ];
  for (const [text, shown] of cases) assert.equal(showInvisible(text), shown);
});

Deno.test("showInvisible runs in linear time (N vs 4N)", { timeout: 60_000 }, async () => {
  await assertLinear("showInvisible", (n) => "a\u202E\u200B\u{E0041} ".repeat(n), showInvisible, {
    n: 2_000,
  });
});
