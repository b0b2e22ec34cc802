import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import {
  SetupError,
  ToolError,
  type UrlPolicy,
  webFetch,
  type WebSearch,
  webSearch,
} from "../mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { DomainPolicy, type Violation } from "../src/hosted/mod.ts";
import { assertLinear } from "./support/linear_time.ts";
import {
  anthropicCitationsOnly,
  anthropicCitedAnswer,
  anthropicDynamicFiltering,
  anthropicFetchAnswer,
  anthropicFetchTurns,
  anthropicSearchError,
  anthropicSourcesOnly,
  anthropicTurns,
  geminiGroundedAnswer,
  geminiUrlContextAnswer,
  openAICitationsOnly,
  openAICitedAnswer,
  openAISearchError,
  openAITurns,
} from "./support/hosted_transcripts.ts";
import { localServer } from "./support/local_server.ts";

function permitted(policy: DomainPolicy, cases: Record<string, boolean>): void {
  for (const [input, expected] of Object.entries(cases)) {
    assert.equal(policy.permits(input), expected, `${policy.mode} ${policy.rules} ${input}`);
  }
}

Deno.test("it is a UrlPolicy, as webFetch and webSearch take it", () => {
  const guard = (policy: UrlPolicy, url: string) => policy.permits(url);
  assert.equal(guard(DomainPolicy.allow(["deno.com"]), "https://deno.com/"), true);
  assert.equal(guard(DomainPolicy.block(["deno.com"]), "https://deno.com/"), false);
});

Deno.test("hosts and subdomains, never look-alikes", () => {
  permitted(DomainPolicy.allow(["allowed.com"]), {
    "https://allowed.com/": true,
    "https://docs.allowed.com/x": true,
    "allowed.com": true,
    "a.b.allowed.com": true,
    "https://notallowed.com/": false,
    "https://allowed.com.evil.com/": false,
    "https://allowedxcom/": false,
    "https://evil.com/allowed.com": false,
    "https://evil.com/?u=https://allowed.com": false,
  });
});

Deno.test("userinfo, backslash and port tricks resolve to the real host", () => {
  permitted(DomainPolicy.allow(["allowed.com"]), {
    "https://allowed.com@evil.com/": false,
    "https://allowed.com:443@evil.com/": false,
    "https://user:pass@allowed.com/": true,
    "https://evil.com\\@allowed.com/": false,
    "https://allowed.com\\@evil.com/": true, // a browser reads `\` as `/`: the host is allowed.com
    "https://allowed.com:8443/x": true,
    "allowed.com:8080": true,
    "https://evil.com#@allowed.com": false,
    "https://evil.com?@allowed.com": false,
  });
  const block = DomainPolicy.block(["evil.com"]);
  assert.equal(block.match("https://good.com@evil.com/"), "evil.com");
  assert.equal(block.match("https://evil.com:8443/"), "evil.com");
  assert.equal(block.match("EVIL.COM:80"), "evil.com");
});

Deno.test("case, trailing dots, percent-encoded hosts, IDNA and homographs", () => {
  const block = DomainPolicy.block(["evil.com", "xn--bcher-kva.de"]);
  permitted(block, {
    "HTTPS://EVIL.COM/X": false,
    "https://Sub.Evil.Com./": false,
    "https://evil.com../": false,
    "evil.com.": false,
    "https://%65vil.com/": false,
    "https://evil%2Ecom/": false,
    "https://evil。com/": false, // ideographic full stop is a dot to the URL parser
    "https://bücher.de/": false,
    "https://BÜCHER.de/": false,
    "https://xn--bcher-kva.de/": false,
    "https://bucher.de/": true,
  });
  assert.equal(block.match("https://www.bücher.de/"), "xn--bcher-kva.de");
  // A Cyrillic "а" makes a different host, which an allow list does not cover.
  permitted(DomainPolicy.allow(["apple.com"]), {
    "https://apple.com/": true,
    "https://аpple.com/": false,
    "https://xn--pple-43d.com/": false,
  });
});

Deno.test("IP literals match no domain rule", () => {
  permitted(DomainPolicy.allow(["intranet.local", "example.com"]), {
    "http://127.0.0.1/": false,
    "http://0x7f.1/": false,
    "http://2130706433/": false,
    "http://[::1]/": false,
    "http://[::ffff:127.0.0.1]/": false,
    "http://wiki.intranet.local:8000/": true,
  });
  const block = DomainPolicy.block(["example.com"]);
  assert.equal(block.permits("http://93.184.216.34/"), true);
  assert.equal(block.match("http://93.184.216.34/"), undefined);
});

Deno.test("path prefixes match whole segments, after dot segments and encoding resolve", () => {
  permitted(DomainPolicy.allow(["example.com/blog"]), {
    "https://example.com/blog": true,
    "https://example.com/blog/": true,
    "https://example.com/blog/post?x=1#y": true,
    "https://sub.example.com/blog/post": true,
    "https://example.com/blogger": false,
    "https://example.com/": false,
    "example.com": false,
    "https://example.com/blog/../admin": false,
    "https://example.com/blog/%2e%2e/admin": false,
    "https://example.com/blog/..%2Fadmin": false,
    "https://example.com/blog/a%2F..%2F..%2Fadmin": false,
    "https://example.com/admin/../blog/post": true,
    "https://example.com/./blog/x": true,
    "https://example.com/%62log/x": true,
    "https://example.com/%62LOG/x": false,
    "https://example.com/BLOG": false,
    "https://example.com\\blog\\post": true,
  });
  permitted(DomainPolicy.block(["example.com/admin"]), {
    "https://example.com/admin": false,
    "https://example.com/admin/users": false,
    "https://example.com/ADMIN": false, // case-insensitive servers would serve it
    "https://example.com/x/../admin": false,
    "https://example.com/blog/..%2Fadmin": false,
    "https://example.com/blog/..%5Cadmin": false,
    "https://example.com/%61dmin": false,
    "https://example.com/administrator": true,
    "https://example.com/blog": true,
  });
});

Deno.test("block rules catch every way a lenient server reads a path", () => {
  permitted(DomainPolicy.block(["example.com/admin", "example.com/a:b", "example.com/user@x"]), {
    "https://example.com//admin": false, // nginx merge_slashes serves /admin
    "https://example.com///admin//users": false,
    "https://example.com/%2Fadmin": false,
    "https://example.com/admin;jsessionid=1": false, // Tomcat and Jetty drop `;params`
    "https://example.com/admin;x/users": false,
    "https://example.com/x/..;/admin": false, // `..;` is `..` once the param is dropped
    "https://example.com/a%3Ab": false,
    "https://example.com/a%3ab/c": false,
    "https://example.com/user%40x": false,
    "https://example.com/adm%69n": false,
    "https://example.com/administrator": true,
    "https://example.com/admin%2Dx": true,
    "https://example.com/a%3Abc": true,
    "https://example.com/x/admin": true,
  });
  // A rule written with escapes blocks the decoded spelling, and `;` in a rule is a param.
  permitted(DomainPolicy.block(["example.com/user%40x", "example.com/v1;beta"]), {
    "https://example.com/user@x": false,
    "https://example.com/USER%40X/y": false,
    "https://example.com/v1": false,
    "https://example.com/v1;gamma/z": false,
    "https://example.com/v1%3Bbeta": false,
    "https://example.com/user": true,
    "https://example.com/v2": true,
  });
});

Deno.test("allow rules must hold for every reading of the path", () => {
  permitted(DomainPolicy.allow(["example.com/blog"]), {
    "https://example.com/blog//post": true,
    "https://example.com/blog/post;v=2": true,
    "https://example.com/blog/%3A": true,
    "https://example.com/blog;x=1": false,
    "https://example.com//blog": false,
    "https://example.com/blog/..;/admin": false,
    "https://example.com/blog/%2F/../../admin": false,
  });
  permitted(DomainPolicy.allow(["example.com/a%3Ab", "example.com/docs/v*/api"]), {
    "https://example.com/a%3Ab/x": true,
    "https://example.com/a%3ab": true,
    "https://example.com/a:b": false, // the rule's spelling, as written, in every reading
    "https://example.com/docs/v2;x/api/y": true,
    "https://example.com/docs/v2/..;/api": false,
  });
});

Deno.test("other schemes are refused; a bare dotted host may carry a port", () => {
  const allow = DomainPolicy.allow(["good.com"]);
  const block = DomainPolicy.block(["evil.com/admin"]);
  for (const input of ["mailto:x@good.com", "MAILTO:x@good.com", "tel:911", "x:1@good.com"]) {
    assert.equal(allow.permits(input), false, input);
    assert.equal(block.permits(input), false, input);
    assert.equal(block.match(input), undefined, input);
  }
  permitted(allow, {
    "good.com:8080/path": true,
    "www.good.com:443": true,
    "good.com.:80?q": true,
    "good.com:/x": true,
    "good.com:8080@evil.com": false,
    "localhost:8000": false,
    "https:good.com": true, // a special scheme without slashes, as a browser reads it
  });
  assert.equal(block.match("evil.com:8080/admin"), "evil.com/admin");
  assert.equal(block.permits("evil.com:8080/public"), true);
});

Deno.test("`*` stands for part of one path segment", () => {
  permitted(DomainPolicy.allow(["docs.example.com/v*/api"]), {
    "https://docs.example.com/v2/api": true,
    "https://docs.example.com/v2.1/api/fetch": true,
    "https://docs.example.com/v/api": true,
    "https://docs.example.com/v2/x/api": false,
    "https://docs.example.com/v2/apis": false,
    "https://docs.example.com/api": false,
  });
  permitted(DomainPolicy.allow(["example.com/blog/*"]), {
    "https://example.com/blog/": true,
    "https://example.com/blog/post/2": true,
    "https://example.com/blog": false,
  });
});

Deno.test("match returns the first covering rule in list order", () => {
  const policy = DomainPolicy.block(["example.com", "docs.example.com/private"]);
  assert.equal(policy.match("https://docs.example.com/private/x"), "example.com");
  assert.equal(policy.match("https://other.com/"), undefined);
});

Deno.test("anything without a web host is refused in both modes, and nothing throws", {
  timeout: 30_000,
}, () => {
  const odd: unknown[] = [
    undefined,
    null,
    42,
    {},
    [],
    "",
    "   ",
    "http://",
    "https://[",
    "https://exa mple.com",
    "javascript:alert(1)",
    "data:text/html,hi",
    "file:///etc/passwd",
    "about:blank",
    "https://a..b/",
    "x".repeat(100_000),
    "\u0000",
  ];
  for (const policy of [DomainPolicy.allow(["example.com"]), DomainPolicy.block(["example.com"])]) {
    for (const input of odd) {
      assert.equal(policy.permits(input as string), false, `${policy.mode} ${String(input)}`);
      assert.equal(policy.match(input as string), undefined);
    }
  }
  assert.equal(DomainPolicy.block(["evil.com"]).permits("ftp://evil.com/"), false);
  assert.equal(DomainPolicy.block(["evil.com"]).permits("wss://good.com/"), true);
});

Deno.test("the policy is immutable", () => {
  const rules = ["example.com"];
  const policy = DomainPolicy.allow(rules);
  rules.push("evil.com");
  assert.equal(policy.permits("https://evil.com/"), false);
  assert.throws(() => (policy.rules as string[]).push("evil.com"), TypeError);
  assert.ok(Object.isFrozen(policy));
});

Deno.test("nativeWebSearch carries the policy's list", () => {
  const allow = DomainPolicy.allow(["Deno.com", "jsr.io/@std"]);
  assert.deepEqual(allow.nativeWebSearch({ maxUses: 2 }).toAnthropic(), {
    type: "web_search_20250305",
    name: "web_search",
    max_uses: 2,
    allowed_domains: ["deno.com", "jsr.io/@std"],
  });
  const block = DomainPolicy.block(["pinterest.com"]);
  assert.deepEqual(block.nativeWebSearch({ dynamicFiltering: true }).toAnthropic(), {
    type: "web_search_20260209",
    name: "web_search",
    blocked_domains: ["pinterest.com"],
  });
  assert.deepEqual(DomainPolicy.allow(["who.int"]).nativeWebSearch().toOpenAI(), {
    type: "web_search",
    filters: { allowed_domains: ["who.int"] },
  });
  // OpenAI cannot enforce a block list: refused, not dropped.
  assert.throws(() => block.nativeWebSearch().toOpenAI(), SetupError);
  for (const key of ["allowedDomains", "blockedDomains"]) {
    assert.throws(
      () => allow.nativeWebSearch({ [key]: ["x.com"] }),
      new RegExp(`Don't pass ${key}`),
    );
  }
  assert.throws(() => allow.nativeWebSearch({ colour: "red" } as never), /Unknown.*`colour`/);
});

Deno.test("audit: sources, citations, URLs and mentions in a block list", () => {
  const policy = DomainPolicy.block(["deno.com/blog", "evil.example"]);
  assert.deepEqual(policy.audit(anthropicTurns), [
    { where: "source", url: "https://deno.com/blog/v2.0", rule: "deno.com/blog", messageIndex: 1 },
    {
      where: "citation",
      url: "https://deno.com/blog/v2.0",
      rule: "deno.com/blog",
      messageIndex: 1,
    },
    { where: "source", url: "https://deno.com/blog/v2.1", rule: "deno.com/blog", messageIndex: 3 },
    { where: "source", url: "https://deno.com/blog/v2.0", rule: "deno.com/blog", messageIndex: 3 },
    // Cited twice in the same answer, reported once.
    {
      where: "citation",
      url: "https://deno.com/blog/v2.1",
      rule: "deno.com/blog",
      messageIndex: 3,
    },
    { where: "url", url: "https://evil.example/deno", rule: "evil.example", messageIndex: 5 },
    { where: "mention", url: "EVIL.example", rule: "evil.example", messageIndex: 5 },
  ]);
});

Deno.test("audit: an allow list, over OpenAI turns, and `since`", () => {
  const policy = DomainPolicy.allow(["deno.com"]);
  const expected: Violation[] = [
    { where: "source", url: "https://github.com/denoland/deno", messageIndex: 1 },
  ];
  assert.deepEqual(policy.audit(openAITurns), expected);
  assert.deepEqual(policy.audit(openAITurns, { since: 2 }), []);
  assert.deepEqual(policy.audit(openAITurns, { since: 1 }), expected);
  assert.deepEqual(policy.audit(openAICitedAnswer), [{ ...expected[0], messageIndex: 0 }]);
  assert.deepEqual(policy.audit(openAISearchError), []);
  assert.deepEqual(DomainPolicy.allow(["jsr.io"]).audit(openAICitationsOnly), [
    { where: "citation", url: "https://fresh.deno.dev/", messageIndex: 0 },
  ]);
});

Deno.test("audit: Anthropic single messages, dynamic filtering, errors, partial evidence", () => {
  const blog = DomainPolicy.allow(["deno.com/blog"]);
  assert.deepEqual(blog.audit(anthropicCitedAnswer), [
    {
      where: "source",
      url: "https://en.wikipedia.org/wiki/Deno_(software)",
      messageIndex: 0,
    },
  ]);
  assert.deepEqual(blog.audit(anthropicDynamicFiltering), [
    { where: "source", url: "https://deno.com/deploy/pricing", messageIndex: 0 },
    { where: "citation", url: "https://deno.com/deploy/pricing", messageIndex: 0 },
  ]);
  assert.deepEqual(blog.audit(anthropicSearchError), []);
  assert.deepEqual(
    DomainPolicy.block(["fresh.deno.dev"]).audit(anthropicCitationsOnly).map((v) => v.where),
    ["citation"],
  );
  assert.deepEqual(
    DomainPolicy.block(["wikipedia.org"]).audit(anthropicSourcesOnly).map((v) => v.where),
    ["source"],
  );
});

Deno.test("audit: Anthropic web fetch, its failed tries and the citations into fetched pages", () => {
  // A failed fetch is still a page the model tried to read, and is reported.
  assert.deepEqual(DomainPolicy.block(["evil.example"]).audit(anthropicFetchAnswer), [
    { where: "source", url: "https://evil.example/mirror", rule: "evil.example", messageIndex: 0 },
  ]);
  assert.deepEqual(DomainPolicy.allow(["jsr.io"]).audit(anthropicFetchAnswer), [
    { where: "source", url: "https://deno.com/blog/v2.0", messageIndex: 0 },
    { where: "citation", url: "https://deno.com/blog/v2.0", messageIndex: 0 },
    { where: "source", url: "https://evil.example/mirror", messageIndex: 0 },
  ]);
  // The citation in entry 1 names its page by a document index that entry 0 starts counting.
  const blog = DomainPolicy.block(["deno.com/blog"]);
  assert.deepEqual(blog.audit(anthropicFetchTurns, { since: 1 }).map((v) => v.where), [
    "source",
    "citation",
  ]);
});

Deno.test("audit: Gemini grounding is judged by the page's site, never the redirect host", () => {
  const redirect = (id: string) =>
    `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${id}`;
  const evil = { url: redirect("AUZIYQE3"), rule: "evil.example", site: "evil.example" };
  assert.deepEqual(DomainPolicy.block(["evil.example"]).audit(geminiGroundedAnswer), [
    { where: "source", ...evil, messageIndex: 0 },
    { where: "citation", ...evil, messageIndex: 0 },
  ]);
  const sports = DomainPolicy.allow(["uefa.com", "aljazeera.com"]);
  assert.deepEqual(sports.audit(geminiGroundedAnswer), [
    { where: "source", url: redirect("AUZIYQE3"), site: "evil.example", messageIndex: 0 },
    { where: "citation", url: redirect("AUZIYQE3"), site: "evil.example", messageIndex: 0 },
  ]);
  // Blocking Google's redirect host blocks no page; allowing it allows none.
  assert.deepEqual(DomainPolicy.block(["google.com"]).audit(geminiGroundedAnswer), []);
  assert.equal(DomainPolicy.allow(["google.com"]).audit(geminiGroundedAnswer).length, 6);
  // A redirect whose title names no site cannot be cleared, in either mode.
  const unnamed = {
    candidates: [{
      groundingMetadata: {
        groundingChunks: [{ web: { uri: redirect("Q"), title: "Some page" } }],
        groundingSupports: [{ segment: { endIndex: 4 }, groundingChunkIndices: [0] }],
      },
    }],
  };
  for (const policy of [DomainPolicy.block(["evil.example"]), DomainPolicy.allow(["uefa.com"])]) {
    assert.deepEqual(policy.audit(unnamed), [
      { where: "source", url: redirect("Q"), messageIndex: 0 },
      { where: "citation", url: redirect("Q"), messageIndex: 0 },
    ]);
  }
  // The model's own text is audited too, and URL context pages are sources.
  const said = {
    candidates: [{
      content: { role: "model", parts: [{ text: "Mirror: https://evil.example/x" }] },
    }],
  };
  assert.deepEqual(DomainPolicy.block(["evil.example"]).audit(said), [
    { where: "url", url: "https://evil.example/x", rule: "evil.example", messageIndex: 0 },
  ]);
  assert.deepEqual(DomainPolicy.allow(["foodnetwork.com"]).audit(geminiUrlContextAnswer), [
    { where: "source", url: "https://paywalled.example/recipe", messageIndex: 0 },
  ]);
});

Deno.test(
  "audit stays linear on many fetches, failures, document citations and grounding chunks",
  { timeout: 60_000 },
  async () => {
    const policy = DomainPolicy.block(["evil.example"]);
    const anthropic = (n: number) => [{
      role: "assistant",
      content: Array.from({ length: n }, (_, i) => [
        {
          type: "server_tool_use",
          id: `f${i}`,
          name: "web_fetch",
          input: { url: `https://evil.example/${i}` },
        },
        {
          type: "web_fetch_tool_result",
          tool_use_id: `f${i}`,
          content: { type: "web_fetch_tool_result_error", error_code: "unavailable" },
        },
        {
          type: "text",
          text: "x",
          citations: [{ type: "char_location", document_index: i, cited_text: "y" }],
        },
      ]).flat(),
    }];
    const gemini = (n: number) => ({
      candidates: [{
        groundingMetadata: {
          groundingChunks: Array.from({ length: n }, (_, i) => ({
            web: {
              uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${i}`,
              title: "evil.example",
            },
          })),
          groundingSupports: Array.from({ length: n }, (_, i) => ({
            segment: { endIndex: 1 },
            groundingChunkIndices: [i],
          })),
        },
      }],
    });
    assert.equal(policy.audit(anthropic(50)).length, 50);
    assert.equal(policy.audit(gemini(50)).length, 100);
    await assertLinear("anthropic fetches", anthropic, (t) => policy.audit(t), { n: 2_000 });
    await assertLinear("gemini grounding", gemini, (t) => policy.audit(t), { n: 2_000 });
  },
);

Deno.test("audit: URLs in assistant text, Markdown included, trimmed of prose", () => {
  const policy = DomainPolicy.allow(["good.example"]);
  const text = [
    "See [docs](https://good.example/docs) and [the mirror](https://bad.example/a_(b)).",
    "Also <https://bad.example/angle>, **https://bad.example/bold**, (https://bad.example/paren).",
    '[https://good.example/label](https://bad.example/target "title")',
    "Redirect: https://good.example/out?to=https://bad.example/final",
    "HTTP://BAD.EXAMPLE/UPPER and https://good.example/ok.",
  ].join("\n");
  assert.deepEqual(
    policy.audit([{ role: "assistant", content: text }]).map((v) => [v.where, v.url]),
    [
      ["url", "https://bad.example/a_(b)"],
      ["url", "https://bad.example/angle"],
      ["url", "https://bad.example/bold"],
      ["url", "https://bad.example/paren"],
      ["url", "https://bad.example/target"],
      ["url", "https://bad.example/final"],
      ["url", "HTTP://BAD.EXAMPLE/UPPER"],
    ],
  );
  // The user's own words are not audited.
  assert.deepEqual(policy.audit([{ role: "user", content: text }]), []);
});

Deno.test("audit: scheme-relative link targets are URLs too", () => {
  const text = [
    "[site](//evil.example/x) and ![pixel]( <//evil.example/p.png> )",
    "<a href=\"//evil.example/y\">y</a> <img src=//evil.example/z.gif> <a HREF = '//evil.example/w'>",
    "[ref]: //evil.example/r [https://good.example/label](//evil.example/t)",
    "[fine](//good.example/ok) and <a href=//good.example/also>",
    "Prose is not a link: a // comment, path//evil.example, (//evil.example/paren).",
  ].join("\n");
  const allow = DomainPolicy.allow(["good.example"]);
  assert.deepEqual(
    allow.audit([{ role: "assistant", content: text }]).map((v) => [v.where, v.url]),
    [
      ["url", "//evil.example/x"],
      ["url", "//evil.example/p.png"],
      ["url", "//evil.example/y"],
      ["url", "//evil.example/z.gif"],
      ["url", "//evil.example/w"],
      ["url", "//evil.example/r"],
      ["url", "//evil.example/t"],
    ],
  );
  // A path rule is matched on the link's path, which a bare mention would not carry.
  const block = DomainPolicy.block(["evil.example/admin"]);
  assert.deepEqual(block.audit({ role: "assistant", content: "[x](//Evil.example/admin/)" }), [
    { where: "url", url: "//Evil.example/admin/", rule: "evil.example/admin", messageIndex: 0 },
  ]);
});

Deno.test(
  "audit and permits stay linear on hostile text: N vs 4N",
  { timeout: 60_000 },
  async () => {
    // Each shape is checked for its result at N and for its time at N against 4N.
    const say = (content: string) => [{ role: "assistant", content }];
    const block = DomainPolicy.block(["evil.example", "a.b.c.d.evil.example/x"]);
    const allow = DomainPolicy.allow(["good.com"]);
    const docs = DomainPolicy.allow(["good.com/docs"]);
    const blocked = (text: string) => block.audit(say(text));
    const allowed = (text: string) => allow.audit(say(text));
    const shapes: [
      string,
      (n: number) => string,
      (text: string) => unknown,
      (n: number) => unknown,
    ][] = [
      ["block: labels, then the host", (n) => "a.".repeat(n) + "evil.example", blocked, () => []],
      ["block: labels, a word, the host", (n) => "a.".repeat(n) + "b evil.example", blocked, () => [
        { where: "mention", url: "evil.example", rule: "evil.example", messageIndex: 0 },
      ]],
      [
        "block: host-like words",
        (n) => "x.y ".repeat(n) + "a.EVIL.example.",
        (text) => blocked(text).length,
        () => 1,
      ],
      ["block: non-ASCII labels", (n) => "ä.".repeat(n) + "b", blocked, () => []],
      [
        "block: dashes, underscores",
        (n) => "-".repeat(2 * n) + " " + "a_".repeat(n),
        blocked,
        () => [],
      ],
      [
        "allow: closing parentheses",
        (n) => "https://good.com/x" + ")".repeat(n),
        allowed,
        () => [],
      ],
      [
        "allow: balanced parentheses",
        (n) => "https://bad.com/x" + "(".repeat(n) + ")".repeat(2 * n) + ".",
        allowed,
        (
          n,
        ) => [{
          where: "url",
          url: "https://bad.com/x" + "(".repeat(n) + ")".repeat(n),
          messageIndex: 0,
        }],
      ],
      [
        "allow: trailing punctuation",
        (n) => "https://bad.com/" + "])}.,;".repeat(n),
        allowed,
        () => [
          { where: "url", url: "https://bad.com/", messageIndex: 0 },
        ],
      ],
      [
        "allow: one URL many times",
        (n) => "https://bad.com/x ".repeat(n),
        (text) => allowed(text).length,
        () => 1,
      ],
      [
        "allow: schemes, then an open link",
        (n) => "http://".repeat(n) + " ](" + " ".repeat(3 * n),
        allowed,
        () => [],
      ],
      ["allow: link openers", (n) => "](" + " //".repeat(n) + "](//bad.com", allowed, () => [
        { where: "url", url: "//bad.com", messageIndex: 0 },
      ]],
      [
        "permits: labels, a bad port",
        (n) => "a.".repeat(n) + "good.com:x",
        (url) => allow.permits(url),
        () => false,
      ],
      [
        "permits: dot segments",
        (n) => "https://good.com/docs/" + "%2F..;//".repeat(n),
        (url) => docs.permits(url),
        () => false,
      ],
      [
        "permits: parameters and escapes",
        (n) => "https://good.com/docs/" + "a;b//%41/".repeat(n),
        (url) => docs.permits(url),
        () => true,
      ],
    ];
    for (const [what, build, run, expected] of shapes) {
      // About 20,000 characters: enough for a quadratic step to outgrow the linear work.
      const n = Math.ceil(20_000 / (build(2).length - build(1).length));
      assert.deepEqual(run(build(n)), expected(n), what);
      await assertLinear(what, build, run, { n });
    }
    assert.equal(allow.permits("a.".repeat(100) + "good.com:8080"), true);
  },
);

Deno.test("audit: bare mentions in block mode only, whole host names only", () => {
  const block = DomainPolicy.block(["evil.example", "xn--bcher-kva.de"]);
  const text = "Avoid evil.example, Sub.EVIL.example and (evil.example). Fine: notevil.example, " +
    "evil.example.org, my-evil.example, evil.examples, evil.example_x, evil-example. " +
    "Write to help@evil.example or visit bücher.de.";
  assert.deepEqual(
    block.audit({ role: "assistant", content: text }).map((v) => [v.where, v.url, v.rule]),
    [
      ["mention", "evil.example", "evil.example"],
      ["mention", "Sub.EVIL.example", "evil.example"],
      ["mention", "bücher.de", "xn--bcher-kva.de"],
    ],
  );
  // An allow list does not read host-like words as domains.
  const allow = DomainPolicy.allow(["deno.com"]);
  const prose = "Edit config.py and README.md, bump v1.2.3, then see deno.land or evil.example.";
  assert.deepEqual(allow.audit({ role: "assistant", content: prose }), []);
});

Deno.test("audit never mutates the transcript", () => {
  const policy = DomainPolicy.block(["deno.com", "evil.example"]);
  for (const fixture of [anthropicTurns, openAITurns, anthropicDynamicFiltering]) {
    const copy = structuredClone(fixture);
    const before = policy.audit(copy);
    assert.deepEqual(copy, fixture);
    deepFreeze(copy);
    assert.deepEqual(policy.audit(copy), before);
    assert.ok(before.length > 0);
  }
});

Deno.test("audit never throws on odd entries or odd options", { timeout: 30_000 }, () => {
  const policy = DomainPolicy.block(["evil.example"]);
  const throwing = new Proxy({}, {
    get() {
      throw new Error("trap");
    },
    has() {
      throw new Error("trap");
    },
  });
  const { proxy: revoked, revoke } = Proxy.revocable([], {});
  revoke();
  const cyclic: Record<string, unknown> = { role: "assistant" };
  cyclic.content = [{ type: "mystery", content: [cyclic] }];
  // What is no transcript at all is refused, so that "no violations" is never an accident.
  const unreadable = new Proxy([], {
    get() {
      throw new Error("trap");
    },
  });
  for (
    const input of [undefined, null, "https://evil.example/", 12, throwing, revoked, unreadable]
  ) {
    assert.throws(() => policy.audit(input), TypeError);
  }
  const inputs: unknown[] = [
    [throwing, { role: "assistant", content: "evil.example" }],
    [cyclic],
    [{ role: "assistant", content: [{ type: "text", text: 5 }, null, { type: "text" }] }],
  ];
  for (const input of inputs) assert.doesNotThrow(() => policy.audit(input));
  assert.deepEqual(
    policy.audit([throwing, { role: "assistant", content: "evil.example" }]).length,
    1,
  );
  for (const options of [null, {}, { since: -3 }, { since: NaN }, { since: "1" }, throwing]) {
    assert.equal(policy.audit(anthropicTurns, options as never).length, 2);
  }
  assert.equal(policy.audit(anthropicTurns, { since: 5.5 }).length, 0);
  assert.equal(policy.audit(anthropicTurns, { since: Infinity }).length, 0);
});

Deno.test("the README example, with fixtures in place of the network", () => {
  const policy = DomainPolicy.allow(["docs.python.org", "peps.python.org"]);
  const messages: Anthropic.MessageParam[] = [
    { role: "user", content: "What changed in typing in Python 3.13?" },
  ];
  const request: Anthropic.MessageCreateParamsNonStreaming = {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages,
    tools: [policy.nativeWebSearch({ maxUses: 3 }).toAnthropic()],
  };
  assert.deepEqual(request.tools, [{
    type: "web_search_20250305",
    name: "web_search",
    max_uses: 3,
    allowed_domains: ["docs.python.org", "peps.python.org"],
  }]);
  messages.push({ role: "assistant", content: anthropicCitedAnswer.content });
  assert.deepEqual(policy.audit(messages, { since: 1 }).map((v) => [v.where, v.messageIndex]), [
    ["source", 1],
    ["source", 1],
    ["citation", 1],
  ]);
  assert.deepEqual(policy.audit(messages, { since: 2 }), []);

  const openAIRequest: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
    model: "gpt-5",
    input: "What changed in typing in Python 3.13?",
    tools: [policy.nativeWebSearch({ searchContextSize: "low" }).toOpenAI()],
    include: ["web_search_call.action.sources"],
  };
  assert.deepEqual(openAIRequest.tools, [{
    type: "web_search",
    filters: { allowed_domains: ["docs.python.org", "peps.python.org"] },
    search_context_size: "low",
  }]);
  assert.deepEqual(policy.audit(openAICitedAnswer).map((v) => v.where), [
    "source",
    "source",
    "url",
    "citation",
  ]);
});

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * A real local server behind a `fetch` that sends every request, whatever host it names, to
 * 127.0.0.1 with the URL it named in `x-original-url`: the policy sees the public names, the
 * network only loopback.
 */
function siteBehindLoopback(handler: (url: URL) => Response) {
  const server = localServer((request) => handler(new URL(request.headers.get("x-original-url")!)));
  const loopback: typeof fetch = (input, init) => {
    const original = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    headers.set("x-original-url", original.href);
    // Rebuilt, as HttpReader asks of a fetch that sends requests elsewhere: its url is empty.
    return fetch(new URL(original.pathname + original.search, server.origin), { ...init, headers })
      .then((response) => new Response(response.body, response));
  };
  return Object.assign(server, { loopback });
}

Deno.test("the same policy governs webFetch: first URL and every redirect hop", {
  timeout: 60_000,
}, async () => {
  await using site = siteBehindLoopback((url) => {
    if (url.pathname === "/leave") {
      return new Response(null, {
        status: 302,
        headers: { location: "https://evil.example.net/x" },
      });
    }
    return new Response(`<title>Guide</title><h1>Guide</h1><p>${url.host}</p>`, {
      headers: { "content-type": "text/html" },
    });
  });
  const policy = DomainPolicy.allow(["docs.example.com"]);
  const fetchTool = webFetch(new HttpReader({ fetch: site.loopback }), { policy });
  const ok = await fetchTool.execute({ url: "https://api.docs.example.com/guide" });
  assert.match(ok, /^URL: https:\/\/api\.docs\.example\.com\/guide\nHTTP 200/);
  assert.match(ok, /# Guide/);

  const refused = await fetchTool.execute({ url: "https://evil.example.net/" }).catch((e) => e);
  assert.ok(refused instanceof ToolError);
  assert.match(refused.message, /https:\/\/evil\.example\.net\/ is not permitted/);

  const redirected = await fetchTool.execute({ url: "https://docs.example.com/leave" })
    .catch((e) => e);
  assert.ok(redirected instanceof ToolError);
  assert.match(
    redirected.message,
    /https:\/\/docs\.example\.com\/leave redirected to a page on evil\.example\.net, which is not permitted/,
  );
  assert.deepEqual(site.received.map((r) => r.headers.get("x-original-url")), [
    "https://api.docs.example.com/guide",
    "https://docs.example.com/leave",
  ]);
});

Deno.test("the same policy governs webSearch: refused hits are withheld and counted", {
  timeout: 60_000,
}, async () => {
  const backend: WebSearch = {
    search: () =>
      Promise.resolve([
        { title: "Docs", url: "https://docs.example.com/a", snippet: "kept" },
        { title: "Tracker", url: "https://evil.example.net/b", snippet: "dropped" },
        { title: "Mirror", url: "https://EVIL.example.net./c", snippet: "dropped too" },
      ]),
  };
  const policy = DomainPolicy.block(["evil.example.net"]);
  const text = await webSearch(backend, { policy }).execute({ query: "docs" });
  assert.match(text, /1\. Docs\nhttps:\/\/docs\.example\.com\/a\nkept/);
  assert.ok(!text.includes("evil"));
  assert.match(text, /2 results were withheld by the URL policy\./);
});
