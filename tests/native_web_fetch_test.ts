import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type { GenerateContentParameters, Tool as GeminiSdkTool } from "@google/genai";
import type OpenAI from "openai";
import { nativeWebSearch, SetupError } from "../mod.ts";
import type {
  AnthropicWebFetchTool20250910,
  AnthropicWebFetchTool20260309,
} from "../src/anthropic/mod.ts";
import type { GeminiGoogleSearchTool, GeminiUrlContextTool } from "../src/gemini/mod.ts";
import {
  DomainPolicy,
  type HostedWebFetch,
  nativeWebFetch,
  type NativeWebFetchOptions,
} from "../src/hosted/mod.ts";
import type { OpenAIWebSearchTool } from "../src/openai/mod.ts";

// Type-level proofs against the SDKs' own request types, as native_web_search_test.ts does.
type NoExtraKeys<Ours, Theirs> = [Exclude<keyof Ours, keyof Theirs>] extends [never] ? true
  : false;
const fetchFirstKeys: NoExtraKeys<
  AnthropicWebFetchTool20250910,
  Anthropic.Messages.WebFetchTool20250910
> = true;
const fetchCacheKeys: NoExtraKeys<
  AnthropicWebFetchTool20260309,
  Anthropic.Messages.WebFetchTool20260309
> = true;
const searchToolKeys: NoExtraKeys<GeminiGoogleSearchTool, GeminiSdkTool> = true;
const urlContextKeys: NoExtraKeys<GeminiUrlContextTool, GeminiSdkTool> = true;
const openAIKeys: NoExtraKeys<OpenAIWebSearchTool, OpenAI.Responses.WebSearchTool> = true;

function anthropicRequest(fetch: HostedWebFetch): Anthropic.MessageCreateParamsNonStreaming {
  const tool: Anthropic.Messages.WebFetchTool20250910 | Anthropic.Messages.WebFetchTool20260309 =
    fetch.toAnthropic();
  const tools: Anthropic.Messages.ToolUnion[] = [tool];
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Summarize https://deno.com/blog/v2.0" }],
    tools,
  };
}

function geminiRequest(tools: GeminiSdkTool[]): GenerateContentParameters {
  return { model: "gemini-2.5-flash", contents: "Who won Euro 2024?", config: { tools } };
}

function quiet(): { logger: { warn(message: string): void }; notes: string[] } {
  const notes: string[] = [];
  return { logger: { warn: (message) => notes.push(message) }, notes };
}

Deno.test("type-level: fetch and Gemini tool objects match the SDK param types", () => {
  assert.deepEqual(
    [fetchFirstKeys, fetchCacheKeys, searchToolKeys, urlContextKeys, openAIKeys],
    [true, true, true, true, true],
  );
  const request = anthropicRequest(nativeWebFetch({ useCache: true, citations: false }));
  assert.equal(request.tools?.length, 1);
  const gemini = geminiRequest([nativeWebSearch().toGemini(), nativeWebFetch().toGemini()]);
  assert.deepEqual(gemini.config?.tools, [{ googleSearch: {} }, { urlContext: {} }]);
});

Deno.test("Anthropic web fetch: every option on the wire, the version chosen by useCache", () => {
  assert.deepEqual(nativeWebFetch().toAnthropic(), {
    type: "web_fetch_20250910",
    name: "web_fetch",
  });
  assert.deepEqual(
    nativeWebFetch({
      allowedDomains: ["Docs.Deno.com", "deno.com/blog"],
      maxUses: 5,
      citations: true,
      maxContentTokens: 100_000,
    }).toAnthropic(),
    {
      type: "web_fetch_20250910",
      name: "web_fetch",
      max_uses: 5,
      allowed_domains: ["docs.deno.com", "deno.com/blog"],
      citations: { enabled: true },
      max_content_tokens: 100_000,
    },
  );
  assert.deepEqual(
    nativeWebFetch({ blockedDomains: ["pinterest.com"], useCache: false, citations: false })
      .toAnthropic(),
    {
      type: "web_fetch_20260309",
      name: "web_fetch",
      blocked_domains: ["pinterest.com"],
      citations: { enabled: false },
      use_cache: false,
    },
  );
  assert.equal(nativeWebFetch({ useCache: true }).toAnthropic().type, "web_fetch_20260309");
});

Deno.test("nativeWebFetch validates as nativeWebSearch does: nothing dropped silently", () => {
  const bad: [unknown, RegExp][] = [
    [null, /options must be an object, not null/],
    [[], /options must be an object/],
    [{ max_uses: 3 }, /Unknown nativeWebFetch option `max_uses`/],
    [{ allowedDomains: ["a.com"], blockedDomains: ["b.com"] }, /not both/],
    [{ allowedDomains: [] }, /allowedDomains is empty/],
    [{ allowedDomains: ["co.uk"] }, /public suffix|registrable/],
    [{ blockedDomains: ["https://evil.example/"] }, /blockedDomains/],
    [{ maxUses: 0 }, /maxUses must be a positive integer, not 0/],
    [{ maxUses: 1.5 }, /maxUses must be a positive integer/],
    [{ maxContentTokens: -1 }, /maxContentTokens must be a positive integer/],
    [{ citations: "yes" }, /citations must be true or false/],
    [{ useCache: 0 }, /useCache must be true or false/],
    [{ logger: {} }, /logger must be a HostedSearchLogger/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => nativeWebFetch(options as NativeWebFetchOptions), (error: unknown) => {
      assert.ok(error instanceof SetupError, String(error));
      assert.match(error.message, message);
      return true;
    });
  }
});

Deno.test("Gemini cannot filter domains: refused at construction unless audit-only", () => {
  const { logger, notes } = quiet();
  const cases = [
    nativeWebSearch({ allowedDomains: ["uefa.com"], logger }),
    nativeWebSearch({ blockedDomains: ["evil.example"], logger }),
    nativeWebFetch({ allowedDomains: ["uefa.com"], logger }),
    nativeWebFetch({ blockedDomains: ["evil.example"], logger }),
    DomainPolicy.allow(["uefa.com"]).nativeWebSearch({ logger }),
    DomainPolicy.block(["evil.example"]).nativeWebFetch({ logger }),
  ];
  for (const hosted of cases) {
    assert.throws(() => hosted.toGemini(), (error: unknown) => {
      assert.ok(error instanceof SetupError);
      assert.match(error.message, /cannot filter domains/);
      assert.match(error.hint ?? "", /auditOnly: true/);
      return true;
    });
    assert.throws(() => hosted.toGemini({ auditOnly: false }), SetupError);
    assert.equal(Object.keys(hosted.toGemini({ auditOnly: true })).length, 1);
  }
  assert.deepEqual(notes, []);
  // An empty block list filters nothing, so there is nothing to refuse.
  assert.deepEqual(nativeWebSearch({ blockedDomains: [] }).toGemini(), { googleSearch: {} });
  for (const options of [{ auditonly: true }, { auditOnly: "yes" }, 3]) {
    assert.throws(() => nativeWebFetch().toGemini(options as never), SetupError);
  }
});

Deno.test("Gemini: options its tools lack are logged once each and ignored", () => {
  const { logger, notes } = quiet();
  const search = nativeWebSearch({
    maxUses: 2,
    userLocation: { country: "es" },
    searchContextSize: "high",
    dynamicFiltering: true,
    externalWebAccess: false,
    logger,
  });
  assert.deepEqual(search.toGemini(), { googleSearch: {} });
  search.toGemini();
  const fetch = nativeWebFetch({
    maxUses: 2,
    citations: true,
    maxContentTokens: 9,
    useCache: false,
    logger,
  });
  assert.deepEqual(fetch.toGemini(), { urlContext: {} });
  fetch.toGemini();
  assert.deepEqual(notes, [
    "nativeWebSearch: maxUses is ignored for Gemini: its google_search tool has no such setting.",
    "nativeWebSearch: userLocation is ignored for Gemini: its google_search tool has no such setting.",
    "nativeWebSearch: searchContextSize is ignored for Gemini: its google_search tool has no such setting.",
    "nativeWebSearch: dynamicFiltering is ignored for Gemini: its google_search tool has no such setting.",
    "nativeWebSearch: externalWebAccess is ignored for Gemini: its google_search tool has no such setting.",
    "nativeWebFetch: maxUses is ignored for Gemini: its url_context tool has no such setting.",
    "nativeWebFetch: citations is ignored for Gemini: its url_context tool has no such setting.",
    "nativeWebFetch: maxContentTokens is ignored for Gemini: its url_context tool has no such setting.",
    "nativeWebFetch: useCache is ignored for Gemini: its url_context tool has no such setting.",
  ]);
});

Deno.test("policy.nativeWebFetch takes the policy's list and refuses another", () => {
  const allow = DomainPolicy.allow(["deno.com", "jsr.io"]);
  assert.deepEqual(allow.nativeWebFetch({ maxUses: 2 }).toAnthropic(), {
    type: "web_fetch_20250910",
    name: "web_fetch",
    max_uses: 2,
    allowed_domains: ["deno.com", "jsr.io"],
  });
  assert.deepEqual(
    DomainPolicy.block(["evil.example"]).nativeWebFetch().toAnthropic().blocked_domains,
    ["evil.example"],
  );
  for (const key of ["allowedDomains", "blockedDomains"]) {
    assert.throws(
      () => allow.nativeWebFetch({ [key]: ["x.com"] } as never),
      new RegExp(`Don't pass ${key} to policy.nativeWebFetch`),
    );
  }
  assert.throws(() => allow.nativeWebFetch({ colour: "red" } as never), /Unknown.*`colour`/);
});

Deno.test("OpenAI web_search: external_web_access as its types have it, logged for Anthropic", () => {
  const { logger, notes } = quiet();
  const offline = nativeWebSearch({ externalWebAccess: false, searchContextSize: "low", logger });
  const tool: OpenAI.Responses.WebSearchTool = offline.toOpenAI();
  assert.deepEqual(tool, {
    type: "web_search",
    search_context_size: "low",
    external_web_access: false,
  });
  assert.equal("external_web_access" in nativeWebSearch().toOpenAI(), false);
  offline.toAnthropic();
  assert.deepEqual(notes, [
    "nativeWebSearch: searchContextSize is ignored for Anthropic: its web search tool has no such setting.",
    "nativeWebSearch: externalWebAccess is ignored for Anthropic: its web search tool has no offline mode.",
  ]);
  assert.throws(() => nativeWebSearch({ externalWebAccess: "no" as never }), SetupError);
});
