/**
 * A TCP relay on 127.0.0.1 between the tests' PostgreSQL clients and the test server, which can
 * lose the server's reply to a COMMIT: the transaction committed, and the client's connection
 * breaks before it hears so, as when a network or the server's host fails at that moment.
 *
 * @module
 */

/** The server's CommandComplete for a COMMIT: tag `C`, length 11, `COMMIT\0`. */
const COMMIT_REPLY = new Uint8Array([0x43, 0, 0, 0, 11, ...new TextEncoder().encode("COMMIT"), 0]);

function indexOf(bytes: Uint8Array, pattern: Uint8Array): number {
  outer: for (let i = 0; i + pattern.length <= bytes.length; i++) {
    for (let j = 0; j < pattern.length; j++) if (bytes[i + j] !== pattern[j]) continue outer;
    return i;
  }
  return -1;
}

/** Closes `conn`, which its peer may have closed already. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already.
  }
}

/** A running relay: connect to `url` instead of the server's. */
export interface PgRelay extends AsyncDisposable {
  url: string;
  /**
   * Breaks the connection that next receives a COMMIT's reply, which it never delivers; resolves
   * once that happened.
   */
  loseNextCommitReply(): Promise<void>;
}

/** Relays connections to the server of `serverUrl` (a `postgres://` URL on 127.0.0.1). */
export function pgRelay(serverUrl: string): PgRelay {
  const server = new URL(serverUrl);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let armed: PromiseWithResolvers<void> | undefined;
  const relay = async (client: Deno.Conn) => {
    const upstream = await Deno.connect({ hostname: "127.0.0.1", port: Number(server.port) });
    open.add(client).add(upstream);
    const close = () => {
      for (const conn of [client, upstream]) if (open.delete(conn)) closeQuietly(conn);
    };
    const pipe = async (from: Deno.Conn, to: Deno.Conn, watch: boolean) => {
      // The end of the last chunk, in case the reply is split across two.
      let tail = new Uint8Array();
      try {
        for await (const chunk of from.readable) {
          if (watch && armed) {
            const seen = new Uint8Array([...tail, ...chunk]);
            if (indexOf(seen, COMMIT_REPLY) >= 0) {
              close();
              armed.resolve();
              armed = undefined;
              return;
            }
            tail = seen.slice(-COMMIT_REPLY.length);
          }
          const writer = to.writable.getWriter();
          await writer.write(chunk);
          writer.releaseLock();
        }
      } catch {
        // The other side is gone: so is this connection.
      } finally {
        close();
      }
    };
    void pipe(client, upstream, false);
    void pipe(upstream, client, true);
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) void relay(conn);
    } catch {
      // Closed.
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  const url = new URL(serverUrl);
  url.port = String(port);
  return {
    url: url.href,
    loseNextCommitReply() {
      armed = Promise.withResolvers();
      return armed.promise;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of [...open]) closeQuietly(conn);
      open.clear();
    },
  };
}
