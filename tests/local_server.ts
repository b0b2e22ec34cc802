/** A local HTTP server on 127.0.0.1 and an ephemeral port, for tests. */
export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request path the server saw, in order. */
  paths: string[];
  /** The headers of every request, in order. */
  headers: Headers[];
  close(): Promise<void>;
}

/** Starts a server with `handler`; call `close()` at the end of the test. */
export function serve(handler: (request: Request) => Response | Promise<Response>): LocalServer {
  const paths: string[] = [];
  const headers: Headers[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    paths.push(new URL(request.url).pathname);
    headers.push(new Headers(request.headers));
    return handler(request);
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    paths,
    headers,
    close: () => server.shutdown(),
  };
}
