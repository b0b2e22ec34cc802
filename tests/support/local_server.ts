/** One request as a local test server received it. */
export interface Received {
  method: string;
  /** Pathname plus query string, e.g. `/html/?q=deno`. */
  path: string;
  headers: Headers;
  /** The body as text; empty when there is none. */
  body: string;
}

/** A server on 127.0.0.1 that records every request; `await using` (or `close()`) shuts it down. */
export interface LocalServer extends AsyncDisposable {
  /** The server's origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** Every request so far, in arrival order. */
  received: Received[];
  /** Resolves once at least `count` requests have been received. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 (a free port) that answers each request with `handler`, called
 * with the request (same URL, method, headers and body, still unread) and its 0-based index
 * among the requests received.
 */
export function localServer(
  handler: (request: Request, index: number) => Response | Promise<Response>,
): LocalServer {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (raw) => {
    const url = new URL(raw.url);
    const bytes = raw.body && await raw.bytes();
    received.push({
      method: raw.method,
      path: url.pathname + url.search,
      headers: new Headers(raw.headers),
      body: new TextDecoder().decode(bytes ?? undefined),
    });
    for (const waiter of waiters.filter((w) => received.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    // A copy rather than raw.clone(): cloning touches raw.signal, which makes Deno warn about
    // its legacy abort behaviour.
    const request = new Request(raw.url, { method: raw.method, headers: raw.headers, body: bytes });
    return await handler(request, received.length - 1);
  });
  const close = () => server.shutdown();
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    received,
    arrived: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close,
    [Symbol.asyncDispose]: close,
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
