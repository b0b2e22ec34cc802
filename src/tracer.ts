import { ToolError } from "./errors.ts";

/**
 * The part of an OpenTelemetry `Span` (`@opentelemetry/api`) that Outpost uses: a span of the
 * API, of an SDK or of Deno's built-in OpenTelemetry fits as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TraceSpan } from "@outpost/agent-tools";
 * const attributes: Record<string, unknown> = {};
 * const span: TraceSpan = {
 *   setAttribute(key, value) { attributes[key] = value; return this; },
 *   setStatus() { return this; },
 *   recordException() {},
 *   end() {},
 * };
 * span.setAttribute("gen_ai.tool.name", "now");
 * assert.deepEqual(attributes, { "gen_ai.tool.name": "now" });
 * ```
 */
export interface TraceSpan {
  /** Sets one attribute. */
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** Sets the status: `code` 2 is an error (OpenTelemetry's `SpanStatusCode.ERROR`). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Records an exception as an event of the span. */
  recordException(exception: Error | string): void;
  /** Ends the span. */
  end(): void;
}

/**
 * The part of an OpenTelemetry `Tracer` that Outpost uses, so that no OpenTelemetry package is
 * bundled: pass `trace.getTracer("outpost")` of `@opentelemetry/api` (or Deno's
 * `Deno.telemetry.tracerProvider.getTracer(…)`). A tool call runs inside its span
 * (`startActiveSpan`), so the spans of its outbound requests (`startSpan`) are its children
 * wherever the host's context manager carries the active span across `await`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls, type TraceSpan, type Tracer } from "@outpost/agent-tools";
 * const names: string[] = [];
 * const span: TraceSpan = { setAttribute: () => span, setStatus: () => span, recordException() {}, end() {} };
 * const tracer: Tracer = {
 *   startSpan: (name) => (names.push(name), span),
 *   startActiveSpan: (name, _options, fn) => (names.push(name), fn(span) as ReturnType<typeof fn>),
 * };
 * await runToolCalls([now], [{ id: "call_1", name: "now", input: {} }], {}, { tracer });
 * assert.deepEqual(names, ["execute_tool now"]);
 * ```
 */
export interface Tracer {
  /**
   * Starts a span under the active one, without making it active. `kind` is OpenTelemetry's
   * `SpanKind` (0 internal, 2 client); the attributes are there for samplers.
   */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, string | number | boolean> },
  ): TraceSpan;
  /** Starts a span and runs `fn` with it as the active span. */
  startActiveSpan<F extends (span: TraceSpan) => unknown>(
    name: string,
    options: { kind?: number; attributes?: Record<string, string | number | boolean> },
    fn: F,
  ): ReturnType<F>;
}

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/**
 * Marks `span` failed with `error`: `error.type` (by default a `ToolError`'s code, else the
 * error's name), the error status, and the exception.
 */
export function failSpan(span: TraceSpan, error: unknown, type = errorType(error)): void {
  span.setAttribute("error.type", type);
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: STATUS_ERROR, message });
  span.recordException(error instanceof Error ? error : message);
}

/** A low-cardinality `error.type`: a `ToolError`'s code, else the error's name. */
function errorType(error: unknown): string {
  if (error instanceof ToolError) return error.code;
  return error instanceof Error && error.name ? error.name : "_OTHER";
}
