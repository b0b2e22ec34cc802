import type { ToolContext } from "../tool_context.ts";

/** The longest session, run or tool-call id accepted. */
export const MAX_CONTEXT_ID_LENGTH = 256;

/** Request headers that tie a call to a session, a run and the model's tool call. */
export const CONTEXT_HEADERS = {
  sessionId: "outpost-session-id",
  runId: "outpost-run-id",
  toolCallId: "outpost-tool-call-id",
} as const;

// Listed once: each request reads them.
const HEADER_ENTRIES = Object.entries(CONTEXT_HEADERS);

/**
 * The `ToolContext` of a call made over HTTP (the JSON route or MCP), or the reason its headers
 * are refused. `signal` is the connection's: it aborts when the caller goes away. A call with a
 * tool-call id does not get it: such a call is durable (a retry with the same id re-attaches to
 * it, e.g. to a pending `ask_human` question), so a dropped connection — a proxy's idle timeout,
 * a client's own retry — must not withdraw it. Without an id nobody could re-attach, so the drop
 * aborts the call.
 */
export function toolContext(headers: Headers, signal: AbortSignal): ToolContext | string {
  const ctx = contextIds(headers);
  if (typeof ctx === "string") return ctx;
  if (ctx.toolCallId === undefined) ctx.signal = signal;
  return ctx;
}

/** The ids in the `Outpost-*-Id` headers (none gives `{}`), or why they are refused. */
export function contextIds(headers: Headers): ToolContext | string {
  const ctx: ToolContext = {};
  for (const [key, header] of HEADER_ENTRIES) {
    const value = headers.get(header);
    if (value === null) continue;
    if (value === "" || value.length > MAX_CONTEXT_ID_LENGTH) {
      return `The ${header} header must have 1 to ${MAX_CONTEXT_ID_LENGTH} characters.`;
    }
    ctx[key as keyof typeof CONTEXT_HEADERS] = value;
  }
  return ctx;
}
