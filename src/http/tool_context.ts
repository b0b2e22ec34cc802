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
