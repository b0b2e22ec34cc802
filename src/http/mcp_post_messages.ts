// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isInitializeRequest, isMessage, SUPPORTED_PROTOCOL_VERSIONS } from "./json_rpc.ts";
import { declaredLength } from "./request_body.ts";

/** The most messages one batch may carry, as the SDK's transport allows. */
const MAX_BATCH_SIZE = 100;

/**
 * The JSON-RPC messages a POST to the MCP endpoint carries (one, or a batch), checked as the
 * SDK's `WebStandardStreamableHTTPServerTransport` checks them (same statuses, codes and
 * messages), or the response that refuses them; `text` is the body when the caller has read it
 * (within `maxBodyBytes`) already. Without the `content-type` package that transport needs to
 * parse one header.
 */
export async function readMessages(
  request: Request,
  maxBodyBytes: number,
  text?: string,
): Promise<JSONRPCMessage[] | Response> {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcError(
      406,
      -32000,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return jsonRpcError(
      415,
      -32000,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
  let raw: unknown;
  try {
    const body = text ?? await readBody(request, maxBodyBytes);
    if (body === undefined) {
      return jsonRpcError(
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes`,
      );
    }
    raw = JSON.parse(body);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return jsonRpcError(
      400,
      -32600,
      `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
    );
  }
  const messages: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (!messages.every(isMessage)) {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON-RPC message");
  }
  if (messages.some(isInitializeRequest)) {
    if (messages.length > 1) {
      return jsonRpcError(
        400,
        -32600,
        "Invalid Request: Only one initialization request is allowed",
      );
    }
  } else {
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        })`,
      );
    }
  }
  return messages;
}

/** A JSON-RPC error response with no id, as the refusals of a POST are. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
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
  const length = declaredLength(request.headers);
  if ((length ?? 0) > maxBytes) return undefined;
  // A declared length bounds the body (the runtime holds the client to it): read it at once,
  // which runtimes do without building a stream.
  if (length !== undefined) return await request.text();
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
