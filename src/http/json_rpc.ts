/**
 * The JSON-RPC 2.0 messages MCP travels in, checked by hand. The MCP SDK checks them with zod
 * schemas of the whole protocol that it builds when it is imported, most of a Worker's start-up
 * time and about 9 KB of its gzipped bundle; the server needs only these few shapes. The checks
 * accept and refuse what the SDK's `JSONRPCMessageSchema` does.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The protocol version answered to a client that asks for one this server does not know. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
/** The protocol versions this server speaks, newest first (as the SDK it was tested with). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** An error that travels as a JSON-RPC error: its `code`, and `data` when given. */
export class McpError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Detail for the other side. */
  readonly data?: unknown;

  /** An error with `code`; the message reads "MCP error <code>: <message>", as the SDK's. */
  constructor(code: number, message: string, data?: unknown) {
    super(`MCP error ${code}: ${message}`);
    this.name = "McpError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is RequestId =>
  typeof value === "string" || Number.isSafeInteger(value);
/** Whether `value` has no keys but `keys` (checked for every message: no array is made). */
function hasOnly(value: Json, keys: readonly string[]): boolean {
  for (const key in value) if (!keys.includes(key)) return false;
  return true;
}
const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"];
const NOTIFICATION_KEYS = ["jsonrpc", "method", "params"];

/** Whether `meta` is a valid `_meta`: an object whose progress token, if any, is an id. */
function validMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  if (meta.progressToken !== undefined && !isId(meta.progressToken)) return false;
  const task = meta["io.modelcontextprotocol/related-task"];
  return task === undefined || (isObject(task) && typeof task.taskId === "string");
}

/** Whether `params` is absent or an object with a valid `_meta`. */
function validParams(params: unknown): boolean {
  return params === undefined || (isObject(params) && validMeta(params._meta));
}

/** Whether `value` is a request: an id and a method. */
export function isRequest(value: unknown): value is JSONRPCMessage & Json & {
  id: RequestId;
  method: string;
  params?: Json;
} {
  return isObject(value) && value.jsonrpc === "2.0" && isId(value.id) &&
    typeof value.method === "string" && validParams(value.params) &&
    hasOnly(value, REQUEST_KEYS);
}

/** Whether `value` is a notification: a method and no id. */
export function isNotification(value: unknown): value is JSONRPCMessage & Json & {
  method: string;
  params?: Json;
} {
  return isObject(value) && value.jsonrpc === "2.0" && typeof value.method === "string" &&
    validParams(value.params) && hasOnly(value, NOTIFICATION_KEYS);
}

/** Whether `value` is a successful response. */
export function isResultResponse(value: unknown): value is JSONRPCMessage & Json & {
  id: RequestId;
  result: Json;
} {
  return isObject(value) && value.jsonrpc === "2.0" && isId(value.id) && isObject(value.result) &&
    validMeta(value.result._meta) && hasOnly(value, ["jsonrpc", "id", "result"]);
}

/** Whether `value` is an error response. */
export function isErrorResponse(value: unknown): value is JSONRPCMessage & Json & {
  id?: RequestId;
  error: { code: number; message: string; data?: unknown };
} {
  if (!isObject(value) || value.jsonrpc !== "2.0") return false;
  if (value.id !== undefined && !isId(value.id)) return false;
  const error = value.error;
  return isObject(error) && Number.isSafeInteger(error.code) && typeof error.message === "string" &&
    hasOnly(value, ["jsonrpc", "id", "error"]);
}

/** Whether `value` is any JSON-RPC message. */
export function isMessage(value: unknown): value is JSONRPCMessage {
  return isRequest(value) || isNotification(value) || isResultResponse(value) ||
    isErrorResponse(value);
}

/** Whether `message` is an `initialize` request with the parameters it needs. */
export function isInitializeRequest(message: unknown): boolean {
  if (!isObject(message) || message.method !== "initialize") return false;
  const params = message.params;
  return isObject(params) && validMeta(params._meta) &&
    typeof params.protocolVersion === "string" && isObject(params.capabilities) &&
    isObject(params.clientInfo) && typeof params.clientInfo.name === "string" &&
    typeof params.clientInfo.version === "string";
}
