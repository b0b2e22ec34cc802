/**
 * Parsing cost of a DuckDuckGo result page: `deno bench bench/web_search.ts`. The page is built
 * here in the documented shape and served by an injected fetch, so nothing touches the network.
 */
import { DuckDuckGoSearch } from "../mod.ts";

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

for (const results of [10, 30]) {
  const html = page(results);
  const search = new DuckDuckGoSearch({
    fetch: () => Promise.resolve(new Response(html, { headers: { "content-type": "text/html" } })),
  });
  Deno.bench(
    `duckduckgo: parse a ${results}-result page (${(html.length / 1024).toFixed(0)} KB)`,
    async () => {
      const found = await search.search("q", { maxResults: results });
      if (found.length !== results) throw new Error(`parsed ${found.length} of ${results}`);
    },
  );
}
