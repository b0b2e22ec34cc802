/** One request as a local test server received it. */
export interface Received {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A server on 127.0.0.1 that records every request; `await using` shuts it down. */
export interface LocalServer extends AsyncDisposable {
  /** The server's origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** Every request so far, in arrival order. */
  received: Received[];
}

/**
 * Starts a server on 127.0.0.1 (a free port) that answers each request with `respond`, called
 * with the recorded request and its 0-based index.
 */
export function localServer(
  respond: (request: Received, index: number) => Response | Promise<Response>,
): LocalServer {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (raw) => {
    const url = new URL(raw.url);
    const request = {
      method: raw.method,
      path: url.pathname + url.search,
      headers: raw.headers,
      body: await raw.text(),
    };
    received.push(request);
    return await respond(request, received.length - 1);
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    received,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The origin of a port on 127.0.0.1 that nothing listens on. */
export async function closedOrigin(): Promise<string> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  await server.shutdown();
  return origin;
}

/**
 * A response whose body starts with `head` and then stalls until `release` settles, when it
 * ends normally, or until the client gives up on it.
 */
export function endless(head: string, release: Promise<unknown>): Response {
  let over = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      release.then(() => {
        if (!over) controller.close();
        over = true;
      });
    },
    cancel() {
      over = true;
    },
  });
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
}
