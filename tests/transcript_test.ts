import assert from "node:assert/strict";
import { citations, sources } from "../src/hosted/mod.ts";
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
  geminiGroundedCandidate,
  geminiUrlContextAnswer,
  openAICitationsOnly,
  openAICitedAnswer,
  openAISearchError,
  openAISourcesOnly,
  openAITurns,
} from "./support/hosted_transcripts.ts";

Deno.test("Anthropic: one search with a cited answer", () => {
  assert.deepEqual(sources(anthropicCitedAnswer), [
    {
      url: "https://deno.com/blog/v2.0",
      title: "Announcing Deno 2",
      pageAge: "October 9, 2024",
    },
    { url: "https://en.wikipedia.org/wiki/Deno_(software)", title: "Deno (software)" },
  ]);
  assert.deepEqual(citations(anthropicCitedAnswer), [{
    url: "https://deno.com/blog/v2.0",
    title: "Announcing Deno 2",
    citedText: "Deno 2 is here.",
    messageIndex: 0,
  }]);
});

Deno.test("Anthropic: the message's content array alone reads the same", () => {
  assert.deepEqual(sources(anthropicCitedAnswer.content), sources(anthropicCitedAnswer));
  assert.deepEqual(
    citations(anthropicCitedAnswer.content).map((c) => c.url),
    ["https://deno.com/blog/v2.0"],
  );
});

Deno.test("Anthropic: a search error yields no sources and does not stop the reader", () => {
  assert.deepEqual(sources(anthropicSearchError), []);
  assert.deepEqual(citations(anthropicSearchError), []);
  assert.equal(sources([anthropicSearchError, anthropicCitedAnswer]).length, 2);
});

Deno.test("Anthropic: searches made by code execution under dynamic filtering are read", () => {
  assert.deepEqual(sources(anthropicDynamicFiltering), [{
    url: "https://deno.com/deploy/pricing",
    title: "Deno Deploy pricing",
    pageAge: "3 days ago",
  }]);
  assert.deepEqual(citations(anthropicDynamicFiltering), [{
    url: "https://deno.com/deploy/pricing",
    title: "Deno Deploy pricing",
    citedText: "Reads $1/million",
    messageIndex: 0,
  }]);
});

Deno.test("Anthropic: several turns, duplicate URLs deduplicated in first-seen order", () => {
  assert.deepEqual(sources(anthropicTurns), [
    // The first sighting had no page_age; the later duplicate fills it in.
    { url: "https://deno.com/blog/v2.0", title: "Announcing Deno 2", pageAge: "October 9, 2024" },
    { url: "https://deno.com/blog/v2.1", title: "Deno 2.1", pageAge: "November 2024" },
  ]);
  assert.deepEqual(
    citations(anthropicTurns).map(({ url, messageIndex, citedText }) => [
      url,
      messageIndex,
      citedText,
    ]),
    [
      ["https://deno.com/blog/v2.0", 1, "Deno 2 is here."],
      ["https://deno.com/blog/v2.1", 3, "Deno 2.1 is here."],
      ["https://deno.com/blog/v2.1", 3, "with Wasm imports"],
    ],
  );
});

Deno.test("Anthropic: citations without sources, and sources without citations", () => {
  assert.deepEqual(sources(anthropicCitationsOnly), []);
  // A null title is left out rather than reported as "null".
  assert.deepEqual(citations(anthropicCitationsOnly), [
    { url: "https://fresh.deno.dev/", citedText: "Fresh", messageIndex: 0 },
  ]);
  assert.equal(sources(anthropicSourcesOnly).length, 2);
  assert.deepEqual(citations(anthropicSourcesOnly), []);
});

Deno.test("OpenAI: one search with a cited answer", () => {
  assert.deepEqual(sources(openAICitedAnswer), [
    { url: "https://deno.com/blog/v2.0" },
    { url: "https://github.com/denoland/deno" },
  ]);
  assert.deepEqual(citations(openAICitedAnswer), [{
    url: "https://deno.com/blog/v2.0?utm_source=openai",
    title: "Announcing Deno 2",
    messageIndex: 0,
    startIndex: 37,
    endIndex: 97,
  }]);
  // The output array alone: each item is its own entry.
  assert.deepEqual(citations(openAICitedAnswer.output).map((c) => c.messageIndex), [1]);
});

Deno.test("OpenAI: a failed search call has no sources", () => {
  assert.deepEqual(sources(openAISearchError), []);
  assert.deepEqual(citations(openAISearchError), []);
});

Deno.test("OpenAI: an input-item array over several turns, with opened pages", () => {
  assert.deepEqual(sources(openAITurns), [
    { url: "https://deno.com/blog/v2.0" },
    { url: "https://github.com/denoland/deno" },
    { url: "https://deno.com/blog/v2.1" },
    { url: "https://docs.deno.com/runtime/" },
  ]);
  assert.deepEqual(citations(openAITurns).map((c) => [c.url, c.messageIndex]), [
    ["https://deno.com/blog/v2.0?utm_source=openai", 2],
    ["https://deno.com/blog/v2.1", 7],
    ["https://deno.com/blog/v2.1", 7],
  ]);
});

Deno.test("OpenAI: citations without sources, and sources without citations", () => {
  assert.deepEqual(sources(openAICitationsOnly), []);
  assert.equal(citations(openAICitationsOnly).length, 1);
  assert.deepEqual(sources(openAISourcesOnly), [{ url: "https://jsr.io/" }]);
  assert.deepEqual(citations(openAISourcesOnly), []);
});

Deno.test("Providers mixed in one array keep entry indexes", () => {
  const mixed = [anthropicCitedAnswer, openAICitedAnswer, anthropicDynamicFiltering];
  assert.deepEqual(citations(mixed).map((c) => c.messageIndex), [0, 1, 2]);
  assert.deepEqual(sources(mixed).map((s) => s.url), [
    "https://deno.com/blog/v2.0",
    "https://en.wikipedia.org/wiki/Deno_(software)",
    "https://github.com/denoland/deno",
    "https://deno.com/deploy/pricing",
  ]);
});

Deno.test("user text is never read as cited assistant text", () => {
  const transcript = [{
    role: "user",
    content: [{
      type: "text",
      text: "Quoting you",
      citations: [{ type: "web_search_result_location", url: "https://x.example/" }],
    }],
  }];
  assert.deepEqual(citations(transcript), []);
});

Deno.test("odd input is skipped, never fatal, and never modified", () => {
  const hostile = {
    role: "assistant",
    get content(): unknown {
      throw new Error("boom");
    },
  };
  const cyclic: Record<string, unknown> = { type: "mystery" };
  cyclic.content = [cyclic];
  const odd: unknown[] = [
    null,
    undefined,
    42,
    "text",
    [],
    hostile,
    cyclic,
    { role: "assistant", content: [null, 1, { type: "text" }, { type: "text", text: 3 }] },
    { type: "web_search_call", action: { type: "search", sources: [null, { url: 5 }, {}] } },
    { type: "web_search_tool_result", content: { type: "web_search_tool_result_error" } },
    { object: "response", output: "nope" },
    { type: "text", text: "ok", citations: [{ type: "char_location", cited_text: "x" }] },
    anthropicCitedAnswer,
  ];
  assert.doesNotThrow(() => sources(odd));
  assert.doesNotThrow(() => citations(odd));
  for (const input of odd.filter((entry) => typeof entry === "object" && entry !== null)) {
    assert.doesNotThrow(() => sources(input));
    assert.doesNotThrow(() => citations(input));
  }
  assert.equal(sources(odd).length, 2);
  assert.equal(citations(odd).length, 1);

  const frozen = structuredClone(anthropicTurns);
  deepFreeze(frozen);
  assert.equal(sources(frozen).length, 2);
  assert.equal(citations(frozen).length, 3);
  assert.deepEqual(frozen, anthropicTurns);
});

Deno.test("what is no transcript at all is a TypeError naming it, not an empty list", () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const cases: [unknown, RegExp][] = [
    [null, /handed null/],
    [undefined, /handed undefined\./],
    [42, /handed a number/],
    ["Deno 2 is out, see https://deno.com", /handed a string/],
    [["a", "b"], /an array holding no message/],
    [{ id: "x", answer: "y" }, /an object with id, answer/],
    [{}, /an empty object/],
    [
      { choices: [{ message: { role: "assistant", content: "hi", annotations: [] } }] },
      /an OpenAI Chat Completions message/,
    ],
    [
      [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [] }],
      /an array of OpenAI Chat Completions messages/,
    ],
    [revoked.proxy, /could not be read/],
  ];
  for (const [input, message] of cases) {
    for (const reader of [sources, citations]) {
      assert.throws(() => reader(input), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /reads an Anthropic, OpenAI Responses or Gemini transcript/);
        assert.match(error.message, message);
        return true;
      });
    }
  }
  // Each provider's own shapes are accepted, empty ones included.
  for (
    const input of [[], { role: "assistant", content: "" }, { candidates: [] }, { output: [] }]
  ) {
    assert.deepEqual(sources(input), []);
  }
});

Deno.test("returned objects are fresh copies", () => {
  const first = sources(anthropicCitedAnswer);
  first[0].title = "changed";
  assert.equal(sources(anthropicCitedAnswer)[0].title, "Announcing Deno 2");
});

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

Deno.test("a later sighting of a URL fills in the title and age the first one lacked", () => {
  const url = "https://deno.com/blog/v2.0";
  const transcript = [
    {
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "deno 2", sources: [{ type: "url", url }] },
    },
    {
      role: "assistant",
      content: [{
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [{
          type: "web_search_result",
          url,
          title: "Announcing Deno 2",
          page_age: "October 9, 2024",
          encrypted_content: "Eq",
        }],
      }],
    },
  ];
  assert.deepEqual(sources(transcript), [
    { url, title: "Announcing Deno 2", pageAge: "October 9, 2024" },
  ]);
});

Deno.test("Anthropic web fetch: the page, its failures and the citations into it", () => {
  assert.deepEqual(sources(anthropicFetchAnswer), [
    { url: "https://deno.com/blog/v2.0", title: "Announcing Deno 2" },
    { url: "https://evil.example/mirror", error: "url_not_accessible" },
  ]);
  assert.deepEqual(citations(anthropicFetchAnswer), [{
    url: "https://deno.com/blog/v2.0",
    title: "Announcing Deno 2",
    citedText: "Deno 2 is here.",
    messageIndex: 0,
  }]);
  // The content array alone reads the same.
  assert.deepEqual(sources(anthropicFetchAnswer.content), sources(anthropicFetchAnswer));
});

Deno.test("Anthropic web fetch: document indexes count the user's documents too", () => {
  assert.deepEqual(sources(anthropicFetchTurns), [
    { url: "https://deno.com/blog/v2.0", title: "Announcing Deno 2" },
  ]);
  // Index 0 is the user's own document, which has no URL: only index 1 is a page.
  assert.deepEqual(citations(anthropicFetchTurns), [{
    url: "https://deno.com/blog/v2.0",
    title: "Announcing Deno 2",
    citedText: "Deno 2 is here.",
    messageIndex: 1,
  }]);
});

Deno.test("Anthropic web fetch: a page read after a failed try counts as read", () => {
  const failed = anthropicFetchAnswer.content.slice(4, 6);
  const retried = [
    { role: "assistant", content: failed },
    {
      role: "assistant",
      content: [
        {
          type: "server_tool_use",
          id: "srvtoolu_r",
          name: "web_fetch",
          input: { url: "https://evil.example/mirror" },
        },
        {
          type: "web_fetch_tool_result",
          tool_use_id: "srvtoolu_r",
          content: {
            type: "web_fetch_result",
            url: "https://evil.example/mirror",
            content: {
              type: "document",
              source: { type: "text", media_type: "text/plain", data: "x" },
            },
          },
        },
      ],
    },
  ];
  assert.deepEqual(sources(retried), [{ url: "https://evil.example/mirror" }]);
  // A failure whose call is missing has no URL to report, and is skipped.
  assert.deepEqual(sources([{ role: "assistant", content: [failed[1]] }]), []);
});

const redirect = (id: string) =>
  `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${id}`;

Deno.test("Gemini: grounding chunks are sources, named by site; supports are citations", () => {
  assert.deepEqual(sources(geminiGroundedAnswer), [
    { url: redirect("AUZIYQH1"), title: "aljazeera.com", site: "aljazeera.com" },
    { url: redirect("AUZIYQE2"), title: "uefa.com", site: "uefa.com" },
    { url: redirect("AUZIYQE3"), title: "evil.example", site: "evil.example" },
  ]);
  const supported = "This victory marks Spain's record fourth European Championship title.";
  const cite = (id: string, site: string, startIndex: number, endIndex: number, text: string) => ({
    url: redirect(id),
    title: site,
    site,
    messageIndex: 0,
    startIndex,
    endIndex,
    supportedText: text,
  });
  assert.deepEqual(citations(geminiGroundedAnswer), [
    cite(
      "AUZIYQH1",
      "aljazeera.com",
      0,
      56,
      "Spain won Euro 2024, defeating England 2-1 in the final.",
    ),
    cite("AUZIYQH1", "aljazeera.com", 57, 126, supported),
    cite("AUZIYQE2", "uefa.com", 57, 126, supported),
    cite("AUZIYQE3", "evil.example", 57, 126, supported),
  ]);
  // A candidate alone, and a history of contents with the response, read the same.
  assert.deepEqual(sources(geminiGroundedCandidate), sources(geminiGroundedAnswer));
  const history = [{ role: "user", parts: [{ text: "Who won?" }] }, geminiGroundedAnswer];
  assert.equal(citations(history)[0].messageIndex, 1);
});

Deno.test("Gemini: a direct URI is not a redirect; a title that is no host names no site", () => {
  const answer = {
    candidates: [{
      content: { role: "model", parts: [{ text: "Done." }] },
      groundingMetadata: {
        groundingChunks: [
          { web: { uri: "https://deno.com/blog", title: "deno.com" } },
          { web: { uri: redirect("X"), title: "Deno Blog — news" } },
          { web: { title: "no uri" } },
          { retrievedContext: { uri: "gs://bucket/doc" } },
        ],
        groundingSupports: [{ segment: { endIndex: 5 }, groundingChunkIndices: [0, 1, 2, 3, 9] }],
      },
    }],
  };
  assert.deepEqual(sources(answer), [
    { url: "https://deno.com/blog", title: "deno.com" },
    { url: redirect("X"), title: "Deno Blog — news" },
  ]);
  assert.deepEqual(citations(answer).map((c) => c.url), ["https://deno.com/blog", redirect("X")]);
});

Deno.test("Gemini: URL context pages, with the status of those that failed", () => {
  assert.deepEqual(sources(geminiUrlContextAnswer), [
    { url: "https://www.foodnetwork.com/recipes/ina-garten/perfect-roast-chicken" },
    { url: "https://paywalled.example/recipe", error: "URL_RETRIEVAL_STATUS_PAYWALL" },
  ]);
  assert.deepEqual(citations(geminiUrlContextAnswer), []);
});

Deno.test("all three providers in one array keep their entry indexes", () => {
  const mixed = [anthropicFetchAnswer, openAICitedAnswer, geminiGroundedAnswer];
  assert.deepEqual(
    citations(mixed).map((c) => [c.messageIndex, new URL(c.url).hostname]),
    [
      [0, "deno.com"],
      [1, "deno.com"],
      [2, "vertexaisearch.cloud.google.com"],
      [2, "vertexaisearch.cloud.google.com"],
      [2, "vertexaisearch.cloud.google.com"],
      [2, "vertexaisearch.cloud.google.com"],
    ],
  );
  // deno.com/blog/v2.0 was fetched by Claude and found by OpenAI: one source.
  assert.equal(sources(mixed).length, 2 + 1 + 3);
});
