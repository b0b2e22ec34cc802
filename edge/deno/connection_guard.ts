/**
 * A TCP front for `Deno.serve`, which bounds nothing itself: no time to receive a request's
 * headers, no keep-alive idle time and no cap on connections that never send a request (a
 * Slowloris client keeps hundreds open for free). The front accepts the connections, relays
 * their bytes to the real server on a loopback port, and learns from that server (by the relay
 * connection's port) when a request on a connection starts and when its response has been
 * delivered. A connection is closed when it takes longer than `headerTimeoutMs` to deliver a
 * request's headers, or sits `idleTimeoutMs` between requests; while a request is in flight it
 * is never cut, so a long `ask_human` call or an event stream lasts as long as it needs to.
 *
 * @module
 */

/** The bounds a {@linkcode guardedServe} server keeps. */
export interface ConnectionLimits {
  /** The longest time from a connection's first byte of a request to the request reaching the handler (default 10 000 ms). */
  headerTimeoutMs?: number;
  /** How long a connection may sit idle with no request in flight (default 30 000 ms). */
  idleTimeoutMs?: number;
  /** How many connections may be open that have not yet sent a whole request; more are closed at once (default 256). */
  maxHalfOpen?: number;
}

/** Where to listen, as for `Deno.serve`, and the bounds to keep. */
export interface GuardedServeOptions extends ConnectionLimits {
  hostname: string;
  port: number;
  onListen?: (addr: Deno.NetAddr) => void;
}

/** A running {@linkcode guardedServe} server. */
export interface GuardedServer {
  /** The address the public listener is bound to. */
  readonly addr: Deno.NetAddr;
  /**
   * Stops accepting connections and resolves once the requests in flight have been answered;
   * then every connection is closed.
   */
  shutdown(): Promise<void>;
}

/** One client connection and what it is doing. */
class Relay {
  /** Requests whose response has not been delivered yet. */
  inFlight = 0;
  /** Whether a request ever reached the handler: until then the connection is half-open. */
  served = false;
  /** When the client started sending a request the handler has not seen yet, if it has. */
  headerSince: number | undefined;
  /** The last time bytes moved either way. */
  activeAt: number;
  closed = false;

  constructor(readonly client: Deno.Conn, readonly upstream: Deno.Conn, now: number) {
    this.headerSince = now;
    this.activeAt = now;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const conn of [this.client, this.upstream]) {
      try {
        conn.close();
      } catch {
        // Already closed by the other side.
      }
    }
  }
}

const BUFFER_BYTES = 16 * 1024;

/**
 * Serves `handler` like `Deno.serve`, behind a front that keeps the {@linkcode ConnectionLimits}.
 * The real server listens on an ephemeral 127.0.0.1 port that only the front should use; it
 * needs the same tokens as the public one.
 */
export function guardedServe(
  options: GuardedServeOptions,
  handler: (request: Request) => Response | Promise<Response>,
): GuardedServer {
  const {
    headerTimeoutMs = 10_000,
    idleTimeoutMs = 30_000,
    maxHalfOpen = 256,
  } = options;
  /** Relays by the local port of their connection to the real server. */
  const relays = new Map<number, Relay>();
  let halfOpen = 0;
  const inner = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request, info) => {
      const relay = relays.get(info.remoteAddr.port);
      if (relay) {
        if (!relay.served) halfOpen--;
        relay.served = true;
        relay.inFlight++;
        relay.headerSince = undefined;
        info.completed.finally(() => {
          relay.inFlight--;
          relay.activeAt = Date.now();
        }).catch(() => {});
      }
      return handler(request);
    },
  );
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const relay of relays.values()) {
      if (relay.inFlight > 0) continue;
      if (relay.headerSince !== undefined) {
        if (now - relay.headerSince > headerTimeoutMs) relay.close();
      } else if (now - relay.activeAt > idleTimeoutMs) {
        relay.close();
      }
    }
  }, Math.max(10, Math.min(headerTimeoutMs, idleTimeoutMs) / 4));

  async function pump(relay: Relay, from: Deno.Conn, to: Deno.Conn, fromClient: boolean) {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        const now = Date.now();
        relay.activeAt = now;
        // Bytes from an idle client start a request: its headers are now on the clock.
        if (fromClient && relay.inFlight === 0 && relay.headerSince === undefined) {
          relay.headerSince = now;
        }
        let written = 0;
        while (written < n) written += await to.write(buffer.subarray(written, n));
      }
    } catch {
      // A reset or a close from the other direction ends this one too.
    } finally {
      relay.close();
    }
  }

  async function accept(client: Deno.Conn): Promise<void> {
    if (halfOpen >= maxHalfOpen) {
      client.close();
      return;
    }
    halfOpen++;
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: inner.addr.port });
    } catch {
      halfOpen--;
      client.close();
      return;
    }
    // Relayed answers come in several small writes: Nagle's algorithm would hold each one back
    // for the peer's delayed ACK.
    for (const conn of [client, upstream] as Deno.TcpConn[]) conn.setNoDelay(true);
    const relay = new Relay(client, upstream, Date.now());
    const port = (upstream.localAddr as Deno.NetAddr).port;
    relays.set(port, relay);
    await Promise.all([
      pump(relay, client, upstream, true),
      pump(relay, upstream, client, false),
    ]);
    relays.delete(port);
    if (!relay.served) halfOpen--;
  }

  const accepting = (async () => {
    try {
      for await (const client of listener) void accept(client);
    } catch {
      // The listener was closed by shutdown().
    }
  })();
  options.onListen?.(addr);

  return {
    addr,
    async shutdown() {
      try {
        listener.close();
      } catch {
        // Closed already.
      }
      await accepting;
      // Idle connections would hold the real server's shutdown open: they go first.
      for (const relay of relays.values()) if (relay.inFlight === 0) relay.close();
      await inner.shutdown();
      clearInterval(sweep);
      for (const relay of relays.values()) relay.close();
    },
  };
}
