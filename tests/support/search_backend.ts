/**
 * A `fetch` that sends the search services' requests to a fixture on 127.0.0.1 and everything else on as
 * it is, so that a deployed app's real `web_search` can be tested offline. It stands in for the
 * network, not for the app: the runtime's own `fetch` is wrapped (see
 * {@linkcode searchBackendPrelude}, or Miniflare's `outboundService`), the app is unchanged.
 */
export function searchBackendFetch(origin: string, base: typeof fetch = fetch): typeof fetch {
  const backend = new URL(origin);
  // Every search service's host: DuckDuckGo's, and the keyed APIs' (see `search_apis.ts`).
  const hosts = [
    "html.duckduckgo.com",
    "api.search.brave.com",
    "api.exa.ai",
    "google.serper.dev",
    "api.tavily.com",
  ];
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!hosts.includes(url.hostname)) return await base(request);
    url.protocol = backend.protocol;
    url.host = backend.host;
    // A buffered body: some runtimes refuse a streamed one without `duplex`.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const { method, headers, signal, redirect } = request;
    return await base(url, { method, headers, body, signal, redirect });
  };
}

/** A script to run before a bundle so that its global `fetch` is {@linkcode searchBackendFetch}. */
export function searchBackendPrelude(origin: string): string {
  return `globalThis.fetch = (${searchBackendFetch})(${
    JSON.stringify(origin)
  }, globalThis.fetch);\n`;
}
