// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  ElicitResultSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { Elicit, ElicitationResult } from "../elicitation.ts";
import { MAX_TIMER_MS } from "../retry.ts";
import { unknownTool } from "../run_tool_calls.ts";
import {
  formatToolError,
  type ProgressUpdate,
  type Tool,
  type ToolContext,
  ToolError,
} from "../tool.ts";
import { VERSION } from "../version.ts";
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

/**
 * An MCP server for a set of tools, on any transport (Streamable HTTP, stdio). It is built on
 * the SDK's `Protocol` rather than its `Server`, which would pull a JSON Schema compiler (ajv,
 * about 135 KB minified) into every Worker bundle only to check elicitation answers, which
 * `ask_human` checks itself.
 */
export class McpToolServer extends Protocol<ServerRequest, ServerNotification, ServerResult> {
  #clientCapabilities?: ClientCapabilities;
  /** Requests the client cancelled explicitly, as opposed to a closed connection. */
  readonly #cancelled = new Set<string | number>();

  /** Serves `tools`. */
  constructor(tools: ReadonlyMap<string, Tool>, options: McpServerOptions) {
    super();
    this.setRequestHandler(InitializeRequestSchema, (request) => {
      this.#clientCapabilities = request.params.capabilities;
      const requested = request.params.protocolVersion;
      return {
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
          ? requested
          : LATEST_PROTOCOL_VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: "outpost", version: VERSION },
      };
    });
    this.setNotificationHandler(InitializedNotificationSchema, () => {});
    this.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputJsonSchema,
        ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
      })),
    }));
    this.setRequestHandler(
      CallToolRequestSchema,
      (call, extra) => this.#call(tools, options, call.params, extra),
    );
  }

  /** Notes explicit cancellations before the SDK aborts the request's signal. */
  override async connect(transport: Transport): Promise<void> {
    const previous = transport.onmessage;
    transport.onmessage = (message, extra) => {
      previous?.(message, extra);
      const m = message as { method?: string; params?: { requestId?: string | number } };
      if (m.method === "notifications/cancelled" && m.params?.requestId !== undefined) {
        this.#cancelled.add(m.params.requestId);
      }
    };
    await super.connect(transport);
  }

  async #call(
    tools: ReadonlyMap<string, Tool>,
    options: McpServerOptions,
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> {
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
      const text = error instanceof ToolError
        ? formatToolError(error)
        : "Error: the tool failed unexpectedly.";
      return { content: [{ type: "text", text }], isError: true };
    } finally {
      clearInterval(ticker);
      this.#cancelled.delete(extra.requestId);
    }
  }

  /** A signal that aborts when the client cancels this request, not when the connection ends. */
  #explicitCancel(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): AbortSignal {
    const controller = new AbortController();
    const onAbort = () => {
      if (this.#cancelled.has(extra.requestId)) controller.abort(extra.signal.reason);
    };
    if (extra.signal.aborted) onAbort();
    else extra.signal.addEventListener("abort", onAbort, { once: true });
    return controller.signal;
  }

  /** Asks the client's user through `elicitation/create`, tied to the call being served. */
  #elicit(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Elicit {
    return async (request, { signal } = {}) => {
      const result = await extra.sendRequest(
        { method: "elicitation/create", params: { mode: "form", ...request } },
        ElicitResultSchema,
        // A person may take long; the asking tool's own timeout and signal bound the wait.
        { ...(signal ? { signal } : {}), timeout: MAX_TIMER_MS },
      );
      return (result.action === "accept"
        ? { action: "accept", content: result.content ?? {} }
        : { action: result.action }) as ElicitationResult;
    };
  }

  protected assertCapabilityForMethod(method: string): void {
    if (method === "elicitation/create" && !formElicitation(this.#clientCapabilities)) {
      throw new Error("The client does not support form elicitation.");
    }
  }

  protected assertNotificationCapability(): void {}

  protected assertRequestHandlerCapability(): void {}

  protected assertTaskCapability(): void {}

  protected assertTaskHandlerCapability(): void {}
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
  readonly #extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  readonly #token: unknown;
  readonly #started = Date.now();
  #update: ProgressUpdate = { message: "Working" };
  #sent = 0;

  constructor(extra: RequestHandlerExtra<ServerRequest, ServerNotification>, token: unknown) {
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
