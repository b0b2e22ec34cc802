import { defined } from "../defined.ts";
import type { ToolError } from "../errors.ts";
import type { ToolContext } from "../tool_context.ts";
import { ErrorCode, McpError } from "./json_rpc.ts";
import { MAX_CONTEXT_ID_LENGTH } from "./tool_context.ts";

// What a `tools/call` carries in `_meta` besides its arguments, and what its result carries back.

/**
 * The `params._meta` keys a `tools/call` carries its context in, per call: the model's
 * tool-call id (which makes the call durable: a retry re-attaches to its `ask_human` question),
 * and the session and run it belongs to.
 */
const CONTEXT_META = {
  sessionId: "outpost/sessionId",
  runId: "outpost/runId",
  toolCallId: "outpost/toolCallId",
} as const;

/**
 * The result `_meta` key a tool's failure carries its data in, for the host (the model reads the
 * text): `{ code, status?, retryAfterMs? }` of the `ToolError`. MCP leaves `_meta` keys with a
 * prefix of one's own to the implementation.
 */
export const ERROR_META = "outpost/error";

/** What a host can act on in a `ToolError`, without its words. */
export function errorData(
  error: ToolError,
): { code: string; status?: number; retryAfterMs?: number } {
  const { code, status, retryAfterMs } = error;
  return defined({ code, status, retryAfterMs });
}

/** The context ids a call carries in `_meta`, or `undefined` when it carries none. */
export function metaContext(meta: Record<string, unknown> | undefined): ToolContext | undefined {
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
