/**
 * Clients from loopback addresses other than 127.0.0.1, for tests of what one peer can do to a
 * server's other peers.
 *
 * @module
 */
import net from "node:net";

/** A connection of {@linkcode connectFrom}. */
export interface PeerConn {
  socket: net.Socket;
  /** Resolves when the server closes it. */
  closed: Promise<void>;
  /** What the server sent on it so far. */
  readonly received: string;
}

/**
 * A connection to 127.0.0.1:`port` from `localAddress`, a loopback address of its own (Linux
 * answers on all of 127.0.0.0/8), so that the server sees a peer other than the tests' 127.0.0.1.
 */
export function connectFrom(port: number, localAddress: string): Promise<PeerConn> {
  const socket = net.connect({ host: "127.0.0.1", port, localAddress });
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  let received = "";
  socket.on("data", (chunk: Uint8Array) => received += new TextDecoder().decode(chunk));
  socket.on("error", () => {});
  const conn = {
    socket,
    closed,
    get received() {
      return received;
    },
  };
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(conn));
    socket.once("error", reject);
  });
}

/**
 * A client without a token holding `count` silent connections from `localAddress` and reopening
 * each one the server closes, as fast as it can.
 */
export function holdSilent(port: number, count: number, localAddress: string) {
  let stopped = false;
  let opened = 0;
  let reopened = 0;
  const held = new Set<net.Socket>();
  const slots = Array.from({ length: count }, async () => {
    while (!stopped) {
      const { socket, closed } = await connectFrom(port, localAddress);
      opened++;
      held.add(socket);
      if (stopped) socket.destroy();
      await closed;
      held.delete(socket);
      reopened++;
    }
  });
  return {
    get opened() {
      return opened;
    },
    get reopened() {
      return reopened;
    },
    async stop() {
      stopped = true;
      for (const socket of held) socket.destroy();
      await Promise.all(slots);
    },
  };
}
