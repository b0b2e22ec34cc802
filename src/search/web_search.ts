// zod/mini: the Worker and a program that uses web_search bundle no classic zod.
import * as z from "zod/mini";
// Named: `z.core.describe` would bring all of zod's core, every locale included.
import { describe } from "zod/v4/core";
import { fence, FENCE_NOTE } from "../fence.ts";
import { presetTool, type Tool } from "../tool.ts";
import { FAMILY_SCHEMAS } from "../family_schemas.ts";
import type { UrlPolicy } from "../url_policy.ts";
import { oneLine, quote } from "./search_support.ts";

/**
 * How far back results may reach: the past day, week, month or year.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SearchOptions, type TimeRange, webSearch } from "@outpost/agent-tools/search";
 * const lastWeek: TimeRange = "w";
 * const asked: SearchOptions[] = [];
 * const backend = { search: (_query: string, options: SearchOptions) => (asked.push(options), Promise.resolve([])) };
 * await webSearch(backend).execute({ query: "deno", time_range: lastWeek });
 * assert.equal(asked[0].timeRange, "w");
 * ```
 */
export type TimeRange = "d" | "w" | "m" | "y";

/**
 * One search hit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SearchResult, webSearch } from "@outpost/agent-tools/search";
 * const hit: SearchResult = { title: "Deno", url: "https://deno.com/", snippet: "A runtime." };
 * const text = await webSearch({ search: () => Promise.resolve([hit]) }).execute({ query: "deno" });
 * assert.match(text, /Deno\nhttps:\/\/deno\.com\/\nA runtime\./);
 * ```
 */
export interface SearchResult {
  /** The page title, as plain text. */
  title: string;
  /** The page's absolute http(s) URL. */
  url: string;
  /** A short excerpt of the page, as plain text (may be empty). */
  snippet: string;
}

/**
 * What a {@linkcode WebSearch} is asked for besides the query.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SearchOptions, TavilySearch } from "@outpost/agent-tools/search";
 * const options: SearchOptions = { maxResults: 5, timeRange: "m" };
 * // A stand-in for the Tavily API, to see what the backend asks it for:
 * const sent: unknown[] = [];
 * const api = async (input: RequestInfo | URL, init?: RequestInit) => {
 *   sent.push(await new Request(input, init).json());
 *   return Response.json({ results: [] });
 * };
 * await new TavilySearch({ apiKey: "tvly-test", fetch: api }).search("deno", options);
 * assert.deepEqual(sent, [{ query: "deno", max_results: 5, time_range: "month" }]);
 * ```
 */
export interface SearchOptions {
  /** The most results to return. */
  maxResults: number;
  /** Only results from this recent period. */
  timeRange?: TimeRange;
  /** Aborting it ends the search in flight. */
  signal?: AbortSignal;
  /**
   * Told, in a plain sentence, what the results alone cannot show: that part of the search failed
   * and fewer results came back than were there to find. {@linkcode webSearch} shows each notice
   * to the model after the results.
   */
  onNotice?: (notice: string) => void;
}

/**
 * A search backend. Implementations keep no per-call state, so one instance may serve many
 * concurrent searches. Failures the model should see are {@linkcode ToolError}s; a search that
 * finds nothing resolves to an empty list. A search that fails part-way, after some results are
 * in hand, resolves to those results and says what went wrong through `options.onNotice`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SearchResult, type WebSearch, webSearch } from "@outpost/agent-tools/search";
 *
 * const docsOnly: WebSearch = {
 *   async search(query, options): Promise<SearchResult[]> {
 *     const hits: SearchResult[] = [{ title: "Deno", url: "https://docs.deno.com/", snippet: "" }];
 *     return hits.slice(0, options.maxResults);
 *   },
 * };
 * const search = webSearch(docsOnly, { name: "docs_search" });
 * assert.equal(search.name, "docs_search");
 * ```
 */
export interface WebSearch {
  /** Runs one search and returns at most `options.maxResults` results, best first. */
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
}

/**
 * Options of {@linkcode webSearch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webSearch, type WebSearchOptions } from "@outpost/agent-tools/search";
 * const options: WebSearchOptions = { name: "search", policy: { permits: (url) => !url.includes("ads") } };
 * const hits = [
 *   { title: "Deno", url: "https://deno.com/", snippet: "" },
 *   { title: "Buy", url: "https://ads.example/", snippet: "" },
 * ];
 * const text = await webSearch({ search: () => Promise.resolve(hits) }, options).execute({ query: "deno" });
 * assert.ok(text.includes("https://deno.com/") && !text.includes("ads.example"));
 * ```
 */
export interface WebSearchOptions {
  /** The model-facing tool name (default `web_search`). */
  name?: string;
  /** Results whose URL it does not permit are withheld; the model is told how many. */
  policy?: UrlPolicy;
}

/** The fewest and most results the model may ask for; other counts are clamped into this. */
const MIN_RESULTS = 1;
const MAX_RESULTS = 20;

let input: ReturnType<typeof makeSearchInput> | undefined;

/** `web_search`'s input: made once, and so its JSON Schema. */
function searchInput() {
  return input ??= makeSearchInput();
}

function makeSearchInput() {
  return z.object({
    query: z.string().check(
      z.trim(),
      z.minLength(1),
      describe("What to search for, as you would type it."),
    ),
    max_results: z._default(z.int(), 5).check(
      describe(`How many results to return, ${MIN_RESULTS} to ${MAX_RESULTS}.`),
    ),
    time_range: z.optional(z.enum(["d", "w", "m", "y"])).check(
      describe(
        "Only results from the past day (d), week (w), month (m) or year (y). Omit for any time.",
      ),
    ),
  });
}

/**
 * Builds the `web_search` tool on a {@linkcode WebSearch} backend. The model passes `query`,
 * `max_results` (default 5, clamped into 1–20) and an optional `time_range` (`d`, `w`, `m`,
 * `y`); it gets numbered blocks — title, URL, snippet — inside the fence, or `No results.`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type WebSearch, webSearch } from "@outpost/agent-tools/search";
 * // A backend of your own; TavilySearch and DuckDuckGoSearch are the ready ones.
 * const fixed: WebSearch = {
 *   search: () =>
 *     Promise.resolve([{ title: "Deno 2", url: "https://deno.com/blog/v2", snippet: "Deno 2 is out." }]),
 * };
 * const text = await webSearch(fixed).execute({ query: "deno 2 release notes", max_results: 3 });
 * assert.match(text, /Deno 2\nhttps:\/\/deno\.com\/blog\/v2/);
 * ```
 */
export function webSearch(backend: WebSearch, options: WebSearchOptions = {}): Tool {
  const { name = "web_search", policy } = options;
  return presetTool({
    name,
    title: "Web search",
    annotations: { readOnlyHint: true, openWorldHint: true },
    outputSchema: SEARCH_OUTPUT,
    description:
      "Searches the web and returns numbered results, each a title, its URL and a short snippet. Use it to find pages about a topic or current events; snippets are excerpts, so open a page before relying on details. " +
      FENCE_NOTE,
    input: searchInput(),
    async execute({ query, max_results, time_range }, ctx) {
      const maxResults = Math.min(MAX_RESULTS, Math.max(MIN_RESULTS, max_results));
      const notices: string[] = [];
      const found = await backend.search(query, {
        maxResults,
        timeRange: time_range,
        signal: ctx.signal,
        // A notice is outside the fence, so it is disarmed and kept short like any quoted text.
        onNotice: (notice) => notices.push(quote(notice)),
      });
      const shown = policy ? found.filter((hit) => policy.permits(hit.url)) : found;
      const withheld = found.length - shown.length;
      if (withheld > 0) {
        const were = withheld === 1 ? "result was" : "results were";
        notices.unshift(`${withheld} ${were} withheld by the URL policy.`);
      }
      for (const notice of notices) ctx.warn?.(notice);
      const results = shown.slice(0, maxResults);
      return {
        text: render(results, notices),
        structured: {
          results: results.map(({ title, url, snippet }) => ({ title, url, snippet })),
          notices,
        },
      };
    },
  }, FAMILY_SCHEMAS.web_search);
}

/**
 * The structured result: the hits as data for programs (the model reads them fenced in the
 * text), and the notices the text shows after them.
 */
const SEARCH_OUTPUT = {
  type: "object",
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        properties: {
          title: { type: "string" },
          url: { type: "string" },
          snippet: { type: "string" },
        },
        required: ["title", "url", "snippet"],
        additionalProperties: false,
      },
    },
    notices: { type: "array", items: { type: "string" } },
  },
  required: ["results", "notices"],
  additionalProperties: false,
} as const;

/** The hits inside the fence, then our own notices outside it. */
function render(results: SearchResult[], notices: string[]): string {
  const note = notices.filter(Boolean).join("\n");
  if (results.length === 0) return note ? `No results. ${note}` : "No results.";
  // Titles and snippets stay on one line each, so a hit cannot fake the block layout.
  const blocks = results.map((hit, i) => {
    const url = oneLine(hit.url);
    const lines = [`${i + 1}. ${oneLine(hit.title) || url}`, url];
    const snippet = oneLine(hit.snippet);
    if (snippet) lines.push(snippet);
    return lines.join("\n");
  });
  const body = fence(blocks.join("\n\n"));
  return note ? `${body}\n${note}` : body;
}
