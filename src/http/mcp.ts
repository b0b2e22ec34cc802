import { Hono } from "hono/tiny";
import type { MiddlewareHandler } from "hono";
import type { CallTelemetry } from "../call_telemetry.ts";
import type { Admit } from "./call_limiter.ts";
import type { Tool } from "../tool.ts";
import { bearerOf } from "./auth.ts";
import { isRequest } from "./json_rpc.ts";
import { StatelessHttpTransport } from "./mcp_http_transport.ts";
import { answerLoneRequest } from "./mcp_lone_request.ts";
import { jsonRpcError, readMessages } from "./mcp_post_messages.ts";
import { McpToolServer } from "./mcp_server.ts";
import { contextIds } from "./tool_context.ts";
import type { UnkeyedCalls } from "./unkeyed_calls.ts";

/** What the MCP endpoint serves. */
export interface McpOptions {
  tools: ReadonlyMap<string, Tool>;
  maxBodyBytes: number;
  /** How often a call that asked for progress gets a `notifications/progress`, in ms. */
  progressIntervalMs: number;
  onError: (error: unknown) => void;
  /** Where calls without a tool-call id are tracked, for a graceful stop. */
  unkeyed: UnkeyedCalls;
  /** The access log and tracer of tool calls, if any. */
  telemetry: CallTelemetry | undefined;
  /** Admits each call of a request within the limits of its caller (its token), if any. */
  admitFor: ((token: string) => Admit) | undefined;
}

/** The MCP endpoint: for the router, and for the app to call directly. */
export interface McpRoute {
  /** `/mcp` behind the tool token's check (`auth`) and the body cap (`limit`). */
  readonly routes: Hono;
  /** Answers a request whose `token` and body length were checked as the routes check them. */
  answer(request: Request, token: string): Promise<Response>;
}

/** `/mcp` behind the tool token's check (`auth`) and the body cap (`limit`). */
export function mcpRoute(
  options: McpOptions & { auth: MiddlewareHandler; limit: MiddlewareHandler },
): McpRoute {
  const { auth, limit, ...mcp } = options;
  const answer = (request: Request, token: string) => handleMcp(request, token, mcp);
  const routes = new Hono();
  routes.all("/mcp", auth, limit, (c) => answer(c.req.raw, bearerOf(c.req.raw)));
  return { routes, answer };
}

/**
 * Handles one request to the MCP endpoint. The server is stateless (no `mcp-session-id`): each
 * request gets its own server (and, for a batch or notifications, a transport; a single request
 * is answered without one), so any instance can answer any request, which is
 * what serverless deployments need (and why elicitation, which needs the client's answer to
 * reach the same server, is not offered here). A call takes its context ids from its
 * `params._meta` (`CONTEXT_META` in mcp_call_meta.ts); the `Outpost-*-Id` headers apply only to a
 * request carrying a single message, since one set of ids cannot name several calls. Responses
 * stream as SSE; a call whose request carries a `progressToken` gets a progress notification
 * every `progressIntervalMs`.
 */
async function handleMcp(
  request: Request,
  token: string,
  options: McpOptions,
): Promise<Response> {
  if (request.method !== "POST") {
    return rpcError(405, "Method not allowed: this server is stateless.", { allow: "POST" });
  }
  const headerIds = contextIds(request.headers);
  if (typeof headerIds === "string") return rpcError(400, headerIds);
  const withIds = Object.keys(headerIds).length > 0;
  let body: string | undefined;
  if (withIds) {
    // The ids must name one call: look at the body before its messages are read.
    body = await request.text();
    if (body.trimStart().startsWith("[")) {
      return rpcError(
        400,
        "Outpost-*-Id headers name a single call; give each call of a batch its ids in " +
          'params._meta ("outpost/toolCallId", "outpost/sessionId", "outpost/runId").',
      );
    }
  }
  const messages = await readMessages(request, options.maxBodyBytes, body);
  if (messages instanceof Response) return messages;
  const server = new McpToolServer(options.tools, {
    progressIntervalMs: options.progressIntervalMs,
    onError: options.onError,
    durableOnClose: true,
    unkeyed: options.unkeyed,
    telemetry: options.telemetry,
    admit: options.admitFor?.(token),
    fallbackContext: withIds ? headerIds : undefined,
  });
  const [first] = messages;
  if (messages.length === 1 && isRequest(first)) {
    return await answerLoneRequest(server, first, request);
  }
  const transport = new StatelessHttpTransport();
  await server.connect(transport);
  return await transport.handleMessages(messages, request);
}

function rpcError(status: number, message: string, headers: Record<string, string> = {}) {
  return jsonRpcError(status, -32000, message, headers);
}
