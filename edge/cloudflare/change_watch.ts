/** How often in a row a request to the object may fail before a wait or a watch gives up. */
export const MAX_FAILURES = 5;

/** What a watch connects through: a Durable Object stub, made afresh for each connection. */
type Stub = { fetch(input: string, init?: RequestInit): Promise<Response> };

/**
 * A WebSocket to the channel's object that reports its pushes. One per watcher, opened in the
 * watcher's own request, since a socket cannot serve another request.
 */
export class ChangeWatch {
  readonly #connect: () => Stub;
  #socket?: Promise<WebSocket>;
  /** A push (or a reconnection) not yet taken by `next`. */
  #changed = false;
  #waiter?: () => void;
  #closed = false;
  #failures = 0;

  constructor(connect: () => Stub) {
    this.#connect = connect;
  }

  /** Resolves once the socket is open; throws when it cannot be. */
  async ready(): Promise<void> {
    await (this.#socket ??= this.#open());
  }

  /** Resolves `true` at the next push, or at once if one came since the last call. */
  async next(stop: Promise<void>): Promise<boolean> {
    for (;;) {
      if (this.#closed) return false;
      if (this.#changed) {
        this.#changed = false;
        return true;
      }
      try {
        await (this.#socket ??= this.#open());
        this.#failures = 0;
      } catch (error) {
        this.#socket = undefined;
        if (++this.#failures >= MAX_FAILURES) throw error;
        await Promise.race([stop, new Promise((r) => setTimeout(r, 100 * 2 ** this.#failures))]);
        continue;
      }
      if (this.#changed) continue;
      await Promise.race([stop, new Promise<void>((resolve) => this.#waiter = resolve)]);
      this.#waiter = undefined;
      if (!this.#changed) return !this.#closed;
    }
  }

  close(): void {
    this.#closed = true;
    this.#socket?.then((socket) => socket.close(1000), () => {});
    this.#waiter?.();
  }

  async #open(): Promise<WebSocket> {
    const response = await this.#connect().fetch("https://question-channel/watch", {
      headers: { upgrade: "websocket" },
    });
    const socket = (response as Response & { webSocket?: WebSocket & { accept(): void } })
      .webSocket;
    if (!socket) {
      throw new Error(`The question channel refused to be watched (${response.status}).`);
    }
    socket.accept();
    const notify = () => {
      this.#changed = true;
      this.#waiter?.();
    };
    socket.addEventListener("message", notify);
    const dropped = () => {
      // Reconnect at the next wait, and report a change: what happened meanwhile is unknown.
      this.#socket = undefined;
      if (!this.#closed) notify();
    };
    socket.addEventListener("close", dropped);
    socket.addEventListener("error", dropped);
    return socket;
  }
}
