// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolResult,
  ClientCapabilities,
  JSONRPCMessage,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Elicit, ElicitationResult } from "../elicitation.ts";
import { MAX_TIMER_MS, systemClock } from "../clock.ts";
import { unknownTool } from "../run_tool_calls.ts";
import { ToolError } from "../errors.ts";
import { formatToolError, type ProgressUpdate, type Tool, type ToolContext } from "../tool.ts";
import { VERSION } from "../version.ts";
import {
  ErrorCode,
  isErrorResponse,
  isInitializeRequest,
  isNotification,
  isRequest,
  isResultResponse,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./json_rpc.ts";
import { MAX_CONTEXT_ID_LENGTH } from "./tool_context.ts";
import type { UnkeyedCalls } from "./unkeyed_calls.ts";

/**
 * The `params._meta` keys a `tools/call` carries its context in, per call: the model's
 * tool-call id (which makes the call durable: a retry re-attaches to its `ask_human` question),
 * and the session and run it belongs to.
 */
export const CONTEXT_META = {
  sessionId: "outpost/sessionId",
  runId: "outpost/runId",
  toolCallId: "outpost/toolCallId",
} as const;

/**
 * The result `_meta` key a tool's failure carries its data in, for the host (the model reads the
 * text): `{ code, status?, retryAfterMs? }` of the `ToolError`. MCP leaves `_meta` keys with a
 * prefix of one's own to the implementation.
 */
const ERROR_META = "outpost/error";

/** What a host can act on in a `ToolError`, without its words. */
function errorData(error: ToolError): { code: string; status?: number; retryAfterMs?: number } {
  const { code, status, retryAfterMs } = error;
  return {
    code,
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** How an MCP server built by {@linkcode mcpServer} serves its tools. */
export interface McpServerOptions {
  /** How often a call that asked for progress gets a `notifications/progress`, in ms. */
  progressIntervalMs: number;
  /** Receives failures that became a generic tool error. */
  onError: (error: unknown) => void;
  /**
   * Context ids for calls that carry none in `_meta` (the HTTP headers of a single-call
   * request); `undefined` for none.
   */
  fallbackContext?: Pick<ToolContext, "sessionId" | "runId" | "toolCallId">;
  /**
   * Whether a call with a tool-call id keeps running when the connection closes (HTTP: a dropped
   * connection is not a cancel, and the retry re-attaches). An explicit `notifications/cancelled`
   * always aborts the call.
   */
  durableOnClose: boolean;
  /** Tracks the calls without a tool-call id, so that a stopping service can end them. */
  unkeyed?: UnkeyedCalls;
}

/** A JSON object, as messages carry them. */
type Json = Record<string, unknown>;

/** What a request handler gets besides the request's parameters. */
interface RequestExtra {
  requestId: RequestId;
  /** Aborts when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /** Sends a notification related to this request. */
  sendNotification(notification: { method: string; params?: Json }): Promise<void>;
  /** Sends a request to the client, related to this one, and resolves with its result. */
  sendRequest(
    request: { method: string; params?: Json },
    options: { signal?: AbortSignal; timeout: number },
  ): Promise<Json>;
}

/**
 * An MCP server for a set of tools, on any transport (Streamable HTTP, stdio). It speaks the
 * few methods a tool server needs (`initialize`, `ping`, `tools/list`, `tools/call`, and
 * `elicitation/create` towards the client) itself instead of through the SDK's `Protocol`,
 * whose zod schemas of the whole protocol are built when it is imported: most of a Worker's
 * start-up time, and about 9 KB of its gzipped bundle. It answers as `Protocol` does (same
 * codes and messages), except that malformed parameters are `-32602`, not `-32603`.
 */
export class McpToolServer {
  /** Called once the transport has closed. */
  onclose?: () => void;
  /** Called with failures that reach no request: a response to nothing, a failed send. */
  onerror?: (error: Error) => void;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #options: McpServerOptions;
  #transport?: Transport;
  #clientCapabilities?: ClientCapabilities;
  /** Requests the client cancelled explicitly, as opposed to a closed connection. */
  readonly #cancelled = new Set<RequestId>();
  /** The requests being served, by id. */
  readonly #running = new Map<RequestId, AbortController>();
  /** The requests sent to the client that await a response, by id. */
  readonly #waiting = new Map<number, (response: JSONRPCMessage | Error) => void>();
  #nextId = 0;

  /** Serves `tools`. */
  constructor(tools: ReadonlyMap<string, Tool>, options: McpServerOptions) {
    this.#tools = tools;
    this.#options = options;
  }

  /** Takes over `transport` (its callbacks still run first) and starts it. */
  async connect(transport: Transport): Promise<void> {
    if (this.#transport) throw new Error("Already connected to a transport.");
    this.#transport = transport;
    const { onclose, onerror, onmessage } = transport;
    transport.onclose = () => {
      onclose?.();
      this.#onclose();
    };
    transport.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      this.#receive(message);
    };
    await transport.start();
  }

  /** Closes the transport. */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  #receive(message: JSONRPCMessage): void {
    if (isResultResponse(message) || isErrorResponse(message)) {
      const answer = this.#waiting.get(Number(message.id));
      if (answer) answer(message);
      else this.#error(`Received a response for an unknown message ID: ${JSON.stringify(message)}`);
    } else if (isRequest(message)) {
      this.#serve(message);
    } else if (isNotification(message)) {
      const params = message.params ?? {};
      if (message.method === "notifications/cancelled") {
        const id = params.requestId;
        if (typeof id !== "string" && typeof id !== "number") return;
        this.#cancelled.add(id);
        this.#running.get(id)?.abort(params.reason);
      } else if (message.method === "notifications/progress") {
        // This server asks for no progress.
        this.#error(
          `Received a progress notification for an unknown token: ${JSON.stringify(message)}`,
        );
      }
    } else {
      this.#error(`Unknown message type: ${JSON.stringify(message)}`);
    }
  }

  /** The handler of a request method, or `undefined` for a method this server does not serve. */
  #handler(method: string): ((params: Json, extra: RequestExtra) => unknown) | undefined {
    switch (method) {
      case "initialize":
        return (params) => this.#initialize(params);
      case "ping":
        return () => ({});
      case "tools/list":
        return (params) => {
          if (params.cursor !== undefined && typeof params.cursor !== "string") {
            throw new McpError(ErrorCode.InvalidParams, "params.cursor must be a string.");
          }
          return { tools: [...this.#tools.values()].map(listing) };
        };
      case "tools/call":
        return (params, extra) => {
          const args = params.arguments;
          if (typeof params.name !== "string") {
            throw new McpError(ErrorCode.InvalidParams, "params.name must be a string.");
          }
          if (
            args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))
          ) {
            throw new McpError(ErrorCode.InvalidParams, "params.arguments must be an object.");
          }
          return this.#call(params as unknown as CallParams, extra);
        };
    }
  }

  #initialize(params: Json) {
    if (!isInitializeRequest({ method: "initialize", params })) {
      throw new McpError(
        ErrorCode.InvalidParams,
        "initialize needs params.protocolVersion, params.capabilities and params.clientInfo.",
      );
    }
    this.#clientCapabilities = params.capabilities as ClientCapabilities;
    const requested = params.protocolVersion as string;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: { tools: {} },
      serverInfo: { name: "outpost", version: VERSION },
    };
  }

  /** Runs a request's handler and sends its response, unless the request was cancelled. */
  #serve(request: { id: RequestId; method: string; params?: Json }): void {
    const transport = this.#transport;
    const { id } = request;
    const handler = this.#handler(request.method);
    if (!handler) {
      const error = { code: ErrorCode.MethodNotFound, message: "Method not found" };
      transport?.send({ jsonrpc: "2.0", id, error })
        .catch((error) => this.#error(`Failed to send an error response: ${error}`));
      return;
    }
    const controller = new AbortController();
    this.#running.set(id, controller);
    const extra: RequestExtra = {
      requestId: id,
      signal: controller.signal,
      sendNotification: async (notification) => {
        if (controller.signal.aborted) return;
        if (!this.#transport) throw new Error("Not connected");
        await this.#transport.send({ ...notification, jsonrpc: "2.0" } as JSONRPCMessage, {
          relatedRequestId: id,
        });
      },
      sendRequest: (outgoing, options) => {
        if (controller.signal.aborted) {
          return Promise.reject(new McpError(ErrorCode.ConnectionClosed, "Request was cancelled"));
        }
        return this.#request(outgoing, id, options);
      },
    };
    Promise.resolve()
      .then(() => handler(request.params ?? {}, extra))
      .then(
        async (result) => {
          if (controller.signal.aborted) return;
          await transport?.send({ result, jsonrpc: "2.0", id } as JSONRPCMessage);
        },
        async (error) => {
          if (controller.signal.aborted) return;
          const { code, message, data } = error ?? {};
          await transport?.send({
            jsonrpc: "2.0",
            id,
            error: {
              code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
              message: message ?? "Internal error",
              ...(data !== undefined ? { data } : {}),
            },
          });
        },
      )
      .catch((error) => this.#error(`Failed to send response: ${error}`))
      .finally(() => {
        if (this.#running.get(id) === controller) this.#running.delete(id);
      });
  }

  /** Sends a request to the client and resolves with its result. */
  #request(
    request: { method: string; params?: Json },
    relatedRequestId: RequestId,
    { signal, timeout }: { signal?: AbortSignal; timeout: number },
  ): Promise<Json> {
    return new Promise((resolve, reject) => {
      const transport = this.#transport;
      if (!transport) return reject(new Error("Not connected"));
      if (signal?.aborted) return reject(signal.reason);
      const id = this.#nextId++;
      const settle = () => {
        this.#waiting.delete(id);
        cancelTimer();
        signal?.removeEventListener("abort", onAbort);
      };
      const cancel = (reason: unknown) => {
        settle();
        transport.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(reason) },
        }, { relatedRequestId }).catch((error) =>
          this.#error(`Failed to send cancellation: ${error}`)
        );
        reject(
          reason instanceof McpError
            ? reason
            : new McpError(ErrorCode.RequestTimeout, String(reason)),
        );
      };
      const onAbort = () => cancel(signal?.reason);
      this.#waiting.set(id, (response) => {
        settle();
        if (response instanceof Error) reject(response);
        else if (isErrorResponse(response)) {
          const { code, message, data } = response.error;
          reject(new McpError(code, message, data));
        } else resolve((response as { result: Json }).result);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      const cancelTimer = systemClock.setTimer(
        () => cancel(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout })),
        timeout,
      );
      transport.send({ ...request, jsonrpc: "2.0", id } as JSONRPCMessage, { relatedRequestId })
        .catch((error) => {
          settle();
          reject(error);
        });
    });
  }

  /** The transport closed: every call aborts, every request to the client fails. */
  #onclose(): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const controller of this.#running.values()) controller.abort();
    this.#running.clear();
    this.#transport = undefined;
    this.onclose?.();
    const error = new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const answer of waiting) answer(error);
  }

  #error(message: string): void {
    this.onerror?.(new Error(message));
  }

  async #call(params: CallParams, extra: RequestExtra): Promise<CallToolResult> {
    const tools = this.#tools;
    const options = this.#options;
    const found = tools.get(params.name);
    if (!found) {
      const error = unknownTool(params.name, tools.keys());
      throw new McpError(ErrorCode.InvalidParams, `${error.message} ${error.hint}`);
    }
    const ids = metaContext(params._meta) ?? options.fallbackContext ?? {};
    const signal = ids.toolCallId !== undefined && options.durableOnClose
      ? this.#explicitCancel(extra)
      : extra.signal;
    const progress = new ProgressReporter(extra, params._meta?.progressToken);
    const ctx: ToolContext = {
      ...ids,
      signal,
      reportProgress: (update) => progress.update(update),
      ...(formElicitation(this.#clientCapabilities) ? { elicit: this.#elicit(extra) } : {}),
    };
    const ticker = progress.enabled
      ? setInterval(() => progress.send(), options.progressIntervalMs)
      : undefined;
    const execute = (signal: AbortSignal) =>
      found.execute(params.arguments ?? {}, { ...ctx, signal });
    const { unkeyed } = options;
    try {
      const text = unkeyed && ids.toolCallId === undefined
        ? await unkeyed.run(signal, execute)
        : await execute(signal);
      return { content: [{ type: "text", text }] };
    } catch (error) {
      if (signal.aborted || unkeyed?.stopping) throw error;
      if (!(error instanceof ToolError)) options.onError(error);
      if (!(error instanceof ToolError)) {
        return {
          content: [{ type: "text", text: "Error: the tool failed unexpectedly." }],
          isError: true,
        };
      }
      return {
        content: [{ type: "text", text: formatToolError(error) }],
        isError: true,
        _meta: { [ERROR_META]: errorData(error) },
      };
    } finally {
      clearInterval(ticker);
      this.#cancelled.delete(extra.requestId);
    }
  }

  /** A signal that aborts when the client cancels this request, not when the connection ends. */
  #explicitCancel(extra: RequestExtra): AbortSignal {
    const controller = new AbortController();
    const onAbort = () => {
      if (this.#cancelled.has(extra.requestId)) controller.abort(extra.signal.reason);
    };
    if (extra.signal.aborted) onAbort();
    else extra.signal.addEventListener("abort", onAbort, { once: true });
    return controller.signal;
  }

  /** Asks the client's user through `elicitation/create`, tied to the call being served. */
  #elicit(extra: RequestExtra): Elicit {
    return async (request, { signal } = {}) => {
      const result = await extra.sendRequest(
        { method: "elicitation/create", params: { mode: "form", ...request } },
        // A person may take long; the asking tool's own timeout and signal bound the wait.
        { ...(signal ? { signal } : {}), timeout: MAX_TIMER_MS },
      );
      return elicitationResult(result);
    };
  }
}

/** A `tools/call`'s parameters, once checked. */
interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A tool as `tools/list` shows it. */
function listing(t: Tool) {
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.inputJsonSchema,
    ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
  };
}

/**
 * The client's answer to `elicitation/create`, checked as the SDK's `ElicitResultSchema` does: an
 * action, and content (for an accept) whose values are strings, numbers, booleans or string lists.
 */
function elicitationResult(result: Json): ElicitationResult {
  const { action } = result;
  const content = result.content ?? undefined;
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid elicitation action ${JSON.stringify(action)}.`,
    );
  }
  const valid = (value: unknown) =>
    typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"));
  if (
    content !== undefined &&
    (typeof content !== "object" || Array.isArray(content) ||
      !Object.values(content as Json).every(valid))
  ) {
    throw new McpError(ErrorCode.InvalidParams, "Invalid elicitation content.");
  }
  return (action === "accept"
    ? { action, content: content ?? {} }
    : { action }) as ElicitationResult;
}

/** Whether the client takes form elicitations (an empty `elicitation` object means forms). */
function formElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return "form" in elicitation || !("url" in elicitation);
}

/** The context ids a call carries in `_meta`, or `undefined` when it carries none. */
function metaContext(meta: Record<string, unknown> | undefined): ToolContext | undefined {
  if (!meta) return undefined;
  let ctx: ToolContext | undefined;
  for (const [field, key] of Object.entries(CONTEXT_META)) {
    const value = meta[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "" || value.length > MAX_CONTEXT_ID_LENGTH) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `_meta["${key}"] must be a string of 1 to ${MAX_CONTEXT_ID_LENGTH} characters.`,
      );
    }
    (ctx ??= {})[field as keyof typeof CONTEXT_META] = value;
  }
  return ctx;
}

/**
 * Sends a call's progress notifications: what the tool last reported and how long the call has
 * run, e.g. "Waiting for an operator, 2 min". Each also keeps the client's request timer from
 * running out (`resetTimeoutOnProgress`) and proxies from closing an idle stream.
 */
class ProgressReporter {
  readonly #extra: RequestExtra;
  readonly #token: unknown;
  readonly #started = Date.now();
  #update: ProgressUpdate = { message: "Working" };
  #sent = 0;

  constructor(extra: RequestExtra, token: unknown) {
    this.#extra = extra;
    this.#token = token;
  }

  get enabled(): boolean {
    return typeof this.#token === "string" || typeof this.#token === "number";
  }

  update(update: ProgressUpdate): void {
    this.#update = update;
  }

  send(): void {
    const { message, progress, total } = this.#update;
    // Progress must grow with every notification; a tool's own count is used while it does.
    const counted = progress !== undefined && progress > this.#sent;
    this.#sent = counted ? progress : this.#sent + 1;
    this.#extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken: this.#token as string | number,
        progress: this.#sent,
        ...(counted && total !== undefined ? { total } : {}),
        message: `${message}, ${elapsed(Date.now() - this.#started)}`,
      },
    }).catch(() => {/* The client is gone; the call itself decides what happens. */});
  }
}

/** "12 s", "2 min", "1 h 5 min". */
function elapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
