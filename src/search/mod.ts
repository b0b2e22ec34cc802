/**
 * Searching the web: the {@linkcode webSearch} tool over a {@linkcode WebSearch} backend, and
 * the backends, built with `new`: {@linkcode DuckDuckGoSearch} (no key), {@linkcode TavilySearch},
 * {@linkcode BraveSearch}, {@linkcode ExaSearch}, {@linkcode SerperSearch} (keyed) and
 * {@linkcode SearxngSearch} (a self-hosted instance).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DuckDuckGoSearch, webSearch } from "@outpost/agent-tools/search";
 * const search = webSearch(new DuckDuckGoSearch({ region: "us-en" }));
 * assert.equal(search.name, "web_search");
 * ```
 *
 * @module
 */
export {
  type SearchOptions,
  type SearchResult,
  type TimeRange,
  type WebSearch,
  webSearch,
  type WebSearchOptions,
} from "./web_search.ts";
export { DuckDuckGoSearch, type DuckDuckGoSearchOptions } from "./duckduckgo.ts";
export { TavilySearch, type TavilySearchOptions } from "./tavily.ts";
export { BraveSearch, type BraveSearchOptions } from "./brave.ts";
export { ExaSearch, type ExaSearchOptions } from "./exa.ts";
export { SearxngSearch, type SearxngSearchOptions } from "./searxng.ts";
export { SerperSearch, type SerperSearchOptions } from "./serper.ts";
export type { SearchApiOptions } from "./json_api.ts";
