// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { systemClock } from "../clock.ts";
import { AT_ONCE_TURNS } from "./at_once.ts";

/** How often an open SSE stream gets a comment, so that proxies keep it open (the SDK's default). */
const KEEP_ALIVE_MS = 15_000;
/**
 * How long the answers may take to go out as one body instead of a stream, which a runtime sends
 * several times more cheaply: `now` or a cached page comes at once, a call still running after
 * this gets the stream.
 */
const STREAM_AFTER_MS = 50;
/**
 * An answer sent whole: what a stream's headers add concern only streams (no cache stores the
 * answer to a POST, and no proxy holds back a body that is already whole), and cost a runtime:
 * Deno serves a body with its type alone on a fast path, and makes a native object, collected
 * later, for a response with more headers.
 */
const BODY_HEADERS = { "content-type": "text/event-stream" };
const JSON_HEADERS = { "content-type": "application/json" };
const encoder = new TextEncoder();
const SSE_HEADERS = {
  ...BODY_HEADERS,
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * The answer to one POST of JSON-RPC requests: each request's response and the notifications
 * related to it. When every response comes within `STREAM_AFTER_MS`, one body: JSON if the
 * responses are all there is (Streamable HTTP's other answer to a POST, which clients must read),
 * else SSE; otherwise an SSE stream that ends once every response is sent.
 */
export class PostReply {
  /** The requests of the POST; emptied once they are all answered, or the reply closed. */
  #pending: readonly RequestId[];
  #answered = 0;
  #stream?: ReadableStreamDefaultController<Uint8Array>;
  /** The messages (as JSON) written before the stream opens, if it has not yet. */
  #held?: string[] = [];
  /** Whether a notification is among them: only SSE carries those. */
  #notified = false;
  /** Ends the wait for the answers, once it has begun. */
  #wake?: () => void;
  #keepAlive?: ReturnType<typeof setInterval>;
  /** A reply to the requests `ids`. */
  constructor(ids: readonly RequestId[]) {
    this.#pending = ids;
  }

  /**
   * Writes `message`, the response (`isResponse`) of request `id` or a notification related to
   * it; `false` when `id` is none of the reply's unanswered requests (once it has closed, none
   * is).
   */
  write(message: JSONRPCMessage, id: RequestId, isResponse: boolean): boolean {
    if (!this.#pending.includes(id)) return false;
    // Serialized now: a message JSON cannot carry fails its write, which answers it otherwise.
    const data = JSON.stringify(message);
    if (this.#held) {
      this.#held.push(data);
      this.#notified ||= !isResponse;
    } else this.#put(event(data));
    if (isResponse && ++this.#answered === this.#pending.length) {
      this.#pending = [];
      this.#end();
    }
    return true;
  }

  /** Ends the reply: the stream, if open, closes, and nothing more is written. */
  close(): void {
    this.#pending = [];
    this.#end();
  }

  /**
   * The response to the POST once its answers are all written or `STREAM_AFTER_MS` has passed:
   * the events as one body, or a stream of them. `gone` runs when the client goes away (the
   * signal of its `request` aborts, or it cancels the stream) before the reply ends.
   */
  async respond(request: Request, gone: () => void): Promise<Response> {
    // An answer that needs no I/O (`now`, a cached page) is there once the microtasks of its
    // call have run: it goes out without a timer set or the connection watched, which cost a
    // runtime more than the rest of such a call.
    for (let turn = 0; turn < AT_ONCE_TURNS && this.#pending.length; turn++) await undefined;
    if (this.#pending.length) {
      // A client that goes away aborts the calls (those with a tool-call id run on). Only now is
      // the request's signal made: a runtime watches the connection for it.
      const { signal } = request;
      if (signal.aborted) gone();
      else signal.addEventListener("abort", gone, { once: true });
      let cancel = () => {};
      if (this.#pending.length) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          cancel = systemClock.setTimer(resolve, STREAM_AFTER_MS);
        });
      }
      cancel();
    }
    const held = this.#held ?? [];
    this.#held = undefined;
    if (!this.#pending.length) {
      // Responses alone go as JSON, the protocol's other answer to a POST, which every client
      // reads and a runtime serves on its fast path: one object, or the array of a batch's.
      if (held.length && !this.#notified) {
        return new Response(held.length === 1 ? held[0] : `[${held}]`, {
          headers: JSON_HEADERS,
        });
      }
      return new Response(held.map(event).join(""), { headers: BODY_HEADERS });
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
        if (held.length) this.#put(held.map(event).join(""));
      },
      // The client hung up: nothing more can reach it.
      cancel: () => {
        this.#stream = undefined;
        gone();
      },
    });
    if (this.#stream) {
      this.#keepAlive = setInterval(() => this.#put(": keepalive\n\n"), KEEP_ALIVE_MS);
    }
    return new Response(body, { headers: SSE_HEADERS });
  }

  #put(text: string): void {
    // A stream the client cancelled, or that ended, is no longer there to write to.
    this.#stream?.enqueue(encoder.encode(text));
  }

  #end(): void {
    this.#wake?.();
    clearInterval(this.#keepAlive);
    try {
      this.#stream?.close();
    } catch {
      // Already closed or cancelled.
    }
    this.#stream = undefined;
  }
}

/** A message, as JSON, as an SSE event. */
function event(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
