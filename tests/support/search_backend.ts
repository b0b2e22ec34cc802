/**
 * Test builds only: a `fetch` that sends DuckDuckGo's requests to a fixture on 127.0.0.1 and
 * everything else on as it is, so that a deployed app's real `web_search` can be tested offline.
 * No Deno APIs: the Worker and Edge test bundles include it.
 */
export function searchBackendFetch(origin: string, base: typeof fetch = fetch): typeof fetch {
  const backend = new URL(origin);
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.hostname !== "html.duckduckgo.com") return await base(request);
    url.protocol = backend.protocol;
    url.host = backend.host;
    // A buffered body: some runtimes refuse a streamed one without `duplex`.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const { method, headers, signal, redirect } = request;
    return await base(url, { method, headers, body, signal, redirect });
  };
}

/** The environment name the test entries read the fixture's origin from. */
export const SEARCH_BACKEND_ENV = "OUTPOST_TEST_SEARCH_ORIGIN";
