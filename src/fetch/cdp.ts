/**
 * A Chrome DevTools Protocol client over a standard `WebSocket`, so the same code drives a
 * browser from Deno, Node and Workers: commands by id, events to listeners, flat sessions
 * (`Target.attachToTarget` with `flatten: true`) addressed by `sessionId`.
 *
 * @module
 */

/** An event the browser sent: its method, parameters and the session it came from. */
export interface CdpEvent {
  method: string;
  // deno-lint-ignore no-explicit-any -- CDP's event shapes are the browser's, checked where read
  params: any;
  sessionId?: string;
}

/** A command the browser answered with an error. */
export class CdpError extends Error {}

/** The most bytes one message from the browser may hold (the page's HTML comes in one). */
const MAX_MESSAGE_CHARS = 64_000_000;

/** One WebSocket to a browser's DevTools endpoint. */
export class CdpConnection {
  readonly #socket: WebSocket;
  // deno-lint-ignore no-explicit-any -- see CdpEvent
  readonly #pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  readonly #listeners = new Set<(event: CdpEvent) => void>();
  #nextId = 1;
  #closed: Error | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => this.#receive(event.data));
    socket.addEventListener("close", () => this.#fail(new CdpError("the browser hung up")));
    socket.addEventListener("error", () => this.#fail(new CdpError("the browser hung up")));
  }

  /** Waits for `socket` to open (or `signal` to abort) and wraps it. */
  static async open(socket: WebSocket, signal: AbortSignal): Promise<CdpConnection> {
    if (socket.readyState !== WebSocket.OPEN) {
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          socket.removeEventListener("open", onOpen);
          socket.removeEventListener("error", onError);
          socket.removeEventListener("close", onError);
          signal.removeEventListener("abort", onAbort);
        };
        const onOpen = () => (done(), resolve());
        const onError = () => (done(), reject(new CdpError("could not connect to the browser")));
        const onAbort = () => (done(), socket.close(), reject(signal.reason));
        socket.addEventListener("open", onOpen);
        socket.addEventListener("error", onError);
        socket.addEventListener("close", onError);
        signal.addEventListener("abort", onAbort);
        if (signal.aborted) onAbort();
      });
    }
    return new CdpConnection(socket);
  }

  /** Sends a command (to `sessionId`'s target, else to the browser) and resolves with its result. */
  // deno-lint-ignore no-explicit-any -- see CdpEvent
  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(message);
    });
  }

  /** Calls `listener` with every event; returns a function that stops it. */
  on(listener: (event: CdpEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the socket; commands still waiting reject. */
  close(): void {
    this.#fail(new CdpError("the connection to the browser was closed"));
    try {
      this.#socket.close();
    } catch {
      // Already closed.
    }
  }

  #receive(data: unknown): void {
    if (typeof data !== "string" || data.length > MAX_MESSAGE_CHARS) {
      this.close();
      return;
    }
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message?.id === "number") {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new CdpError(String(message.error.message)));
      else pending.resolve(message.result ?? {});
    } else if (typeof message?.method === "string") {
      const event = { method: message.method, params: message.params ?? {} } as CdpEvent;
      if (typeof message.sessionId === "string") event.sessionId = message.sessionId;
      for (const listener of this.#listeners) listener(event);
    }
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
