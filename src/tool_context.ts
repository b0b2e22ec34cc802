import type { Elicit } from "./elicitation.ts";
import type { Tracer } from "./tracer.ts";

/**
 * What a tool call runs under: the caller's abort signal and the ids that tie the call to a
 * session, a run and the model's tool-call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tool, type ToolContext } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const whoAmI = tool({
 *   name: "who_am_i",
 *   description: "Names the call.",
 *   input: z.object({}),
 *   execute: (_input, ctx) => `call ${ctx?.toolCallId}`,
 * });
 * const ctx: ToolContext = { signal: AbortSignal.timeout(10_000), toolCallId: "call_1" };
 * assert.equal(await whoAmI.execute({}, ctx), "call call_1");
 * ```
 */
export interface ToolContext {
  /** Aborting it makes the call reject promptly. */
  signal?: AbortSignal;
  /** The conversation or user session the call belongs to. */
  sessionId?: string;
  /** One agent run inside the session. */
  runId?: string;
  /** The provider's id for this tool call. */
  toolCallId?: string;
  /**
   * Set by a caller that can tell its client what the call is doing (MCP progress
   * notifications): a long-running tool reports its state, e.g. "Waiting for an operator".
   */
  reportProgress?: (update: ProgressUpdate) => void;
  /**
   * Set when the calling client can put a form in front of its user (an MCP client with the
   * `elicitation` capability): `ask_human` then asks that user directly.
   */
  elicit?: Elicit;
  /**
   * Set by a host that traces calls: a tool that makes requests starts a client span per
   * request with it, under the call's span.
   */
  tracer?: Tracer;
  /**
   * Set by a host that keeps an access log: a tool that reads a URL says so, with the body bytes
   * it read from the network and whether a cache answered instead. The log keeps only the host.
   */
  noteRead?: (read: { url: string; bytes?: number; cacheHit?: boolean }) => void;
  /**
   * Set by a caller that can pass on something that went wrong without failing the call (MCP:
   * a `notifications/message` at level `warning`). The model is told in the result's text too.
   */
  warn?: (message: string) => void;
  /**
   * Set by a caller that can carry a structured result beside the text (MCP
   * `structuredContent`): a tool with an `outputSchema` hands it the value its text shows.
   */
  reportStructured?: (value: Record<string, unknown>) => void;
}

/**
 * What a running tool says it is doing, through {@linkcode ToolContext.reportProgress}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProgressUpdate, tool } from "@outpost/agent-tools";
 * import * as z from "zod";
 * const update: ProgressUpdate = { message: "Downloaded 340 KB of at most 1 MB", progress: 340_000, total: 1_000_000 };
 * const download = tool({
 *   name: "download",
 *   description: "Downloads a file.",
 *   input: z.object({}),
 *   execute: (_input, ctx) => {
 *     ctx?.reportProgress?.(update);
 *     return "done";
 *   },
 * });
 * const seen: ProgressUpdate[] = [];
 * await download.execute({}, { reportProgress: (u) => seen.push(u) });
 * assert.deepEqual(seen, [update]);
 * ```
 */
export interface ProgressUpdate {
  /** A short, present-tense sentence for a person, without a final period. */
  message: string;
  /** How far along, in the unit of `total` (bytes, items…), when it can be counted. */
  progress?: number;
  /** The most `progress` can reach, when known. */
  total?: number;
}
