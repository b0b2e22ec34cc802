import { Server } from "@modelcontextprotocol/sdk/server";
// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { formatToolError, type Tool, ToolError } from "../tool.ts";
import { unknownTool } from "../run_tool_calls.ts";
import { VERSION } from "../version.ts";
import { toolContext } from "./tool_context.ts";

/** What the MCP endpoint serves. */
export interface McpOptions {
  tools: ReadonlyMap<string, Tool>;
  maxBodyBytes: number;
  /** How often a call that asked for progress gets a `notifications/progress`, in ms. */
  progressIntervalMs: number;
  onError: (error: unknown) => void;
}

/**
 * Handles one request to the MCP endpoint. The server is stateless (no `mcp-session-id`): each
 * request gets its own server and transport, so any instance can answer any request, which is
 * what serverless deployments need. Calls get the same `ToolContext` as on the JSON route, from
 * the `Outpost-*-Id` headers. Responses stream as SSE; a call whose request carries a
 * `progressToken` gets a progress notification every `progressIntervalMs`, which keeps a long
 * `ask_human` wait from looking idle to the client (`resetTimeoutOnProgress`) and to proxies.
 */
export async function handleMcp(request: Request, options: McpOptions): Promise<Response> {
  if (request.method !== "POST") {
    return new Response(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: this server is stateless." },
        id: null,
      }),
      { status: 405, headers: { allow: "POST", "content-type": "application/json" } },
    );
  }
  const server = mcpServer(request, options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: options.maxBodyBytes,
  });
  await server.connect(transport);
  // A client that goes away aborts its tool calls without a tool-call id, as on the JSON route.
  request.signal.addEventListener("abort", () => void server.close(), { once: true });
  return await transport.handleRequest(request);
}

function mcpServer(
  request: Request,
  { tools, progressIntervalMs, onError }: McpOptions,
): Server {
  const server = new Server(
    { name: "outpost", version: VERSION },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.parameters,
      ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
    })),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (call, extra) => {
      const found = tools.get(call.params.name);
      if (!found) {
        const error = unknownTool(call.params.name, tools.keys());
        throw new McpError(ErrorCode.InvalidParams, `${error.message} ${error.hint}`);
      }
      const ctx = toolContext(request.headers, extra.signal);
      if (typeof ctx === "string") throw new McpError(ErrorCode.InvalidRequest, ctx);
      const progressToken = call.params._meta?.progressToken;
      let progress = 0;
      const ticker = progressToken === undefined ? undefined : setInterval(() => {
        extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: ++progress, message: "Still working." },
        }).catch(() => {/* The client is gone; the call itself decides what happens. */});
      }, progressIntervalMs);
      try {
        const text = await found.execute(call.params.arguments ?? {}, ctx);
        return { content: [{ type: "text", text }] } satisfies CallToolResult;
      } catch (error) {
        if (extra.signal.aborted) throw error;
        if (!(error instanceof ToolError)) onError(error);
        const text = error instanceof ToolError
          ? formatToolError(error)
          : "Error: the tool failed unexpectedly.";
        return { content: [{ type: "text", text }], isError: true } satisfies CallToolResult;
      } finally {
        clearInterval(ticker);
      }
    },
  );
  return server;
}
