// Transcripts in the providers' documented shapes, typed with their SDKs (test-only imports) so
// a shape we got wrong fails `deno check`. Shared by transcript_test.ts and domain_policy_test.ts.
import type Anthropic from "@anthropic-ai/sdk";
import { type Candidate, type GenerateContentResponse, UrlRetrievalStatus } from "@google/genai";
import type OpenAI from "openai";

type Block = Anthropic.ContentBlock;
type Item = OpenAI.Responses.ResponseOutputItem;

/** A complete Anthropic `Message` around the given content. */
export function anthropicMessage(content: Block[]): Anthropic.Message {
  return {
    id: "msg_01",
    container: null,
    content,
    diagnostics: null,
    model: "claude-sonnet-4-5",
    role: "assistant",
    stop_details: null,
    stop_reason: "end_turn",
    stop_sequence: null,
    type: "message",
    usage: {
      cache_creation: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      inference_geo: null,
      input_tokens: 10,
      output_tokens: 20,
      output_tokens_details: null,
      server_tool_use: { web_fetch_requests: 0, web_search_requests: 1 },
      service_tier: "standard",
      speed: null,
    },
  };
}

/** A complete OpenAI Responses `Response` around the given output items. */
export function openAIResponse(output: Item[]): OpenAI.Responses.Response {
  return {
    id: "resp_01",
    access_programs: null,
    output_text: "",
    created_at: 1_760_000_000,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    model: "gpt-5",
    object: "response",
    output,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [{ type: "web_search" }],
    top_p: null,
  };
}

const direct = { type: "direct" } as const;

export const searchUse: Block = {
  type: "server_tool_use",
  id: "srvtoolu_1",
  name: "web_search",
  input: { query: "deno 2 release" },
  caller: direct,
};

export const searchResult: Block = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_1",
  caller: direct,
  content: [
    {
      type: "web_search_result",
      url: "https://deno.com/blog/v2.0",
      title: "Announcing Deno 2",
      page_age: "October 9, 2024",
      encrypted_content: "EqgfCioIARgBIiQ3",
    },
    {
      type: "web_search_result",
      url: "https://en.wikipedia.org/wiki/Deno_(software)",
      title: "Deno (software)",
      page_age: null,
      encrypted_content: "EqgfCioIARgBIiQ4",
    },
  ],
};

export const citedText: Block = {
  type: "text",
  text: "Deno 2 was released in October 2024.",
  citations: [
    {
      type: "web_search_result_location",
      url: "https://deno.com/blog/v2.0",
      title: "Announcing Deno 2",
      cited_text: "Deno 2 is here.",
      encrypted_index: "Eo8BCioIAhgBIiQy",
    },
  ],
};

/** One search and a cited answer, as a single Anthropic `Message`. */
export const anthropicCitedAnswer = anthropicMessage([
  { type: "text", text: "I'll look that up.", citations: null },
  searchUse,
  searchResult,
  citedText,
  { type: "text", text: " It is backwards compatible with Node.", citations: null },
]);

/** A search that failed: the result block holds an error object. */
export const anthropicSearchError = anthropicMessage([
  searchUse,
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_1",
    caller: direct,
    content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
  },
  { type: "text", text: "I could not search right now.", citations: null },
]);

/** Dynamic filtering: the searches are made by code execution, their blocks name it as caller. */
export const anthropicDynamicFiltering = anthropicMessage([
  {
    type: "server_tool_use",
    id: "srvtoolu_code",
    name: "code_execution",
    input: { code: "results = web_search('deno kv pricing')" },
    caller: direct,
  },
  {
    type: "server_tool_use",
    id: "srvtoolu_2",
    name: "web_search",
    input: { query: "deno kv pricing" },
    caller: { type: "code_execution_20260120", tool_id: "srvtoolu_code" },
  },
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_2",
    caller: { type: "code_execution_20260120", tool_id: "srvtoolu_code" },
    content: [
      {
        type: "web_search_result",
        url: "https://deno.com/deploy/pricing",
        title: "Deno Deploy pricing",
        page_age: "3 days ago",
        encrypted_content: "Eq0",
      },
    ],
  },
  {
    type: "code_execution_tool_result",
    tool_use_id: "srvtoolu_code",
    content: {
      type: "code_execution_result",
      stdout: "KV reads: $1 per million",
      stderr: "",
      return_code: 0,
      content: [],
    },
  },
  {
    type: "text",
    text: "KV reads cost $1 per million.",
    citations: [
      {
        type: "web_search_result_location",
        url: "https://deno.com/deploy/pricing",
        title: "Deno Deploy pricing",
        cited_text: "Reads $1/million",
        encrypted_index: "Eo9",
      },
    ],
  },
]);

/**
 * Several turns as `MessageParam[]`: the second answer searches again, gets a duplicate URL and
 * cites it twice; the last answer links to a page in Markdown.
 */
export const anthropicTurns: Anthropic.MessageParam[] = [
  { role: "user", content: "When was Deno 2 released? See evil.example for context." },
  {
    role: "assistant",
    content: [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "deno 2" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [
          {
            type: "web_search_result",
            url: "https://deno.com/blog/v2.0",
            title: "Announcing Deno 2",
            encrypted_content: "E1",
          },
        ],
      },
      {
        type: "text",
        text: "In October 2024.",
        citations: [
          {
            type: "web_search_result_location",
            url: "https://deno.com/blog/v2.0",
            title: "Announcing Deno 2",
            cited_text: "Deno 2 is here.",
            encrypted_index: "I1",
          },
        ],
      },
    ],
  },
  { role: "user", content: "And Deno 2.1?" },
  {
    role: "assistant",
    content: [
      {
        type: "server_tool_use",
        id: "srvtoolu_2",
        name: "web_search",
        input: { query: "deno 2.1" },
      },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_2",
        content: [
          {
            type: "web_search_result",
            url: "https://deno.com/blog/v2.1",
            title: "Deno 2.1",
            page_age: "November 2024",
            encrypted_content: "E2",
          },
          {
            type: "web_search_result",
            url: "https://deno.com/blog/v2.0",
            title: "Announcing Deno 2",
            page_age: "October 9, 2024",
            encrypted_content: "E3",
          },
        ],
      },
      {
        type: "text",
        text: "Deno 2.1 followed in November.",
        citations: [
          {
            type: "web_search_result_location",
            url: "https://deno.com/blog/v2.1",
            title: "Deno 2.1",
            cited_text: "Deno 2.1 is here.",
            encrypted_index: "I2",
          },
          {
            type: "web_search_result_location",
            url: "https://deno.com/blog/v2.1",
            title: "Deno 2.1",
            cited_text: "with Wasm imports",
            encrypted_index: "I3",
          },
        ],
      },
    ],
  },
  { role: "user", content: "Where can I read more?" },
  {
    role: "assistant",
    content: "See [the evil mirror](https://evil.example/deno) or EVIL.example.",
  },
];

/** Citations whose search results were pruned from the history: citations, no sources. */
export const anthropicCitationsOnly: Anthropic.MessageParam[] = [
  {
    role: "assistant",
    content: [{
      type: "text",
      text: "Fresh is Deno's web framework.",
      citations: [{
        type: "web_search_result_location",
        url: "https://fresh.deno.dev/",
        title: null,
        cited_text: "Fresh",
        encrypted_index: "I4",
      }],
    }],
  },
];

/** A search whose results the answer never cites: sources, no citations. */
export const anthropicSourcesOnly = anthropicMessage([
  searchUse,
  searchResult,
  { type: "text", text: "I found nothing conclusive.", citations: null },
]);

const searchCall = (id: string, urls: string[]): OpenAI.Responses.ResponseFunctionWebSearch => ({
  type: "web_search_call",
  id,
  status: "completed",
  action: { type: "search", query: "deno 2", sources: urls.map((url) => ({ type: "url", url })) },
});

const answer = (
  id: string,
  text: string,
  cites: [string, string, number, number][],
): OpenAI.Responses.ResponseOutputMessage => ({
  type: "message",
  id,
  role: "assistant",
  status: "completed",
  content: [{
    type: "output_text",
    text,
    annotations: cites.map(([url, title, start_index, end_index]) => ({
      type: "url_citation",
      url,
      title,
      start_index,
      end_index,
    })),
  }],
});

const firstOutput = [
  searchCall("ws_1", ["https://deno.com/blog/v2.0", "https://github.com/denoland/deno"]),
  answer(
    "msg_1",
    "Deno 2 was released in October 2024 ([deno.com](https://deno.com/blog/v2.0?utm_source=openai)).",
    [["https://deno.com/blog/v2.0?utm_source=openai", "Announcing Deno 2", 37, 97]],
  ),
];

/** One search and a cited answer, as a Responses `Response`. */
export const openAICitedAnswer = openAIResponse(firstOutput);

/** A search call that failed: no sources, and an uncited apology. */
export const openAISearchError = openAIResponse([
  { type: "web_search_call", id: "ws_err", status: "failed", action: { type: "search" } },
  answer("msg_err", "The search failed.", []),
]);

/**
 * Several turns as a Responses input-item array (what you send back as `input`): the user's
 * message, the first output, the next question and a second output that opened a page, found
 * text in another, and re-found a URL already seen.
 */
export const openAITurns: OpenAI.Responses.ResponseInputItem[] = [
  { role: "user", content: "When was Deno 2 released?" },
  ...firstOutput,
  { role: "user", content: "And 2.1?" },
  searchCall("ws_2", ["https://deno.com/blog/v2.1", "https://deno.com/blog/v2.0"]),
  {
    type: "web_search_call",
    id: "ws_3",
    status: "completed",
    action: { type: "open_page", url: "https://deno.com/blog/v2.1" },
  },
  {
    type: "web_search_call",
    id: "ws_4",
    status: "completed",
    action: { type: "find_in_page", url: "https://docs.deno.com/runtime/", pattern: "2.1" },
  },
  answer("msg_2", "Deno 2.1 came out in November 2024. Details: https://deno.com/blog/v2.1.", [
    ["https://deno.com/blog/v2.1", "Deno 2.1", 0, 35],
    ["https://deno.com/blog/v2.1", "Deno 2.1", 0, 35],
  ]),
];

/** Sources were not requested (no `include`), so only citations remain. */
export const openAICitationsOnly = openAIResponse([
  { type: "web_search_call", id: "ws_5", status: "completed", action: { type: "search" } },
  answer("msg_5", "Fresh is a web framework.", [["https://fresh.deno.dev/", "Fresh", 0, 25]]),
]);

/** Sources the answer never cites. */
export const openAISourcesOnly = openAIResponse([
  searchCall("ws_6", ["https://jsr.io/", "https://jsr.io/"]),
  answer("msg_6", "Nothing conclusive.", []),
]);

const fetchUse = (id: string, url: string): Block => ({
  type: "server_tool_use",
  id,
  name: "web_fetch",
  input: { url },
  caller: direct,
});

const fetchedPage = (id: string, url: string, title: string, data: string): Block => ({
  type: "web_fetch_tool_result",
  tool_use_id: id,
  caller: direct,
  content: {
    type: "web_fetch_result",
    url,
    retrieved_at: "2025-08-25T10:30:00Z",
    content: {
      type: "document",
      source: { type: "text", media_type: "text/plain", data },
      title,
      citations: { enabled: true },
    },
  },
});

/**
 * Anthropic web fetch, as its documentation shows it: a page fetched with citations on, a cited
 * answer (`char_location` into the fetched document), then a fetch that failed.
 */
export const anthropicFetchAnswer = anthropicMessage([
  fetchUse("srvtoolu_f1", "https://deno.com/blog/v2.0"),
  fetchedPage("srvtoolu_f1", "https://deno.com/blog/v2.0", "Announcing Deno 2", "Deno 2 is here."),
  { type: "text", text: "Based on the article, ", citations: null },
  {
    type: "text",
    text: "Deno 2 is out.",
    citations: [{
      type: "char_location",
      document_index: 0,
      document_title: "Announcing Deno 2",
      start_char_index: 0,
      end_char_index: 15,
      cited_text: "Deno 2 is here.",
      file_id: null,
    }],
  },
  fetchUse("srvtoolu_f2", "https://evil.example/mirror"),
  {
    type: "web_fetch_tool_result",
    tool_use_id: "srvtoolu_f2",
    caller: direct,
    content: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" },
  },
  { type: "text", text: "The mirror could not be fetched.", citations: null },
]);

/**
 * The same over two turns as `MessageParam[]`, with a document the user sent first: citation
 * document indexes count it, so index 1 is the fetched page.
 */
export const anthropicFetchTurns: Anthropic.MessageParam[] = [
  {
    role: "user",
    content: [
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: "Our notes." },
        title: "Notes",
      },
      { type: "text", text: "Compare with https://deno.com/blog/v2.0" },
    ],
  },
  {
    role: "assistant",
    content: [
      {
        type: "server_tool_use",
        id: "srvtoolu_f3",
        name: "web_fetch",
        input: { url: "https://deno.com/blog/v2.0" },
      },
      {
        type: "web_fetch_tool_result",
        tool_use_id: "srvtoolu_f3",
        content: {
          type: "web_fetch_result",
          url: "https://deno.com/blog/v2.0",
          content: {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "Deno 2 is here." },
            title: "Announcing Deno 2",
          },
        },
      },
      {
        type: "text",
        text: "Your notes agree with the post.",
        citations: [
          {
            type: "char_location",
            document_index: 0,
            document_title: "Notes",
            start_char_index: 0,
            end_char_index: 10,
            cited_text: "Our notes.",
          },
          {
            type: "char_location",
            document_index: 1,
            document_title: "Announcing Deno 2",
            start_char_index: 0,
            end_char_index: 15,
            cited_text: "Deno 2 is here.",
          },
        ],
      },
    ],
  },
];

/** A Gemini response: `{ candidates }` as the REST API and `@google/genai` return it. */
export type GeminiResponse = Pick<GenerateContentResponse, "candidates">;

const redirect = (id: string) =>
  `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${id}`;

/** Grounding with Google Search, as its documentation shows it: redirect URIs, site titles. */
export const geminiGroundedCandidate: Candidate = {
  content: {
    role: "model",
    parts: [{
      text: "Spain won Euro 2024, defeating England 2-1 in the final. " +
        "This victory marks Spain's record fourth European Championship title.",
    }],
  },
  groundingMetadata: {
    webSearchQueries: ["UEFA Euro 2024 winner", "who won euro 2024"],
    searchEntryPoint: { renderedContent: "<!-- search widget -->" },
    groundingChunks: [
      { web: { uri: redirect("AUZIYQH1"), title: "aljazeera.com" } },
      { web: { uri: redirect("AUZIYQE2"), title: "uefa.com" } },
      { web: { uri: redirect("AUZIYQE3"), title: "evil.example" } },
    ],
    groundingSupports: [
      {
        segment: { endIndex: 56, text: "Spain won Euro 2024, defeating England 2-1 in the final." },
        groundingChunkIndices: [0],
      },
      {
        segment: {
          startIndex: 57,
          endIndex: 126,
          text: "This victory marks Spain's record fourth European Championship title.",
        },
        groundingChunkIndices: [0, 1, 2],
      },
    ],
  },
};

export const geminiGroundedAnswer: GeminiResponse = { candidates: [geminiGroundedCandidate] };

/** URL context, as its documentation shows it: one page read, one that failed. */
export const geminiUrlContextAnswer: GeminiResponse = {
  candidates: [{
    content: { role: "model", parts: [{ text: "The recipe takes 40 minutes." }] },
    urlContextMetadata: {
      urlMetadata: [
        {
          retrievedUrl: "https://www.foodnetwork.com/recipes/ina-garten/perfect-roast-chicken",
          urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_SUCCESS,
        },
        {
          retrievedUrl: "https://paywalled.example/recipe",
          urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_PAYWALL,
        },
      ],
    },
  }],
};
