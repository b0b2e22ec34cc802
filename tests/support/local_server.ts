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

/**
 * A raw TCP server on 127.0.0.1 that answers each request with a 200 whose `Content-Length`
 * promises more than it sends: `head`, then the connection drops, as when a network fails
 * mid-answer. (Deno.serve cannot do this without logging the stream's error.)
 */
export function cutOffServer(head: string): { origin: string } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const handled: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) handled.push(answer(conn));
  })();
  async function answer(conn: Deno.Conn): Promise<void> {
    try {
      await readRequest(conn);
      const body = new TextEncoder().encode(head);
      const status = "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n" +
        `content-length: ${body.length + 10_000}\r\n\r\n`;
      await conn.write(new TextEncoder().encode(status));
      await conn.write(body);
    } finally {
      conn.close();
    }
  }
  return {
    origin: `http://127.0.0.1:${listener.addr.port}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      await Promise.all(handled);
    },
  };
}

/** Reads one request, headers and `Content-Length` body, so the client is done sending. */
async function readRequest(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  // A single-byte decoding, so string lengths count bytes.
  const decoder = new TextDecoder("latin1");
  let text = "";
  for (;;) {
    const n = await conn.read(buffer);
    if (n === null) return;
    text += decoder.decode(buffer.subarray(0, n));
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) continue;
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
    if (text.length - end - 4 >= length) return;
  }
}

/** A body that drips one byte every `everyMs` until the client cancels it; `using` stops it. */
export interface DripFeed extends Disposable {
  /** A response whose body is the drip. */
  response(): Response;
  /** Whether the client cancelled the body. */
  readonly cancelled: boolean;
}

/** Makes a {@linkcode DripFeed}: for slow-body timeouts and aborts mid-read. */
export function dripFeed(everyMs: number, headers?: HeadersInit): DripFeed {
  let timer: ReturnType<typeof setInterval> | undefined;
  let cancelled = false;
  const stop = () => clearInterval(timer);
  return {
    response: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            timer = setInterval(() => controller.enqueue(new Uint8Array([120])), everyMs);
          },
          cancel() {
            cancelled = true;
            stop();
          },
        }),
        { headers },
      ),
    get cancelled() {
      return cancelled;
    },
    [Symbol.dispose]: stop,
  };
}
