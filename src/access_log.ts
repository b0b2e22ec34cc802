import type { ToolErrorCode } from "./errors.ts";

/**
 * One line of the access log: what a tool call did, for an operator. It holds the host a call
 * read from but never a path or query (they can carry tokens and personal data), nor the input
 * or the answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, runToolCalls, type AccessLogEntry } from "@outpost/agent-tools";
 * const lines: AccessLogEntry[] = [];
 * await runToolCalls([now], [{ id: "call_1", name: "now", input: {} }], {}, {
 *   accessLog: (entry) => lines.push(entry),
 * });
 * assert.equal(lines[0].tool, "now");
 * assert.equal(lines[0].outcome, "ok");
 * assert.equal(lines[0].tenant, "default");
 * ```
 */
export interface AccessLogEntry {
  /** When the call ended, as an ISO 8601 UTC time. */
  time: string;
  /** The tenant the call ran for (`"default"` for a single-tenant deployment). */
  tenant: string;
  /** The tool's model-facing name. */
  tool: string;
  /** How long the call took, in milliseconds. */
  durationMs: number;
  /** `ok`, `error` (the call failed) or `aborted` (the caller withdrew it). */
  outcome: "ok" | "error" | "aborted";
  /** A failed call's {@linkcode ToolErrorCode}, or `unexpected` for a failure that is not one. */
  errorCode?: ToolErrorCode | "unexpected";
  /** Body bytes the call read from the network (0 for a page served from the cache). */
  bytesRead: number;
  /** Whether the call's page came from the cache. */
  cacheHit: boolean;
  /** The host (and port, when not the default) the call read from, when it read a URL. */
  host?: string;
  /** The caller's session id, when it sent one. */
  sessionId?: string;
  /** The caller's run id, when it sent one. */
  runId?: string;
  /** The caller's tool-call id, when it sent one. */
  toolCallId?: string;
}
