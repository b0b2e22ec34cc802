// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isInitializeRequest, isMessage, SUPPORTED_PROTOCOL_VERSIONS } from "./json_rpc.ts";

/** The most messages one batch may carry, as the SDK's transport allows. */
const MAX_BATCH_SIZE = 100;

/** Why a POST's messages are refused: the HTTP status, the JSON-RPC code and the message. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
}

/**
 * The JSON-RPC messages a POST to the MCP endpoint carries (one, or a batch), checked as the
 * SDK's `WebStandardStreamableHTTPServerTransport` checks them (same statuses, codes and
 * messages), or why they are refused. Without the `content-type` package that transport needs to
 * parse one header.
 */
export async function readMessages(
  request: Request,
  maxBodyBytes: number,
): Promise<JSONRPCMessage[] | Refusal> {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return {
      status: 406,
      code: -32000,
      message: "Not Acceptable: Client must accept both application/json and text/event-stream",
    };
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return {
      status: 415,
      code: -32000,
      message: "Unsupported Media Type: Content-Type must be application/json",
    };
  }
  let raw: unknown;
  try {
    const body = await readBody(request, maxBodyBytes);
    if (body === undefined) {
      return {
        status: 413,
        code: -32000,
        message: `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes`,
      };
    }
    raw = JSON.parse(body);
  } catch {
    return { status: 400, code: -32700, message: "Parse error: Invalid JSON" };
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return {
      status: 400,
      code: -32600,
      message: `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
    };
  }
  const messages: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (!messages.every(isMessage)) {
    return { status: 400, code: -32700, message: "Parse error: Invalid JSON-RPC message" };
  }
  if (messages.some(isInitializeRequest)) {
    if (messages.length > 1) {
      return {
        status: 400,
        code: -32600,
        message: "Invalid Request: Only one initialization request is allowed",
      };
    }
  } else {
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return {
        status: 400,
        code: -32000,
        message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        })`,
      };
    }
  }
  return messages;
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
