// `Deno.serve` for one connection the front accepted itself. Deno 2.9 runs its HTTP server on a
// connection only through an internal (`serveHttpOnConnection`, what `Deno.serve` is built on);
// the public API either hides the connections (`Deno.serve`) or would have the front relay every
// byte to a server of their own, which cost the service most of its throughput. This file is the
// only one that reaches into Deno's internals: a Deno without it is told so at start.

import { SetupError } from "../../../src/errors.ts";

/** The HTTP server of one connection. */
export interface ConnectionServer {
  /** Resolves once the connection is closed, by either side. */
  readonly finished: Promise<void>;
  /**
   * Answers the requests in flight, then closes the connection: at once if none is (a request
   * whose headers are still coming is dropped).
   */
  shutdown(): Promise<void>;
}

/** A request handler as `Deno.serve` takes it. */
export type ConnectionHandler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

type ServeHttpOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal | undefined,
  handler: ConnectionHandler,
  onError: (error: unknown) => Response | Promise<Response>,
  onListen: () => void,
) => ConnectionServer;

const internal = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[
  (Deno as unknown as { internal: symbol }).internal
];
const serveHttpOnConnection = internal?.serveHttpOnConnection as ServeHttpOnConnection | undefined;

/** As `Deno.serve`'s default: the error logged, a bare 500 answered. */
function onError(error: unknown): Response {
  console.error(error);
  return new Response("Internal Server Error", { status: 500 });
}

/**
 * Serves HTTP/1.1 on `conn` with `handler` until it is shut down or closed, or `signal` aborts,
 * which closes the connection at once, requests in flight and all.
 */
export function serveConnection(
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: ConnectionHandler,
): ConnectionServer {
  return serveHttpOnConnection!(conn, signal, handler, onError, () => {});
}

/**
 * Aborts `controller`, the signal of a {@linkcode serveConnection}. Aborting one whose connection
 * has just ended makes Deno's listener throw where nothing can catch it, which would end the
 * process: that error, and only that, is swallowed.
 */
export function abortConnection(controller: AbortController): void {
  const swallow = (event: ErrorEvent) => {
    if (event.error instanceof Deno.errors.BadResource) event.preventDefault();
  };
  globalThis.addEventListener("error", swallow);
  try {
    controller.abort();
  } finally {
    globalThis.removeEventListener("error", swallow);
  }
}

/** Throws a {@linkcode SetupError} when this Deno cannot serve a connection it is handed. */
export function checkConnectionServe(): void {
  if (typeof serveHttpOnConnection === "function") return;
  throw new SetupError(
    `Deno ${Deno.version.deno} cannot serve a connection the service's front accepted ` +
      "(its internal serveHttpOnConnection is gone).",
    { hint: "Run the service on Deno 2.9, the version it is tested on." },
  );
}
