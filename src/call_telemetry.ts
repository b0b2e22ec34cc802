import type { AccessLogEntry } from "./access_log.ts";
import { ToolError } from "./errors.ts";
import type { ToolContext } from "./tool_context.ts";
import { failSpan, type Tracer } from "./tracer.ts";

/**
 * What a host observes tool calls with: an access log, a tracer, or both. Neither costs
 * anything when absent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CallTelemetry, now, runToolCalls } from "@outpost/agent-tools";
 * const lines: string[] = [];
 * const telemetry: CallTelemetry = { accessLog: (entry) => lines.push(JSON.stringify(entry)) };
 * await runToolCalls([now], [{ id: "1", name: "now", input: {} }], {}, telemetry);
 * assert.match(lines[0], /^\{"time":"[^"]+","tenant":"default","tool":"now",/);
 * ```
 */
export interface CallTelemetry {
  /**
   * Receives one entry per tool call (the library logs nothing by itself; the bundled
   * deployments write each entry as a JSON line).
   */
  accessLog?: (entry: AccessLogEntry) => void;
  /** Traces each tool call and its outbound requests. */
  tracer?: Tracer;
  /** The tenant named in the access log (default `"default"`). */
  tenant?: string;
}

/** A span's kind: OpenTelemetry's `SpanKind.INTERNAL`. */
const INTERNAL = 0;

/**
 * Runs one call of `tool` (`run` executes it with the context it is given) under `telemetry`:
 * an access-log entry when it ends, and an `execute_tool` span (OpenTelemetry's GenAI
 * conventions) that the call's outbound requests nest under. Without telemetry it is `run(ctx)`.
 */
export function observeCall(
  telemetry: CallTelemetry | undefined,
  tool: string,
  ctx: ToolContext,
  run: (ctx: ToolContext) => Promise<string>,
): Promise<string> {
  if (!telemetry || (!telemetry.accessLog && !telemetry.tracer)) return run(ctx);
  const { accessLog, tracer, tenant = "default" } = telemetry;
  const started = performance.now();
  const read = { bytes: 0, cacheHit: false, host: undefined as string | undefined };
  const observed: ToolContext = {
    ...ctx,
    noteRead: (note) => {
      read.host ??= hostOf(note.url);
      read.bytes += note.bytes ?? 0;
      if (note.cacheHit) read.cacheHit = true;
    },
  };
  if (tracer) observed.tracer = tracer;
  const log = (outcome: AccessLogEntry["outcome"], errorCode?: AccessLogEntry["errorCode"]) => {
    if (!accessLog) return;
    // Built in the order of its fields, the optional ones only when set, as JSON shows them.
    const entry = {
      time: isoNow(),
      tenant,
      tool,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      outcome,
    } as AccessLogEntry;
    if (errorCode !== undefined) entry.errorCode = errorCode;
    entry.bytesRead = read.bytes;
    entry.cacheHit = read.cacheHit;
    if (read.host !== undefined) entry.host = read.host;
    if (ctx.sessionId !== undefined) entry.sessionId = ctx.sessionId;
    if (ctx.runId !== undefined) entry.runId = ctx.runId;
    if (ctx.toolCallId !== undefined) entry.toolCallId = ctx.toolCallId;
    accessLog(entry);
  };
  const attempt = async (span?: Parameters<typeof failSpan>[0]) => {
    try {
      const text = await run(observed);
      log("ok");
      return text;
    } catch (error) {
      const aborted = observed.signal?.aborted === true;
      const code = error instanceof ToolError ? error.code : "unexpected";
      log(aborted ? "aborted" : "error", aborted ? undefined : code);
      if (span) failSpan(span, error, aborted ? "aborted" : undefined);
      throw error;
    } finally {
      span?.end();
    }
  };
  if (!tracer) return attempt();
  // The GenAI conventions' execute_tool span; `function` is the kind of tool the app runs itself.
  return tracer.startActiveSpan(`execute_tool ${tool}`, {
    kind: INTERNAL,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "gen_ai.tool.type": "function",
      ...(ctx.toolCallId === undefined ? {} : { "gen_ai.tool.call.id": ctx.toolCallId }),
    },
  }, attempt);
}

/** The last millisecond logged, and its text: `toISOString` costs a microsecond a call. */
let lastMs = NaN;
let lastIso = "";

/** The time now as an ISO 8601 UTC text, made once a millisecond however many calls end in it. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) lastIso = new Date(lastMs = ms).toISOString();
  return lastIso;
}

/** The host and port of `url`, never its path or query; `undefined` when it is no URL. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}
