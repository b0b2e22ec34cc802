// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isRequest } from "./json_rpc.ts";
import { PostReply } from "./mcp_post_reply.ts";

/**
 * A stateless Streamable HTTP server transport: one transport per POST (a batch, or
 * notifications: a single request needs none, see `answerLoneRequest`), no `mcp-session-id`, no
 * GET stream and no resumption. It answers as the SDK's `WebStandardStreamableHTTPServerTransport`
 * does with `sessionIdGenerator: undefined` (same statuses, codes and messages), without that
 * transport's session, event-store and JSON-response machinery, which is most of its 14 KB in a
 * Worker.
 */
export class StatelessHttpTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  #closed = false;
  /** The answer to the POST, once it has requests. */
  #reply?: PostReply;

  /** Nothing to start: the request arrives through {@linkcode handleMessages}. */
  async start(): Promise<void> {}

  /**
   * Answers `request`, a POST whose `messages` are read and checked already (`readMessages`): 202
   * for notifications and responses only, otherwise each request's response and the
   * notifications related to it, as JSON or SSE (see {@linkcode PostReply}).
   */
  async handleMessages(messages: JSONRPCMessage[], request: Request): Promise<Response> {
    // No `extra.requestInfo`: the server reads nothing of it, and copying the headers and
    // parsing the URL cost more than the rest of a small call.
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      return new Response(null, { status: 202 });
    }
    const reply = this.#reply = new PostReply(requests.map(({ id }) => id));
    for (const message of messages) this.onmessage?.(message);
    return await reply.respond(request, () => void this.close());
  }

  /**
   * Writes `message` to the stream of the request it answers or relates to; a notification
   * related to none goes nowhere, as a stateless server has no standalone stream.
   */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The server's own messages need no check: a response is what has no method (and always
    // carries its request's id).
    const isResponse = !("method" in message);
    const id = isResponse ? (message as { id: RequestId }).id : options?.relatedRequestId;
    return id === undefined || this.#closed || this.#reply?.write(message, id, isResponse)
      ? Promise.resolve()
      : Promise.reject(new Error(`No connection established for request ID: ${String(id)}`));
  }

  /** Ends the stream, if open, and tells the server. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#reply?.close();
      this.onclose?.();
    }
    return Promise.resolve();
  }
}
