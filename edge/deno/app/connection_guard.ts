/**
 * A TCP front for `Deno.serve`, which bounds nothing itself: no time to receive a request's
 * headers, no keep-alive idle time and no cap on connections that never send a request (a
 * Slowloris client keeps hundreds open for free). The front accepts the connections and relays
 * their bytes to a `Deno.serve` of their own on a Unix socket, so it learns which connection each
 * request came on and when its response has been delivered. A connection is closed when it sends
 * nothing for `firstByteTimeoutMs` after it opens, takes longer than `headerTimeoutMs` to deliver
 * a request's headers, or sits `idleTimeoutMs` between requests; while a request is in flight it
 * is never cut, so a long `ask_human` call or an event stream lasts as long as it needs to.
 *
 * Connections that have not delivered a whole request yet (half-open) are capped in all and per
 * peer. A new one is never refused for want of room: the oldest half-open connection of its
 * peer, or else of all, makes room. One that has sent nothing is only parked: it stays open, and
 * its first byte brings it back; parked connections are closed at their first-byte timeout, or
 * the oldest when there are more than `maxParked`. A client holding every slot thus cannot keep a
 * real request out, and one that reopens what is closed gets nothing closed to reopen.
 *
 * Nothing but the front can reach the servers behind it: each socket is made in a private
 * directory (mode 0700) with mode 0600, and unlinked once the front has connected.
 *
 * @module
 */

import type { Clock } from "../../../src/clock.ts";
import { HalfOpen, peerOfAddress } from "./half_open.ts";
import { queuedTimers } from "./timer_queue.ts";

/** The bounds a {@linkcode guardedServe} server keeps. */
export interface ConnectionLimits {
  /** How long a new connection may send nothing before it is closed (default 2 000 ms, at most `headerTimeoutMs`). */
  firstByteTimeoutMs?: number;
  /** The longest time from a connection's first byte of a request to the request reaching the handler (default 10 000 ms). */
  headerTimeoutMs?: number;
  /** How long a connection may sit idle with no request in flight (default 30 000 ms). */
  idleTimeoutMs?: number;
  /** How many connections may be open that have not yet sent a whole request (default 256). */
  maxHalfOpen?: number;
  /** How many of those one peer may hold (default 32), a peer being {@linkcode peerOfAddress}. */
  maxHalfOpenPerPeer?: number;
  /**
   * How many connections that have sent nothing may wait outside those bounds, moved out to make
   * room, for their first byte (which brings them back) or their timeout (default 1024); beyond
   * it the oldest is closed.
   */
  maxParked?: number;
}

/** Where to listen, as for `Deno.serve`, the bounds to keep, and the timers to keep them on. */
export interface GuardedServeOptions extends ConnectionLimits {
  hostname: string;
  port: number;
  onListen?: (addr: Deno.NetAddr) => void;
  /** The timers the bounds run on (default the runtime's, queued); only `setTimer` is used. */
  clock?: Pick<Clock, "setTimer">;
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
interface Relay {
  readonly client: Deno.Conn;
  readonly peer: string;
  /** The connection to its own server, opened on the client's first byte. */
  upstream?: Promise<Deno.Conn>;
  server?: Deno.HttpServer;
  /** Requests whose response has not been delivered yet. */
  inFlight: number;
  /** Whether a request ever reached the handler: until then the connection is half-open. */
  served: boolean;
  /** Whether it sent nothing and was moved out of the half-open table to make room. */
  parked: boolean;
  /** Whether the client has sent a byte. */
  heard: boolean;
  /** Whether a request's headers are on the clock. */
  inHeaders: boolean;
  /** Cancels the timer that closes the connection, if one runs. */
  cancelTimer: () => void;
  closed: boolean;
}

const BUFFER_BYTES = 16 * 1024;

/** The file descriptors one relayed connection holds: its own, its server's, and the relay's two. */
const FDS_PER_RELAY = 4;

/**
 * Serves `handler` like `Deno.serve`, behind a front that keeps the {@linkcode ConnectionLimits}.
 * The real servers listen on Unix sockets that only the front can reach.
 */
export function guardedServe(
  options: GuardedServeOptions,
  handler: (request: Request) => Response | Promise<Response>,
): GuardedServer {
  const {
    headerTimeoutMs = 10_000,
    idleTimeoutMs = 30_000,
    maxHalfOpen = 256,
    maxHalfOpenPerPeer = 32,
    maxParked = 1024,
    clock = queuedTimers(),
  } = options;
  const firstByteTimeoutMs = Math.min(options.firstByteTimeoutMs ?? 2_000, headerTimeoutMs);
  const relays = new Set<Relay>();
  const halfOpen = new HalfOpen<Relay>();
  const halfOpenOf = new Map<string, HalfOpen<Relay>>();
  /** Silent connections moved out of the half-open table, oldest first. */
  const parked = new Set<Relay>();
  /** Connections served and waiting for their next request, longest idle first. */
  const idle = new Set<Relay>();
  /** Shutdowns of the servers of closed connections, which tests and `shutdown()` wait for. */
  const closing = new Set<Promise<void>>();
  // Made with mode 0700: no other user can reach a socket in it, even before it is unlinked.
  const socketDir = Deno.makeTempDirSync({ prefix: "outpost-front-" });
  let sockets = 0;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;

  function arm(relay: Relay, ms: number): void {
    relay.cancelTimer();
    relay.cancelTimer = clock.setTimer(() => close(relay), ms);
  }

  /** Takes `relay` out of the half-open table. */
  function unlist(relay: Relay): void {
    halfOpen.delete(relay);
    const mine = halfOpenOf.get(relay.peer);
    mine?.delete(relay);
    if (mine?.size === 0) halfOpenOf.delete(relay.peer);
  }

  function settle(relay: Relay): void {
    if (relay.served) return;
    relay.served = true;
    unlist(relay);
  }

  /**
   * Moves a silent connection out of the table without closing it: a client that reopens what is
   * closed would otherwise churn at once, and a real one may yet speak.
   */
  function park(relay: Relay): void {
    unlist(relay);
    relay.parked = true;
    parked.add(relay);
    if (parked.size > maxParked) close(parked.values().next().value!);
  }

  /**
   * Lists `relay` as half-open, making room in its peer's share or else in the whole table: the
   * oldest connection that has sent nothing is parked; if none has, a silent newcomer is parked
   * itself, and one that has started its request closes the oldest that has.
   */
  function admit(relay: Relay, started: boolean): void {
    relay.parked = false;
    parked.delete(relay);
    const mine = halfOpenOf.get(relay.peer) ?? new HalfOpen<Relay>();
    const full = mine.size >= maxHalfOpenPerPeer
      ? mine
      : halfOpen.size >= maxHalfOpen
      ? halfOpen
      : undefined;
    if (full) {
      const silent = full.oldestSilent();
      if (silent) park(silent);
      else if (!started) return park(relay);
      else close(full.oldestStarted()!);
    }
    halfOpen.add(relay, started);
    mine.add(relay, started);
    halfOpenOf.set(relay.peer, mine);
  }

  function close(relay: Relay): void {
    if (relay.closed) return;
    relay.closed = true;
    relay.cancelTimer();
    settle(relay);
    parked.delete(relay);
    idle.delete(relay);
    relays.delete(relay);
    try {
      relay.client.close();
    } catch {
      // Already closed by the other side.
    }
    relay.upstream?.then((upstream) => {
      try {
        upstream.close();
      } catch {
        // Already closed by the other side.
      }
    }, () => {});
    if (relay.server) {
      const done = relay.server.shutdown().catch(() => {});
      closing.add(done);
      done.finally(() => closing.delete(done));
    }
  }

  /** Starts the connection's own server and connects to it; nothing else ever can. */
  async function openUpstream(relay: Relay): Promise<Deno.Conn> {
    const path = `${socketDir}/${++sockets}.sock`;
    try {
      relay.server = Deno.serve({ path, onListen() {} }, (request, info) => {
        settle(relay);
        idle.delete(relay);
        relay.inFlight++;
        relay.inHeaders = false;
        relay.cancelTimer();
        const delivered = () => {
          relay.inFlight--;
          if (relay.inFlight > 0 || relay.closed) return;
          idle.add(relay);
          arm(relay, idleTimeoutMs);
        };
        info.completed.then(delivered, delivered);
        return handler(request);
      });
      await Deno.chmod(path, 0o600);
      const upstream = await Deno.connect({ transport: "unix", path });
      void pump(relay, upstream, relay.client);
      return upstream;
    } catch (error) {
      void relay.server?.shutdown().catch(() => {});
      relay.server = undefined;
      throw error;
    } finally {
      await Deno.remove(path).catch(() => {});
    }
  }

  /**
   * Closes the oldest connections that cost least to lose (parked, then silent, then idle
   * between requests), enough to free the file descriptors of one relayed connection; how many
   * it closed.
   */
  function freeDescriptors(keep?: Relay): number {
    const oldest = [...parked, ...halfOpen.silent(), ...idle]
      .filter((relay) => relay !== keep).slice(0, FDS_PER_RELAY);
    for (const relay of oldest) close(relay);
    return oldest.length;
  }

  /** Connects `relay` to a server of its own, making room once if descriptors run out. */
  async function connectUpstream(relay: Relay): Promise<Deno.Conn> {
    try {
      return await openUpstream(relay);
    } catch (error) {
      if (relay.closed || freeDescriptors(relay) === 0) throw error;
      return await openUpstream(relay);
    }
  }

  async function pump(relay: Relay, from: Deno.Conn, to: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null || relay.closed) break;
        let written = 0;
        while (written < n) written += await to.write(buffer.subarray(written, n));
      }
    } catch {
      // A reset or a close from the other direction ends this one too.
    } finally {
      close(relay);
    }
  }

  /** Relays what the client sends; its bytes decide the timers. */
  async function relayClient(relay: Relay): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const n = await relay.client.read(buffer);
        if (n === null || relay.closed) break;
        if (!relay.heard) {
          relay.heard = true;
          if (relay.parked) {
            admit(relay, true);
          } else {
            halfOpen.started(relay);
            halfOpenOf.get(relay.peer)!.started(relay);
          }
        }
        // Bytes from an idle client start a request: its headers are now on the clock.
        if (relay.inFlight === 0 && !relay.inHeaders) {
          relay.inHeaders = true;
          idle.delete(relay);
          arm(relay, headerTimeoutMs);
        }
        relay.upstream ??= connectUpstream(relay);
        const upstream = await relay.upstream;
        let written = 0;
        while (written < n) written += await upstream.write(buffer.subarray(written, n));
      }
    } catch {
      // A reset, a close from the other direction, or a server that could not start.
    } finally {
      close(relay);
    }
  }

  function accept(client: Deno.Conn): void {
    // Relayed answers come in several small writes: Nagle's algorithm would hold each one back
    // for the peer's delayed ACK.
    (client as Deno.TcpConn).setNoDelay(true);
    const relay: Relay = {
      client,
      peer: peerOfAddress(client.remoteAddr as Deno.NetAddr),
      inFlight: 0,
      served: false,
      parked: false,
      heard: false,
      inHeaders: false,
      cancelTimer: () => {},
      closed: false,
    };
    relays.add(relay);
    // Room is made, never refused: the newcomer may be the one real client among attackers.
    admit(relay, false);
    if (relay.closed) return;
    arm(relay, firstByteTimeoutMs);
    void relayClient(relay);
  }

  // Out of descriptors, a relay's server fails to accept its one connection and its accept loop
  // rejects where nothing can catch it: that would end the process. The relay's own timers
  // close the connection instead.
  const outOfDescriptors = (event: PromiseRejectionEvent) => {
    const { reason } = event;
    if (reason instanceof Deno.errors.Http && /\(os error 24\)/.test(reason.message)) {
      event.preventDefault();
    }
  };
  globalThis.addEventListener("unhandledrejection", outOfDescriptors);
  let stopped = false;
  const accepting = (async () => {
    while (!stopped) {
      let client: Deno.Conn;
      try {
        client = await listener.accept();
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
      accept(client);
    }
  })();
  options.onListen?.(addr);

  return {
    addr,
    async shutdown() {
      stopped = true;
      try {
        listener.close();
      } catch {
        // Closed already.
      }
      await accepting;
      // Nothing more is relayed: the directory goes now, before a process that exits without
      // waiting for the requests in flight could leave it behind.
      await Deno.remove(socketDir, { recursive: true }).catch(() => {});
      // Idle connections go at once; the others when their requests have been answered.
      for (const relay of relays) if (relay.inFlight === 0) close(relay);
      await Promise.all([...relays].map((relay) => relay.server?.shutdown()));
      for (const relay of relays) close(relay);
      while (closing.size > 0) await Promise.all(closing);
      globalThis.removeEventListener("unhandledrejection", outOfDescriptors);
    },
  };
}
