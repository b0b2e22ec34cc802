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
import { VERSION } from "../version.ts";
import type { ToolAnnotations } from "./annotations.ts";

/** What the MCP endpoint serves. */
export interface McpOptions {
  tools: ReadonlyMap<string, Tool>;
  annotations: ReadonlyMap<string, ToolAnnotations>;
  maxBodyBytes: number;
  onError: (error: unknown) => void;
}

/**
 * Handles one request to the MCP endpoint. The server is stateless (no `mcp-session-id`): each
 * request gets its own server and transport, so any instance can answer any request, which is
 * what serverless deployments need. Responses stream as SSE, whose keep-alive comments hold a
 * long `ask_human` call open through proxies.
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
  const server = mcpServer(options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: options.maxBodyBytes,
  });
  await server.connect(transport);
  // A client that goes away aborts its tool calls, as on the plain HTTP API.
  request.signal.addEventListener("abort", () => void server.close(), { once: true });
  return await transport.handleRequest(request);
}

function mcpServer({ tools, annotations, onError }: McpOptions): Server {
  const server = new Server(
    { name: "outpost", version: VERSION },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => {
      const hints = annotations.get(t.name);
      return {
        name: t.name,
        description: t.description,
        inputSchema: t.parameters,
        ...(hints ? { annotations: { ...hints } } : {}),
      };
    }),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (call, extra) => {
      const found = tools.get(call.params.name);
      if (!found) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`);
      }
      try {
        const text = await found.execute(call.params.arguments ?? {}, { signal: extra.signal });
        return { content: [{ type: "text", text }] } satisfies CallToolResult;
      } catch (error) {
        if (extra.signal.aborted) throw error;
        if (!(error instanceof ToolError)) onError(error);
        const text = error instanceof ToolError
          ? formatToolError(error)
          : "Error: the tool failed unexpectedly.";
        return { content: [{ type: "text", text }], isError: true } satisfies CallToolResult;
      }
    },
  );
  return server;
}
