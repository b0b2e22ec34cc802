/**
 * A TCP front for Deno's HTTP server, which bounds nothing itself: no time to receive a request's
 * headers, no keep-alive idle time and no cap on connections that never send a request (a
 * Slowloris client keeps hundreds open for free). The front accepts the connections and hands
 * each to an HTTP server of its own without relaying a byte (see `serve_connection.ts`), so it
 * knows which connection each request came on and when its response has been delivered. A
 * connection is closed when it has not delivered a request's headers `headerTimeoutMs` after it
 * opens, or `idleTimeoutMs` after its last response; while a request is in flight it is never
 * cut, so a long `ask_human` call or an event stream lasts as long as it needs to.
 *
 * Connections that have not delivered a whole request yet (half-open) are capped in all and per
 * peer. A new one is never refused for want of room: the oldest half-open connection of its peer,
 * or else of all, is parked to make room. A parked connection stays open, and is served if its
 * request comes; parked connections are closed at their header timeout, or the oldest when there
 * are more than `maxParked`. A client holding every slot thus cannot keep a real request out, and
 * one that reopens what is closed gets nothing closed to reopen.
 *
 * The front sees no bytes, only connections and the requests Deno's parser has read: it cannot
 * tell a connection that has sent nothing from one that has started its headers, so both get
 * the same header timeout, counted from the connection's opening.
 *
 * @module
 */

import type { Clock } from "../../../src/clock.ts";
import { peerOfAddress } from "./peer_of_address.ts";
import {
  abortConnection,
  checkConnectionServe,
  type ConnectionServer,
  serveConnection,
} from "./serve_connection.ts";
import { queuedTimers } from "./timer_queue.ts";
import { type Link, LinkedList } from "../../../src/linked_list.ts";

/** The bounds a {@linkcode guardedServe} server keeps. */
export interface ConnectionLimits {
  /**
   * The longest time from a connection's opening to its first request reaching the handler
   * (default 10 000 ms): a connection that sends nothing gets no longer.
   */
  headerTimeoutMs?: number;
  /**
   * How long a connection may go with no request in flight after a response before its next
   * request reaches the handler (default 30 000 ms).
   */
  idleTimeoutMs?: number;
  /** How many connections may be open that have not yet sent a whole request (default 256). */
  maxHalfOpen?: number;
  /** How many of those one peer may hold (default 32), a peer being {@linkcode peerOfAddress}. */
  maxHalfOpenPerPeer?: number;
  /**
   * How many connections that have not sent a whole request may wait outside those bounds,
   * moved out to make room, for their request or their timeout (default 1024); beyond it the
   * oldest is closed.
   */
  maxParked?: number;
}

/** Where to listen, as for `Deno.serve`, the bounds to keep, and the timers to keep them on. */
export interface GuardedServeOptions extends ConnectionLimits {
  hostname: string;
  port: number;
  onListen?: (addr: Deno.NetAddr) => void;
  /** The clock and timers the bounds run on (default the runtime's, queued). */
  clock?: Clock;
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
  /** Stops accepting connections and closes every one at once: requests in flight get no answer. */
  close(): void;
}

/** One client connection and what it is doing. */
interface Connection {
  readonly peer: string;
  /** Closes the connection at once. */
  readonly abort: AbortController;
  server?: ConnectionServer;
  /** Requests whose response has not been delivered yet. */
  inFlight: number;
  /** Whether a request ever reached the handler: until then the connection is half-open. */
  served: boolean;
  /** When its last response was delivered, on the clock (while it is idle). */
  idleSince: number;
  /** Its place among the idle connections, while it is one. */
  idleLink?: Link<Connection>;
  /** Cancels the header timer that closes the connection, if one runs. */
  cancelTimer: () => void;
  closed: boolean;
}

/** How many connections to close when the file descriptors run out. */
const FREED_ON_EXHAUSTION = 4;

/**
 * Serves `handler` like `Deno.serve`, behind a front that keeps the {@linkcode ConnectionLimits}.
 */
export function guardedServe(
  options: GuardedServeOptions,
  handler: (request: Request) => Response | Promise<Response>,
): GuardedServer {
  checkConnectionServe();
  const {
    headerTimeoutMs = 10_000,
    idleTimeoutMs = 30_000,
    maxHalfOpen = 256,
    maxHalfOpenPerPeer = 32,
    maxParked = 1024,
    clock = queuedTimers(),
  } = options;
  const connections = new Set<Connection>();
  /** Connections whose server has not ended yet, closed by the front or not. */
  const live = new Set<Connection>();
  /** Half-open connections, oldest first: in all, and per peer. */
  const halfOpen = new Set<Connection>();
  const halfOpenOf = new Map<string, Set<Connection>>();
  /** Half-open connections moved out of the table to make room, oldest first. */
  const parked = new Set<Connection>();
  /**
   * Connections served and waiting for their next request, longest idle first: one timer, for
   * the first, closes them in turn. A request and its response move a connection to the end
   * without a timer set or cancelled, which would cost a busy connection as much as its own
   * handling.
   */
  const idle = new LinkedList<Connection>();
  let cancelIdleTimer: (() => void) | undefined;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;

  function arm(connection: Connection, ms: number): void {
    connection.cancelTimer();
    connection.cancelTimer = clock.setTimer(() => close(connection), ms);
  }

  /** Closes the connections idle for `idleTimeoutMs`, and sets the timer for the next one. */
  function closeIdle(): void {
    cancelIdleTimer = undefined;
    const now = clock.now();
    // One at a time, not a copy of them all: the timer comes for each deadline, and a copy each
    // time would make closing many idle connections quadratic.
    for (const connection of idle) {
      const left = connection.idleSince + idleTimeoutMs - now;
      if (left > 0) {
        // Whole milliseconds: the queued timers keep a queue per delay.
        cancelIdleTimer = clock.setTimer(closeIdle, Math.ceil(left));
        return;
      }
      close(connection);
    }
  }

  /** Takes `connection` out of the idle ones; the timer goes when none is left. */
  function unidle(connection: Connection): void {
    const link = connection.idleLink;
    if (!link) return;
    connection.idleLink = undefined;
    if (idle.remove(link) && idle.size === 0) {
      cancelIdleTimer?.();
      cancelIdleTimer = undefined;
    }
  }

  /** Takes `connection` out of the half-open table. */
  function unlist(connection: Connection): void {
    halfOpen.delete(connection);
    const mine = halfOpenOf.get(connection.peer);
    mine?.delete(connection);
    if (mine?.size === 0) halfOpenOf.delete(connection.peer);
  }

  /**
   * Moves a connection out of the table without closing it: a client that reopens what is
   * closed would otherwise churn at once, and a real one may yet send its request.
   */
  function park(connection: Connection): void {
    unlist(connection);
    parked.add(connection);
    if (parked.size > maxParked) close(parked.values().next().value!);
  }

  /** Lists `connection` as half-open, parking the oldest of its peer's share or else of all. */
  function admit(connection: Connection): void {
    const mine = halfOpenOf.get(connection.peer) ?? new Set<Connection>();
    const full = mine.size >= maxHalfOpenPerPeer
      ? mine
      : halfOpen.size >= maxHalfOpen
      ? halfOpen
      : undefined;
    if (full) park(full.values().next().value!);
    halfOpen.add(connection);
    mine.add(connection);
    halfOpenOf.set(connection.peer, mine);
  }

  /** Takes `connection` out of every table and off the clock; whether it was in them. */
  function forget(connection: Connection): boolean {
    if (connection.closed) return false;
    connection.closed = true;
    connection.cancelTimer();
    unlist(connection);
    parked.delete(connection);
    unidle(connection);
    connections.delete(connection);
    return true;
  }

  function close(connection: Connection): void {
    // Nothing is in flight when the front closes a connection: a graceful close is immediate.
    if (forget(connection)) connection.server?.shutdown().catch(() => {});
  }

  /**
   * Closes the oldest connections that cost least to lose (parked, then half-open, then idle
   * between requests), to free file descriptors; how many it closed.
   */
  function freeDescriptors(): number {
    const oldest = [...parked, ...halfOpen, ...idle].slice(0, FREED_ON_EXHAUSTION);
    for (const connection of oldest) close(connection);
    return oldest.length;
  }

  function accept(conn: Deno.Conn): void {
    // A streamed answer (SSE) goes out in several small writes: Nagle's algorithm would hold each
    // one back for the peer's delayed ACK.
    (conn as Deno.TcpConn).setNoDelay(true);
    const connection: Connection = {
      peer: peerOfAddress(conn.remoteAddr as Deno.NetAddr),
      abort: new AbortController(),
      inFlight: 0,
      served: false,
      idleSince: 0,
      cancelTimer: () => {},
      closed: false,
    };
    const delivered = () => {
      connection.inFlight--;
      if (connection.inFlight > 0 || connection.closed) return;
      if (draining) return close(connection);
      connection.idleSince = clock.now();
      connection.idleLink = idle.push(connection);
      cancelIdleTimer ??= clock.setTimer(closeIdle, idleTimeoutMs);
    };
    connection.server = serveConnection(conn, connection.abort.signal, (request, info) => {
      if (!connection.served) {
        connection.served = true;
        unlist(connection);
        parked.delete(connection);
        connection.cancelTimer();
      }
      unidle(connection);
      connection.inFlight++;
      info.completed.then(delivered, delivered);
      return handler(request);
    });
    connections.add(connection);
    live.add(connection);
    // Room is made, never refused: the newcomer may be the one real client among attackers.
    admit(connection);
    arm(connection, headerTimeoutMs);
    // Closed by the client, or by the server after a `connection: close`: forgotten.
    const ended = () => {
      live.delete(connection);
      forget(connection);
    };
    connection.server.finished.then(ended, ended);
  }

  let stopped = false;
  /** Whether `shutdown()` was called: a connection is closed once its requests are answered. */
  let draining = false;
  function stopAccepting(): void {
    stopped = true;
    try {
      listener.close();
    } catch {
      // Closed already.
    }
  }
  const accepting = (async () => {
    while (!stopped) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        // Closed by shutdown(), or out of file descriptors, which silent and idle connections
        // can use up: the oldest of them go, and accepting goes on.
        if (stopped) break;
        // With none to close, a request ending frees some: try again a little later.
        if (freeDescriptors() === 0) {
          await new Promise((resolve) => clock.setTimer(() => resolve(0), 100));
        }
        continue;
      }
      try {
        accept(conn);
      } catch {
        // Reset before it could be served.
        try {
          conn.close();
        } catch {
          // Closed already.
        }
      }
    }
  })();
  options.onListen?.(addr);

  return {
    addr,
    async shutdown() {
      stopAccepting();
      await accepting;
      // Idle connections go at once, the others once their requests have been answered: closed
      // by the front itself, as Deno's own graceful close would leave `close()` no way to cut them.
      draining = true;
      const open = [...live];
      for (const connection of open) if (connection.inFlight === 0) close(connection);
      await Promise.all(open.map((connection) => connection.server?.finished.catch(() => {})));
    },
    close() {
      stopAccepting();
      // Not after a graceful close, which would keep the connection from being cut.
      for (const connection of live) {
        forget(connection);
        abortConnection(connection.abort);
      }
    },
  };
}
