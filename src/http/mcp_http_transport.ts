// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { systemClock } from "../clock.ts";
import {
  isInitializeRequest,
  isMessage,
  isRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./json_rpc.ts";

/** The most messages one batch may carry, as the SDK's transport allows. */
const MAX_BATCH_SIZE = 100;
/** How often an open SSE stream gets a comment, so that proxies keep it open (the SDK's default). */
const KEEP_ALIVE_MS = 15_000;
/**
 * How long the answers may take to go out as one body instead of a stream, which a runtime sends
 * several times more cheaply: `now` or a cached page comes at once, a call still running after
 * this gets the stream.
 */
const STREAM_AFTER_MS = 50;
/**
 * How many microtask turns the answers may take to go out without a timer: about three times
 * what a call that does no I/O takes (`now`, through the telemetry and the tool's checks: 10).
 */
const AT_ONCE_TURNS = 32;
/** An answer sent whole: what a stream's headers add concern only streams, and cost a runtime. */
const BODY_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
};
const encoder = new TextEncoder();
const SSE_HEADERS = { ...BODY_HEADERS, connection: "keep-alive", "x-accel-buffering": "no" };

/**
 * A stateless Streamable HTTP server transport: one transport per POST, no `mcp-session-id`,
 * no GET stream and no resumption. It answers as the SDK's `WebStandardStreamableHTTPServerTransport`
 * does with `sessionIdGenerator: undefined` (same statuses, codes and messages), without that
 * transport's session, event-store and JSON-response machinery, which is most of its 14 KB in a
 * Worker, and without the `content-type` package it needs to parse one header.
 */
export class StatelessHttpTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #maxBodyBytes: number;
  #handled = false;
  #closed = false;
  /** The requests of the POST, and the ones answered so far. */
  readonly #pending = new Set<RequestId>();
  #answered = 0;
  #stream?: ReadableStreamDefaultController<Uint8Array>;
  /** The events written before the stream opens, if it has not yet. */
  #held?: string[];
  /** Ends the wait for the answers to go out at once. */
  #ended = () => {};
  #keepAlive?: ReturnType<typeof setInterval>;

  /** A transport for one request whose body may hold up to `maxBodyBytes`. */
  constructor(maxBodyBytes: number) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Nothing to start: the request arrives through {@linkcode handlePost}. */
  async start(): Promise<void> {}

  /**
   * Answers a POST: 202 for notifications and responses only, otherwise SSE that carries each
   * request's response and the notifications related to it, and ends once every response is
   * sent: as one body when they all come within `STREAM_AFTER_MS`, else as a stream.
   */
  async handlePost(request: Request): Promise<Response> {
    if (this.#handled) throw new Error("A stateless transport serves one request.");
    this.#handled = true;
    try {
      const accept = request.headers.get("accept") ?? "";
      if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
        return this.#reject(
          406,
          -32000,
          "Not Acceptable: Client must accept both application/json and text/event-stream",
        );
      }
      if (!isJsonContentType(request.headers.get("content-type"))) {
        return this.#reject(
          415,
          -32000,
          "Unsupported Media Type: Content-Type must be application/json",
        );
      }
      let raw: unknown;
      try {
        const body = await readBody(request, this.#maxBodyBytes);
        if (body === undefined) {
          return this.#reject(
            413,
            -32000,
            `Payload Too Large: Request body must not exceed ${this.#maxBodyBytes} bytes`,
          );
        }
        raw = JSON.parse(body);
      } catch {
        return this.#reject(400, -32700, "Parse error: Invalid JSON");
      }
      if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
        return this.#reject(
          400,
          -32600,
          `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
        );
      }
      const messages: unknown[] = Array.isArray(raw) ? raw : [raw];
      if (!messages.every(isMessage)) {
        return this.#reject(400, -32700, "Parse error: Invalid JSON-RPC message");
      }
      if (messages.some(isInitializeRequest)) {
        if (messages.length > 1) {
          return this.#reject(
            400,
            -32600,
            "Invalid Request: Only one initialization request is allowed",
          );
        }
      } else {
        const version = request.headers.get("mcp-protocol-version");
        if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
          return this.#reject(
            400,
            -32000,
            `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
              SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            })`,
          );
        }
      }
      // No `extra.requestInfo`: the server reads nothing of it, and copying the headers and
      // parsing the URL cost more than the rest of a small call.
      const requests = messages.filter(isRequest);
      if (requests.length === 0) {
        for (const message of messages) this.onmessage?.(message);
        return new Response(null, { status: 202 });
      }
      for (const { id } of requests) this.#pending.add(id);
      const held: string[] = this.#held = [];
      let answered = false;
      const ended = new Promise<void>((resolve) => {
        this.#ended = () => {
          answered = true;
          resolve();
        };
      });
      for (const message of messages) this.onmessage?.(message);
      // An answer that needs no I/O (`now`, a cached page) is there once the microtasks of its
      // call have run: it goes out without a timer set or the connection watched, which cost a
      // runtime more than the rest of such a call.
      for (let turn = 0; turn < AT_ONCE_TURNS && !answered; turn++) await undefined;
      if (!answered) {
        // A client that goes away aborts the calls (those with a tool-call id run on).
        const { signal } = request;
        if (signal.aborted) void this.close();
        else signal.addEventListener("abort", () => void this.close(), { once: true });
        const cancel = systemClock.setTimer(this.#ended, STREAM_AFTER_MS);
        await ended;
        cancel();
      }
      this.#held = undefined;
      if (this.#pending.size === 0 || this.#closed) {
        return new Response(held.join(""), { headers: BODY_HEADERS });
      }
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          this.#stream = controller;
          if (held.length) this.#write(held.join(""));
        },
        // The client hung up: nothing more can reach it.
        cancel: () => {
          this.#stream = undefined;
          void this.close();
        },
      });
      if (this.#stream) {
        this.#keepAlive = setInterval(() => this.#write(": keepalive\n\n"), KEEP_ALIVE_MS);
      }
      return new Response(body, { headers: SSE_HEADERS });
    } catch (error) {
      this.#endStream();
      this.onerror?.(error as Error);
      return jsonRpcError(400, -32700, "Parse error", {}, String(error));
    }
  }

  /** Writes `message` to the stream of the request it answers or relates to. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      this.#deliver(message, options?.relatedRequestId);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Ends the stream, if open, and tells the server. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#endStream();
      this.onclose?.();
    }
    return Promise.resolve();
  }

  #deliver(message: JSONRPCMessage, relatedRequestId?: RequestId): void {
    // The server's own messages need no check: a response is what has no method.
    const isResponse = !("method" in message);
    const id = isResponse ? (message as { id: RequestId }).id : relatedRequestId;
    if (id === undefined) {
      // A stateless server has no standalone stream: an unrelated notification goes nowhere.
      if (isResponse) {
        throw new Error(
          "Cannot send a response on a standalone SSE stream unless resuming a previous client request",
        );
      }
      return;
    }
    if (this.#closed) return;
    if (!this.#pending.has(id)) {
      throw new Error(`No connection established for request ID: ${String(id)}`);
    }
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (isResponse && ++this.#answered === this.#pending.size) {
      this.#pending.clear();
      this.#endStream();
    }
  }

  #write(text: string): void {
    if (this.#held) return void this.#held.push(text);
    try {
      this.#stream?.enqueue(encoder.encode(text));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #endStream(): void {
    this.#ended();
    clearInterval(this.#keepAlive);
    try {
      this.#stream?.close();
    } catch {
      // Already closed or cancelled.
    }
    this.#stream = undefined;
  }

  #reject(status: number, code: number, message: string): Response {
    this.onerror?.(new Error(message));
    return jsonRpcError(status, code, message);
  }
}

/** A JSON-RPC error response with no id, as the transport's refusals are. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: string,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error, id: null }),
    { status, headers: { ...headers, "content-type": "application/json" } },
  );
}

/**
 * Whether a Content-Type names JSON, parameters aside. Joined duplicate headers (a comma outside
 * a quoted parameter value) are ambiguous, so they do not.
 */
function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  if (header === "application/json") return true;
  const essence = header.split(";", 1)[0].trim().toLowerCase();
  return essence === "application/json" && !header.replace(/"(?:[^"\\]|\\.)*"/g, "").includes(",");
}

/** The body as text, or `undefined` when it holds more than `maxBytes`. */
async function readBody(request: Request, maxBytes: number): Promise<string | undefined> {
  const length = request.headers.get("content-length");
  if (Number(length) > maxBytes) return undefined;
  // A declared length bounds the body (the runtime holds the client to it): read it at once,
  // which runtimes do without building a stream.
  if (length !== null && !request.headers.has("transfer-encoding")) return await request.text();
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
