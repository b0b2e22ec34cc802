import { type LocalServer, localServer, type Received } from "./local_server.ts";
import { searchPage } from "./scenarios.ts";

/**
 * One server on 127.0.0.1 that answers as each search service does, told apart by path, method
 * and key header, with one hit titled `<backend> found <query>`: Brave's
 * `GET /res/v1/web/search`, SearXNG's `GET /search?format=json`, Tavily's, Exa's and Serper's
 * `POST /search`, and DuckDuckGo's HTML page. Reach it with `searchBackendFetch` (the keyed
 * hosts) or a `SEARXNG_URL`.
 */
export function searchApis(): LocalServer {
  return localServer(async (request) => {
    const url = new URL(request.url);
    const hit = (backend: string, query: string) => ({
      title: `${backend} found ${query}`,
      url: `https://${backend}.example/`,
    });
    if (url.pathname === "/res/v1/web/search") {
      const q = url.searchParams.get("q") ?? "";
      return Response.json({
        type: "search",
        web: { type: "search", results: [{ ...hit("brave", q), description: "Brave's." }] },
      });
    }
    if (url.pathname === "/html/") {
      const q = new URLSearchParams(await request.text()).get("q") ?? "";
      return new Response(searchPage(q), { headers: { "content-type": "text/html" } });
    }
    if (request.method === "GET") {
      const q = url.searchParams.get("q") ?? "";
      return Response.json({
        query: q,
        results: [{ ...hit("searxng", q), content: "SearXNG's." }],
      });
    }
    const body = await request.json();
    if (request.headers.has("authorization")) {
      return Response.json({ results: [{ ...hit("tavily", body.query), content: "Tavily's." }] });
    }
    if (typeof body.q === "string") {
      const { title, url: link } = hit("serper", body.q);
      return Response.json({ organic: [{ title, link, snippet: "Serper's.", position: 1 }] });
    }
    return Response.json({ requestId: "r", results: [hit("exa", body.query)] });
  });
}

/** Each backend the settings can choose: the settings that choose it, and how to tell it came. */
export interface SearchChoice {
  backend: string;
  settings(origin: string): Record<string, string>;
  /** What the model reads from the fixture for the query `lanterns`. */
  found: RegExp;
  /** Whether the request the fixture received carried this backend's key. */
  keyed(request: Received): boolean;
}

/** The six backends, and the default (Tavily by its key alone). */
export const SEARCH_CHOICES: SearchChoice[] = [
  {
    backend: "brave",
    settings: () => ({ OUTPOST_SEARCH: "brave", BRAVE_API_KEY: "brave-key" }),
    found: /1\. brave found lanterns\nhttps:\/\/brave\.example\/\nBrave's\./,
    keyed: (r) => r.headers.get("x-subscription-token") === "brave-key",
  },
  {
    backend: "searxng",
    settings: (origin) => ({
      OUTPOST_SEARCH: "searxng",
      SEARXNG_URL: origin,
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
    }),
    found: /1\. searxng found lanterns\nhttps:\/\/searxng\.example\/\nSearXNG's\./,
    keyed: (r) => new URL(r.path, "http://x").searchParams.get("format") === "json",
  },
  {
    backend: "exa",
    settings: () => ({ OUTPOST_SEARCH: "exa", EXA_API_KEY: "exa-key" }),
    found: /1\. exa found lanterns\nhttps:\/\/exa\.example\//,
    keyed: (r) => r.headers.get("x-api-key") === "exa-key",
  },
  {
    backend: "serper",
    settings: () => ({ OUTPOST_SEARCH: "serper", SERPER_API_KEY: "serper-key" }),
    found: /1\. serper found lanterns\nhttps:\/\/serper\.example\/\nSerper's\./,
    keyed: (r) => r.headers.get("x-api-key") === "serper-key",
  },
  {
    backend: "tavily",
    settings: () => ({ OUTPOST_SEARCH: "tavily", TAVILY_API_KEY: "tvly-key" }),
    found: /1\. tavily found lanterns\nhttps:\/\/tavily\.example\/\nTavily's\./,
    keyed: (r) => r.headers.get("authorization") === "Bearer tvly-key",
  },
  {
    backend: "duckduckgo",
    settings: () => ({ OUTPOST_SEARCH: "duckduckgo", TAVILY_API_KEY: "tvly-unused" }),
    found: /1\. Outpost guide 1\nhttps:\/\/example\.com\/outpost-1/,
    keyed: (r) => r.path === "/html/",
  },
  {
    backend: "default with a Tavily key",
    settings: () => ({ TAVILY_API_KEY: "tvly-key" }),
    found: /1\. tavily found lanterns/,
    keyed: (r) => r.headers.get("authorization") === "Bearer tvly-key",
  },
];

/** Each keyed backend chosen without its key or URL, and the setting the error must name. */
export const MISSING_SETTINGS: [Record<string, string>, string][] = [
  [{ OUTPOST_SEARCH: "brave" }, "BRAVE_API_KEY"],
  [{ OUTPOST_SEARCH: "searxng" }, "SEARXNG_URL"],
  [{ OUTPOST_SEARCH: "exa" }, "EXA_API_KEY"],
  [{ OUTPOST_SEARCH: "serper" }, "SERPER_API_KEY"],
  [{ OUTPOST_SEARCH: "tavily" }, "TAVILY_API_KEY"],
];
