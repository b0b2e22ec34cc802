// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { systemClock } from "../clock.ts";
import {
  ErrorCode,
  isErrorResponse,
  isNotification,
  isRequest,
  isResultResponse,
  McpError,
} from "./json_rpc.ts";

/** A JSON object, as messages carry them. */
export type Json = Record<string, unknown>;

/** What a request handler gets besides the request's parameters. */
export interface RequestExtra {
  requestId: RequestId;
  /** Aborts when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /**
   * The controller of `signal`, when the request's answer goes out whether or not `signal`
   * aborted (a lone POST's: it is sent unless the client went away): a call that a stopping
   * service must be able to end aborts it, instead of a controller of its own that would follow
   * `signal` through a listener (a kilobyte of allocations on every call).
   */
  controller?: AbortController;
  /** Sends a notification related to this request. */
  sendNotification(notification: { method: string; params?: Json }): Promise<void>;
  /** Sends a request to the client, related to this one, and resolves with its result. */
  sendRequest(
    request: { method: string; params?: Json },
    options: { signal?: AbortSignal; timeout: number },
  ): Promise<Json>;
}

/** Serves one request method. */
export type RequestHandler = (params: Json, extra: RequestExtra) => unknown;

/**
 * The JSON-RPC side of an MCP server on a transport: requests in (each served by the handler
 * its subclass names, cancellable by the client), requests out (with a timeout), notifications,
 * and what a closed connection ends. It answers as the SDK's `Protocol` does (same codes and
 * messages).
 */
export abstract class McpSession {
  /** Called once the transport has closed. */
  onclose?: () => void;
  /** Called with failures that reach no request: a response to nothing, a failed send. */
  onerror?: (error: Error) => void;
  #transport?: Transport;
  // These three are made on first use: a session that serves a lone POST's request never needs
  // them (`answer` is all it does).
  /** Requests the client cancelled explicitly, as opposed to a closed connection. */
  #cancelled?: Set<RequestId>;
  /** The requests being served, by id. */
  #running?: Map<RequestId, AbortController>;
  /** The requests sent to the client that await a response, by id. */
  #waiting?: Map<number, (response: JSONRPCMessage | Error) => void>;
  #nextId = 0;

  /** The handler of a request method, or `undefined` for a method this server does not serve. */
  protected abstract handler(method: string): RequestHandler | undefined;

  /** Whether the client cancelled request `id` with `notifications/cancelled`. */
  protected cancelledByClient(id: RequestId): boolean {
    return this.#cancelled?.has(id) ?? false;
  }

  /** Forgets the explicit cancel of request `id`, once it has ended. */
  protected forgetCancel(id: RequestId): void {
    this.#cancelled?.delete(id);
  }

  /** Takes over `transport` (its callbacks still run first) and starts it. */
  async connect(transport: Transport): Promise<void> {
    if (this.#transport) throw new Error("Already connected to a transport.");
    this.#transport = transport;
    const { onclose, onerror, onmessage } = transport;
    transport.onclose = () => {
      onclose?.();
      this.#onclose();
    };
    transport.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      this.#receive(message);
    };
    await transport.start();
  }

  /** Closes the transport. */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  #receive(message: JSONRPCMessage): void {
    // Requests first: they are most of what comes.
    if (isRequest(message)) {
      this.#serve(message);
    } else if (isResultResponse(message) || isErrorResponse(message)) {
      const answer = this.#waiting?.get(Number(message.id));
      if (answer) answer(message);
      else this.error(`Received a response for an unknown message ID: ${JSON.stringify(message)}`);
    } else if (isNotification(message)) {
      const params = message.params ?? {};
      if (message.method === "notifications/cancelled") {
        const id = params.requestId;
        if (typeof id !== "string" && typeof id !== "number") return;
        (this.#cancelled ??= new Set()).add(id);
        this.#running?.get(id)?.abort(params.reason);
      } else if (message.method === "notifications/progress") {
        // This server asks for no progress.
        this.error(
          `Received a progress notification for an unknown token: ${JSON.stringify(message)}`,
        );
      }
    } else {
      this.error(`Unknown message type: ${JSON.stringify(message)}`);
    }
  }

  /** Runs a request's handler and sends its response, unless the request was cancelled. */
  #serve(request: { id: RequestId; method: string; params?: Json }): void {
    const transport = this.#transport;
    const { id } = request;
    const controller = new AbortController();
    // A method this server does not serve is answered at once: nothing runs that a cancel could
    // stop.
    if (this.handler(request.method)) (this.#running ??= new Map()).set(id, controller);
    const extra: RequestExtra = {
      requestId: id,
      signal: controller.signal,
      sendNotification: async (notification) => {
        if (controller.signal.aborted) return;
        if (!this.#transport) throw new Error("Not connected");
        await this.#transport.send({ ...notification, jsonrpc: "2.0" } as JSONRPCMessage, {
          relatedRequestId: id,
        });
      },
      sendRequest: (outgoing, options) => {
        if (controller.signal.aborted) {
          return Promise.reject(new McpError(ErrorCode.ConnectionClosed, "Request was cancelled"));
        }
        return this.#request(outgoing, id, options);
      },
    };
    // As the SDK's `Protocol`: the handler runs in a later microtask, once the other messages of
    // a batch have arrived (a lone request, answered without a transport, has no others).
    Promise.resolve().then(() => this.answer(request, extra))
      .then(async (response) => {
        if (!controller.signal.aborted && transport) {
          await this.deliver(response, (message) => transport.send(message));
        }
      })
      .catch((error) => this.error(`Failed to send response: ${error}`))
      .finally(() => {
        if (this.#running?.get(id) === controller) this.#running.delete(id);
      });
  }

  /**
   * The response to `request`: its handler's result, or the error it threw as a JSON-RPC error
   * (`-32601` for a method this server does not serve), as the SDK's `Protocol` answers. The
   * caller decides where it goes and whether a cancelled request still gets it.
   */
  async answer(
    request: { id: RequestId; method: string; params?: Json },
    extra: RequestExtra,
  ): Promise<JSONRPCMessage> {
    const { id } = request;
    const handler = this.handler(request.method);
    if (!handler) {
      return {
        jsonrpc: "2.0",
        id,
        error: { code: ErrorCode.MethodNotFound, message: "Method not found" },
      };
    }
    try {
      const result = await handler(request.params ?? {}, extra);
      return { result, jsonrpc: "2.0", id } as JSONRPCMessage;
    } catch (error) {
      const { code, message, data } = (error ?? {}) as {
        code?: unknown;
        message?: string;
        data?: unknown;
      };
      return {
        jsonrpc: "2.0",
        id,
        error: {
          code: Number.isSafeInteger(code) ? code as number : ErrorCode.InternalError,
          message: message ?? "Internal error",
          ...(data !== undefined ? { data } : {}),
        },
      };
    }
  }

  /**
   * Sends `response` with `send`. One that cannot go out (a value JSON cannot carry) is reported
   * to `onerror`, and an internal error answers its request instead, which would otherwise stay
   * unanswered.
   */
  async deliver(
    response: JSONRPCMessage,
    send: (message: JSONRPCMessage) => unknown,
  ): Promise<void> {
    try {
      await send(response);
    } catch (error) {
      this.error(`Failed to send response: ${error}`);
      const { id } = response as { id: RequestId };
      await send({
        jsonrpc: "2.0",
        id,
        error: { code: ErrorCode.InternalError, message: "Internal error" },
      });
    }
  }

  /** Sends a request to the client and resolves with its result. */
  #request(
    request: { method: string; params?: Json },
    relatedRequestId: RequestId,
    { signal, timeout }: { signal?: AbortSignal; timeout: number },
  ): Promise<Json> {
    return new Promise((resolve, reject) => {
      const transport = this.#transport;
      if (!transport) return reject(new Error("Not connected"));
      if (signal?.aborted) return reject(signal.reason);
      const id = this.#nextId++;
      const settle = () => {
        this.#waiting?.delete(id);
        cancelTimer();
        signal?.removeEventListener("abort", onAbort);
      };
      const cancel = (reason: unknown) => {
        settle();
        transport.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(reason) },
        }, { relatedRequestId }).catch((error) =>
          this.error(`Failed to send cancellation: ${error}`)
        );
        reject(
          reason instanceof McpError
            ? reason
            : new McpError(ErrorCode.RequestTimeout, String(reason)),
        );
      };
      const onAbort = () => cancel(signal?.reason);
      (this.#waiting ??= new Map()).set(id, (response: JSONRPCMessage | Error) => {
        settle();
        if (response instanceof Error) reject(response);
        else if (isErrorResponse(response)) {
          const { code, message, data } = response.error;
          reject(new McpError(code, message, data));
        } else resolve((response as { result: Json }).result);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      const cancelTimer = systemClock.setTimer(
        () => cancel(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout })),
        timeout,
      );
      transport.send({ ...request, jsonrpc: "2.0", id } as JSONRPCMessage, { relatedRequestId })
        .catch((error) => {
          settle();
          reject(error);
        });
    });
  }

  /** The transport closed: every call aborts, every request to the client fails. */
  #onclose(): void {
    const waiting = [...this.#waiting?.values() ?? []];
    this.#waiting?.clear();
    for (const controller of this.#running?.values() ?? []) controller.abort();
    this.#running?.clear();
    this.#transport = undefined;
    this.onclose?.();
    const error = new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const answer of waiting) answer(error);
  }

  /** Reports a failure that reaches no request. */
  protected error(message: string): void {
    this.onerror?.(new Error(message));
  }
}
