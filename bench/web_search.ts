/**
 * Parsing and rendering cost of search results: `deno task bench`, or this file alone with
 * `deno run -A bench/web_search.ts` (`deno bench bench/web_search.ts` for Deno's statistics).
 * The DuckDuckGo page is built here in the documented shape and served by an injected fetch,
 * so nothing touches the network.
 */
import { webSearch } from "../mod.ts";
import { DuckDuckGoSearch, type SearchResult } from "../src/search/mod.ts";
import { type BenchSummary, measure, perCall } from "./measure.ts";

function page(results: number): string {
  const items = Array.from({ length: results }, (_, i) => {
    const target = encodeURIComponent(`https://site${i}.example/articles/${i}?ref=bench`);
    const href = `//duckduckgo.com/l/?uddg=${target}&amp;rut=${"ab".repeat(32)}`;
    return `<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="${href}">Article <b>${i}</b> &amp; more</a></h2>
    <div class="result__extras"><div class="result__extras__url">
      <a class="result__url" href="${href}">site${i}.example/articles/${i}</a>
    </div></div>
    <a class="result__snippet" href="${href}">${
      "A snippet with <b>highlighted</b> words &mdash; ".repeat(4)
    }</a>
  </div>
</div>`;
  });
  return `<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body>
<div id="links" class="results">${items.join("\n")}</div></body></html>`;
}

interface Case {
  name: string;
  operation: () => Promise<unknown>;
  /** Bytes parsed per call, for a throughput figure. */
  bytes?: number;
}

const CASES: Case[] = [10, 30].map((results) => {
  const html = page(results);
  const search = new DuckDuckGoSearch({
    fetch: () => Promise.resolve(new Response(html, { headers: { "content-type": "text/html" } })),
  });
  return {
    name: `duckduckgo: parse a ${results}-result page (${(html.length / 1024).toFixed(0)} KB)`,
    bytes: html.length,
    operation: async () => {
      const found = await search.search("q", { maxResults: results });
      if (found.length !== results) throw new Error(`parsed ${found.length} of ${results}`);
    },
  };
});

// What the model gets back: numbered, disarmed, fenced results, from a backend with no cost.
const results: SearchResult[] = Array.from({ length: 20 }, (_, i) => ({
  title: `Result ${i + 1}: a title of ordinary length`,
  url: `https://site${i}.example/articles/${i}`,
  snippet: "A snippet of the length search engines return, with some words. ".repeat(3),
}));
const rendering = webSearch({
  search: (_, { maxResults }) => Promise.resolve(results.slice(0, maxResults)),
});
CASES.push({
  name: "web_search: render 20 results for the model",
  operation: () => rendering.execute({ query: "q", max_results: 20 }),
});

for (const { name, operation } of CASES) Deno.bench(name, async () => void await operation());

/** Times every case; parsing also as throughput. */
export async function run(): Promise<BenchSummary> {
  const rows: [string, string][] = [];
  for (const { name, operation, bytes } of CASES) {
    const timing = await measure(operation);
    const rate = bytes === undefined ? "" : `, ${(bytes / timing.medianUs).toFixed(1)} MB/s`;
    rows.push([name, `${perCall(timing)}${rate}`]);
  }
  return { rows };
}

if (import.meta.main) {
  for (const [label, value] of (await run()).rows) console.log(`${label}: ${value}`);
}
