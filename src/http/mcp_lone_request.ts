// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Json, McpSession, RequestExtra } from "./mcp_session.ts";
import { PostReply } from "./mcp_post_reply.ts";

/**
 * Answers `post`, which carries a single `request` (read and checked: `readMessages`), without a
 * transport: `server` answers it (`McpSession.answer`, the dispatch a batch goes through too) and
 * its response, after the notifications of its call, goes out in an {@linkcode PostReply}. What a
 * batch needs besides (a transport, and the session's bookkeeping of calls that other messages
 * of the batch may cancel) costs a small call as much again in allocations, and one request
 * needs none of it. As through the transport, the call is aborted when the client goes away.
 */
export function answerLoneRequest(
  server: McpSession,
  request: { id: RequestId; method: string; params?: Json },
  post: Request,
): Promise<Response> {
  const { id } = request;
  const reply = new PostReply([id]);
  // Aborted when the client goes away, or by a stopping service (`extra.controller`), whose
  // calls still get their answer: whether the client is gone is `gone`, not the signal.
  const controller = new AbortController();
  let gone = false;
  const extra: RequestExtra = {
    requestId: id,
    signal: controller.signal,
    controller,
    sendNotification: (notification) => {
      if (!gone) reply.write({ ...notification, jsonrpc: "2.0" } as JSONRPCMessage, id, false);
      return Promise.resolve();
    },
    // Its answer would come in another POST, to a server of its own: a stateless server offers
    // nothing that asks the client (no elicitation without the client's capabilities).
    sendRequest: () => Promise.reject(new Error("Not connected")),
  };
  server.answer(request, extra)
    .then((response) =>
      gone ? undefined : server.deliver(response, (message) => reply.write(message, id, true))
    )
    // Nothing of the call may end up an unhandled rejection, which ends a Deno process.
    .catch((error) => server.onerror?.(error));
  return reply.respond(post, () => {
    gone = true;
    reply.close();
    controller.abort();
  });
}
