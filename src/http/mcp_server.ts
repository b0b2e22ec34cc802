// The SDK's wildcard exports give `*.js` imports no types; these point them at the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { defined } from "../defined.ts";
import { type CallTelemetry, observeCall } from "../call_telemetry.ts";
import type { Elicit } from "../elicitation.ts";
import { MAX_TIMER_MS } from "../clock.ts";
import { unknownTool } from "../run_tool_calls.ts";
import { ToolError } from "../errors.ts";
import { formatToolError } from "../format_tool_error.ts";
import type { Tool } from "../tool.ts";
import type { ToolContext } from "../tool_context.ts";
import { VERSION } from "../version.ts";
import {
  ErrorCode,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./json_rpc.ts";
import { ERROR_META, errorData, metaContext } from "./mcp_call_meta.ts";
import { elicitationResult, formElicitation } from "./mcp_elicitation.ts";
import { LOG_LEVELS, type LogLevel, logNotification } from "./mcp_logging.ts";
import { ProgressReporter } from "./mcp_progress.ts";
import { FETCH_PROMPT, fetchPrompt, PROMPT_TOOL } from "./mcp_prompts.ts";
import { type Json, McpSession, type RequestExtra, type RequestHandler } from "./mcp_session.ts";
import type { UnkeyedCalls } from "./unkeyed_calls.ts";
import type { Admit } from "./call_limiter.ts";

/** How an MCP server built by {@linkcode mcpServer} serves its tools. */
export interface McpServerOptions {
  /** How often a call that asked for progress gets a `notifications/progress`, in ms. */
  progressIntervalMs: number;
  /**
   * Receives failures that became a generic tool error, and those that reach no request (the
   * session's `onerror`: a response that could not be sent, one to nothing).
   */
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
  /** The access log and tracer of tool calls, if any. */
  telemetry?: CallTelemetry;
  /** Admits each call within the caller's limits, if it has any. */
  admit?: Admit;
}

/**
 * An MCP server for a set of tools, on any transport (Streamable HTTP, stdio). It speaks the
 * few methods a tool server needs (`initialize`, `ping`, `tools/list`, `tools/call`, and
 * `elicitation/create` towards the client) itself instead of through the SDK's `Protocol`,
 * whose zod schemas of the whole protocol are built when it is imported: most of a Worker's
 * start-up time, and about 9 KB of its gzipped bundle. It answers as `Protocol` does (same
 * codes and messages), except that malformed parameters are `-32602`, not `-32603`.
 */
export class McpToolServer extends McpSession {
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #options: McpServerOptions;
  #clientCapabilities?: ClientCapabilities;
  /** The least severe level of `notifications/message` the client gets (`logging/setLevel`). */
  #logLevel: LogLevel = "warning";

  /** Serves `tools`. */
  constructor(tools: ReadonlyMap<string, Tool>, options: McpServerOptions) {
    super();
    this.#tools = tools;
    this.#options = options;
    this.onerror = options.onError;
  }

  /** The methods of a tool server. */
  protected override handler(method: string): RequestHandler | undefined {
    switch (method) {
      case "initialize":
        return (params) => this.#initialize(params);
      case "ping":
        return () => ({});
      case "logging/setLevel":
        return (params) => {
          if (!LOG_LEVELS.includes(params.level as LogLevel)) {
            throw new McpError(
              ErrorCode.InvalidParams,
              `params.level must be one of ${LOG_LEVELS.join(", ")}.`,
            );
          }
          this.#logLevel = params.level as LogLevel;
          return {};
        };
      case "prompts/list":
        return () => ({ prompts: this.#tools.has(PROMPT_TOOL) ? [FETCH_PROMPT] : [] });
      case "prompts/get":
        return (params, extra) => {
          const fetcher = this.#tools.get(PROMPT_TOOL);
          if (params.name !== FETCH_PROMPT.name || !fetcher) {
            throw new McpError(
              ErrorCode.InvalidParams,
              `Unknown prompt ${JSON.stringify(params.name)}.`,
            );
          }
          return fetchPrompt(fetcher, params.arguments, extra.signal).catch((error) => {
            if (error instanceof McpError || extra.signal.aborted) throw error;
            this.#options.onError(error);
            throw new McpError(ErrorCode.InternalError, "The fetch failed unexpectedly.");
          });
        };
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
      capabilities: {
        tools: {},
        logging: {},
        ...(this.#tools.has(PROMPT_TOOL) ? { prompts: {} } : {}),
      },
      serverInfo: { name: "outpost", version: VERSION },
    };
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
    // Most calls ask for no progress: they make no reporter (nor read the clock for one).
    const token = params._meta?.progressToken;
    const progress = typeof token === "string" || typeof token === "number"
      ? new ProgressReporter(extra, token)
      : undefined;
    const log = (level: LogLevel, message: string) => {
      const notification = logNotification(this.#logLevel, level, found.name, message);
      if (notification) {
        extra.sendNotification(notification).catch(() => {/* The client is gone. */});
      }
    };
    let structured: Record<string, unknown> | undefined;
    const { unkeyed, admit = (run) => run() } = options;
    // A call without a tool-call id is tracked for a stopping service to end: its own signal
    // follows the request's, and the grace period's end aborts it too. The request's own
    // controller serves, where the request has one the call may abort (a lone POST's).
    const tracked = unkeyed && ids.toolCallId === undefined
      ? extra.controller ?? new AbortController()
      : undefined;
    const follows = tracked !== undefined && tracked !== extra.controller;
    const follow = () => tracked!.abort(signal.reason);
    const ctx: ToolContext = {
      ...ids,
      signal: tracked?.signal ?? signal,
      reportProgress: (update) => {
        progress?.update(update);
        // A counted update (bytes downloaded) comes often: only a change of state is news.
        log(update.progress === undefined ? "info" : "debug", update.message);
      },
      warn: (message) => log("warning", message),
      reportStructured: (value) => {
        // Checked here, where a value JSON cannot carry (a BigInt) is the tool's failure: when
        // the response is sent, it would fail outside any request, unanswered or uncaught.
        JSON.stringify(value);
        structured = value;
      },
      ...(formElicitation(this.#clientCapabilities) ? { elicit: this.#elicit(extra) } : {}),
    };
    const ticker = progress && setInterval(() => progress.send(), options.progressIntervalMs);
    const input = params.arguments ?? {};
    if (follows) {
      if (signal.aborted) follow();
      else signal.addEventListener("abort", follow);
    }
    const call = tracked && unkeyed!.begin(tracked);
    try {
      const text = await observeCall(
        options.telemetry,
        found.name,
        ctx,
        (ctx) => admit(() => found.execute(input, ctx)),
      );
      return {
        content: [{ type: "text", text }],
        ...(structured === undefined ? {} : { structuredContent: structured }),
      };
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
      this.forgetCancel(extra.requestId);
      if (follows) signal.removeEventListener("abort", follow);
      if (call) unkeyed!.end(call);
    }
  }

  /** A signal that aborts when the client cancels this request, not when the connection ends. */
  #explicitCancel(extra: RequestExtra): AbortSignal {
    const controller = new AbortController();
    const onAbort = () => {
      if (this.cancelledByClient(extra.requestId)) controller.abort(extra.signal.reason);
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
  return defined({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputJsonSchema,
    outputSchema: t.outputSchema,
    annotations: t.annotations && { ...t.annotations },
  });
}
