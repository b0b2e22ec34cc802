import assert from "node:assert/strict";
import { DomainPolicy } from "../src/hosted/mod.ts";
import { assertLinear } from "./support/linear_time.ts";
import { DOTS, INVISIBLES, mentionForms, RULES } from "./support/mention_forms.ts";

// Bare mentions of a blocked host written to slip past a plain match (issue 18, item 13).

const say = (content: string) => [{ role: "assistant", content }];

Deno.test({
  name: "audit finds every dot look-alike × invisible × host, reported as written",
  timeout: 60_000,
  fn() {
    const policy = DomainPolicy.block(RULES);
    let count = 0;
    const missed: string[] = [];
    for (const form of mentionForms()) {
      count++;
      const found = policy.audit(say(form.content));
      const expected = [{ where: "mention", url: form.written, rule: form.rule, messageIndex: 0 }];
      try {
        assert.deepEqual(found, expected);
      } catch {
        if (missed.length < 10) {
          missed.push(`${JSON.stringify(form.content)} → ${JSON.stringify(found)}`);
        }
      }
    }
    assert.deepEqual(missed, []);
    assert.equal(count, 12_200);
    assert.ok(DOTS.length >= 25 && INVISIBLES.length >= 16);
  },
});

Deno.test("audit: the issue's forms, each as a mention of evil.com", () => {
  const policy = DomainPolicy.block(["evil.com"]);
  for (
    const written of [
      "evil\u200B.com",
      "ｅｖｉｌ．ｃｏｍ",
      "evil[.]com",
      "evil(.)com",
      "evil{.}com",
      "evil .com",
      "evil . com",
      "evil&#46;com",
      "evil[dot]com",
      "evil%2Ecom",
      "evil。com",
      "evil｡com",
      "hxxps://evil[.]com/login",
    ]
  ) {
    const found = policy.audit(say(`Sign in at ${written} please.`));
    assert.equal(found.length, 1, written);
    assert.equal(found[0].rule, "evil.com");
    assert.ok(written.includes(found[0].url), written);
  }
});

Deno.test("audit: ordinary text makes no mention; the boundary of what joins labels", () => {
  const policy = DomainPolicy.block(["end.com", "evil.com", "example.org", "notes.txt.net"]);
  const prose = [
    // A full stop with a blank after it only ends a sentence.
    "It was the end. com is short for company.",
    "For example. Org charts help.",
    "Evil. Com-pletely evil.",
    // A line break is not a dot's neighbour, `dot` alone is a word, and `..` is no label.
    "the end\n.com",
    "write evil dot com in full",
    "evil..com",
    // Host-like words that a blocked host does not cover.
    "notevil.com, evil.community, evil.com_x, my-evil.comx",
    "ｎｏｔｅｖｉｌ．ｃｏｍ and not\u200Bevil.com read as notevil.com",
    "100% 2e4 %2 & #46; &amp; [.] (.) { dot }",
  ];
  for (const text of prose) assert.deepEqual(policy.audit(say(text)), [], text);
  // What does join: blanks before a dot, bracketed dots, escapes.
  assert.deepEqual(
    policy.audit(say("the end .com, the end [.] com, evil\\.com")).map((v) => v.url),
    ["end .com", "end [.] com", "evil\\.com"],
  );
});

// Shapes close to a defanged dot or a folded name that keep failing late.
const HOSTILE: Record<string, string> = {
  "defanged dots without labels": "[.]",
  "blanks before dots": "    .",
  "entities": "&#46;&#x2e;&period;",
  "percent escapes": "%2e%2E",
  "invisible runs": "\u200B\u2060\uFEFF",
  "fullwidth labels": "ｅ．",
  "brackets never closed": "[ . ",
  "labels joined by defanged dots": "a[.]",
};

Deno.test({
  name: "audit stays linear on hostile mention shapes: N vs 4N",
  timeout: 60_000,
  async fn() {
    const policy = DomainPolicy.block(["evil.example"]);
    for (const [shape, piece] of Object.entries(HOSTILE)) {
      // About 16,000 characters: enough for a quadratic step to outgrow the linear work.
      const n = Math.ceil(16_000 / piece.length);
      await assertLinear(`audit: ${shape}`, (n) => say(piece.repeat(n)), (m) => policy.audit(m), {
        n,
      });
    }
  },
});
