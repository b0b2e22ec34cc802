import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { nativeWebSearch, SetupError } from "../mod.ts";
import type {
  AnthropicWebSearchTool,
  AnthropicWebSearchTool20250305,
  AnthropicWebSearchTool20260209,
} from "../src/anthropic/mod.ts";
import type {
  HostedWebSearch,
  NativeWebSearchOptions,
  UserLocationParam,
} from "../src/hosted/mod.ts";
import type { OpenAIWebSearchTool } from "../src/openai/mod.ts";

// Type-level proofs against the SDKs' own request types: our tool objects must be accepted where
// the SDKs take a tool, and must not carry a key the SDK type does not know.
type NoExtraKeys<Ours, Theirs> = [Exclude<keyof Ours, keyof Theirs>] extends [never] ? true
  : false;
const anthropicBasicKeys: NoExtraKeys<
  AnthropicWebSearchTool20250305,
  Anthropic.Messages.WebSearchTool20250305
> = true;
const anthropicDynamicKeys: NoExtraKeys<
  AnthropicWebSearchTool20260209,
  Anthropic.Messages.WebSearchTool20260209
> = true;
const anthropicLocationKeys: NoExtraKeys<UserLocationParam, Anthropic.Messages.UserLocation> = true;
const openAIKeys: NoExtraKeys<OpenAIWebSearchTool, OpenAI.Responses.WebSearchTool> = true;
const openAILocationKeys: NoExtraKeys<
  UserLocationParam,
  OpenAI.Responses.WebSearchTool.UserLocation
> = true;

function anthropicRequest(search: HostedWebSearch): Anthropic.MessageCreateParamsNonStreaming {
  const basic: Anthropic.Messages.WebSearchTool20250305 | Anthropic.Messages.WebSearchTool20260209 =
    search.toAnthropic();
  const tools: Anthropic.Messages.ToolUnion[] = [basic, search.toAnthropic()];
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Latest Deno release?" }],
    tools,
  };
}

function openAIRequest(search: HostedWebSearch): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const tool: OpenAI.Responses.WebSearchTool = search.toOpenAI();
  const tools: OpenAI.Responses.Tool[] = [tool];
  return { model: "gpt-5", input: "Latest Deno release?", tools };
}

function quiet(): { logger: { warn(message: string): void }; notes: string[] } {
  const notes: string[] = [];
  return { logger: { warn: (message) => notes.push(message) }, notes };
}

Deno.test("type-level: tool objects match the SDK param types", () => {
  assert.deepEqual(
    [
      anthropicBasicKeys,
      anthropicDynamicKeys,
      anthropicLocationKeys,
      openAIKeys,
      openAILocationKeys,
    ],
    [true, true, true, true, true],
  );
  const { logger } = quiet();
  const search = nativeWebSearch({ allowedDomains: ["deno.com"], logger });
  assert.equal(anthropicRequest(search).tools?.length, 2);
  assert.equal(openAIRequest(search).tools?.length, 1);
});

Deno.test("toAnthropic: the basic tool with every Anthropic field", () => {
  const search = nativeWebSearch({
    allowedDomains: ["Docs.Deno.com", "deno.com/blog", "docs.deno.com"],
    maxUses: 5,
    userLocation: {
      city: " San Francisco ",
      region: "California",
      country: "us",
      timezone: "america/los_angeles",
    },
  });
  const expected: AnthropicWebSearchTool = {
    type: "web_search_20250305",
    name: "web_search",
    max_uses: 5,
    allowed_domains: ["docs.deno.com", "deno.com/blog"],
    user_location: {
      type: "approximate",
      city: "San Francisco",
      region: "California",
      country: "US",
      timezone: "America/Los_Angeles",
    },
  };
  assert.deepEqual(search.toAnthropic(), expected);
  assert.deepEqual(search.allowedDomains, ["docs.deno.com", "deno.com/blog"]);
  assert.equal(search.dynamicFiltering, false);
});

Deno.test("toAnthropic: dynamic filtering picks web_search_20260209, block lists pass through", () => {
  const search = nativeWebSearch({ blockedDomains: ["pinterest.com"], dynamicFiltering: true });
  assert.deepEqual(search.toAnthropic(), {
    type: "web_search_20260209",
    name: "web_search",
    blocked_domains: ["pinterest.com"],
  });
  assert.deepEqual(nativeWebSearch().toAnthropic(), {
    type: "web_search_20250305",
    name: "web_search",
  });
});

Deno.test("toOpenAI: the Responses tool with filters, location and context size", () => {
  const search = nativeWebSearch({
    allowedDomains: ["pubmed.ncbi.nlm.nih.gov", "who.int"],
    userLocation: { country: "GB", city: "London" },
    searchContextSize: "high",
  });
  const expected: OpenAIWebSearchTool = {
    type: "web_search",
    filters: { allowed_domains: ["pubmed.ncbi.nlm.nih.gov", "who.int"] },
    user_location: { type: "approximate", city: "London", country: "GB" },
    search_context_size: "high",
  };
  assert.deepEqual(search.toOpenAI(), expected);
  assert.deepEqual(nativeWebSearch().toOpenAI(), { type: "web_search" });
  // An empty location still opts out of OpenAI's United States default.
  assert.deepEqual(nativeWebSearch({ userLocation: {} }).toOpenAI(), {
    type: "web_search",
    user_location: { type: "approximate" },
  });
});

Deno.test("toOpenAI refuses domain restrictions it cannot enforce instead of dropping them", () => {
  const blocked = nativeWebSearch({ blockedDomains: ["evil.example"] });
  assert.throws(() => blocked.toOpenAI(), (error: unknown) => {
    assert.ok(error instanceof SetupError);
    assert.match(error.message, /no blocked-domains filter/);
    assert.match(error.hint ?? "", /allowedDomains/);
    return true;
  });
  assert.throws(
    () => nativeWebSearch({ allowedDomains: ["deno.com/blog"] }).toOpenAI(),
    /"deno\.com\/blog" cannot be enforced/,
  );
  const many = Array.from({ length: 101 }, (_, i) => `site${i}.example`);
  assert.throws(() => nativeWebSearch({ allowedDomains: many }).toOpenAI(), /at most 100/);
  assert.equal(nativeWebSearch({ allowedDomains: many.slice(1) }).toOpenAI().type, "web_search");
  // An empty block list restricts nothing, so there is nothing to drop.
  assert.deepEqual(nativeWebSearch({ blockedDomains: [] }).toOpenAI(), { type: "web_search" });
});

Deno.test("unsupported tuning options are logged once and ignored", () => {
  const { logger, notes } = quiet();
  const search = nativeWebSearch({
    maxUses: 3,
    dynamicFiltering: true,
    searchContextSize: "low",
    logger,
  });
  assert.deepEqual(search.toOpenAI(), { type: "web_search", search_context_size: "low" });
  assert.deepEqual(search.toAnthropic(), {
    type: "web_search_20260209",
    name: "web_search",
    max_uses: 3,
  });
  search.toOpenAI();
  search.toAnthropic();
  assert.deepEqual(notes, [
    "nativeWebSearch: maxUses is ignored for OpenAI: the Responses web_search tool has no search limit.",
    "nativeWebSearch: dynamicFiltering is ignored for OpenAI: it is an Anthropic tool version.",
    "nativeWebSearch: searchContextSize is ignored for Anthropic: its web search tool has no such setting.",
  ]);
});

Deno.test("the default logger is console.warn", () => {
  const original = console.warn;
  const seen: unknown[] = [];
  console.warn = (...args: unknown[]) => seen.push(args.join(" "));
  try {
    nativeWebSearch({ searchContextSize: "medium" }).toAnthropic();
  } finally {
    console.warn = original;
  }
  assert.equal(seen.length, 1);
  assert.match(String(seen[0]), /searchContextSize is ignored for Anthropic/);
});

Deno.test("there is no Chat Completions conversion", () => {
  assert.equal("toOpenAIChat" in nativeWebSearch(), false);
});

Deno.test("options are validated up front, by name", () => {
  const cases: [unknown, RegExp][] = [
    [{ allowed_domains: ["x.com"] }, /Unknown nativeWebSearch option `allowed_domains`/],
    [{ maxuses: 1, foo: 2 }, /options `maxuses`, `foo`/],
    [{ allowedDomains: ["a.com"], blockedDomains: ["b.com"] }, /not both/],
    [{ allowedDomains: [] }, /allowedDomains is empty/],
    [{ allowedDomains: "a.com" }, /allowedDomains must be an array/],
    [
      { blockedDomains: ["https://b.com"] },
      /blockedDomains\[0\] \("https:\/\/b\.com"\) has a scheme/,
    ],
    [{ maxUses: 0 }, /maxUses must be a positive integer, not 0/],
    [{ maxUses: 1.5 }, /positive integer/],
    [{ maxUses: "3" }, /positive integer/],
    [{ searchContextSize: "huge" }, /searchContextSize must be "low", "medium" or "high"/],
    [{ dynamicFiltering: "yes" }, /dynamicFiltering must be true or false, not "yes"/],
    [{ userLocation: "Paris" }, /userLocation must be an object/],
    [{ userLocation: { town: "Paris" } }, /Unknown userLocation field `town`/],
    [{ userLocation: { city: "" } }, /userLocation.city must be a non-empty string/],
    [{ userLocation: { country: "USA" } }, /not an ISO 3166-1 alpha-2 code/],
    [{ userLocation: { country: "XX" } }, /not an ISO 3166-1 alpha-2 code/],
    [{ userLocation: { timezone: "Mars/Olympus" } }, /not an IANA time zone/],
    [{ userLocation: { timezone: "+05:00" } }, /not an IANA time zone/],
    [{ logger: {} }, /logger must be a HostedSearchLogger, with warn\(message\)/],
    [null, /options must be an object, not null/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => nativeWebSearch(options as NativeWebSearchOptions),
      (error: unknown) => error instanceof SetupError && message.test(error.message),
      `expected ${JSON.stringify(options)} to fail with ${message}`,
    );
  }
});

Deno.test("the configuration is immutable and outputs are fresh copies", () => {
  const { logger } = quiet();
  const search = nativeWebSearch({ allowedDomains: ["deno.com"], logger });
  assert.throws(() => (search.allowedDomains as string[]).push("evil.example"), TypeError);
  const tool = search.toAnthropic();
  tool.allowed_domains?.push("evil.example");
  assert.deepEqual(search.toAnthropic().allowed_domains, ["deno.com"]);
  assert.ok(Object.isFrozen(search));
});

Deno.test("the caller's option objects are not modified", () => {
  const domains = ["Deno.com"];
  const userLocation = { country: "de", timezone: "europe/berlin" };
  const search = nativeWebSearch({ allowedDomains: domains, userLocation });
  assert.deepEqual(domains, ["Deno.com"]);
  assert.deepEqual(userLocation, { country: "de", timezone: "europe/berlin" });
  assert.deepEqual(search.userLocation, { country: "DE", timezone: "Europe/Berlin" });
});
