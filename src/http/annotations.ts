/**
 * Hints about a tool's behaviour that MCP clients show or act on (for example, to call
 * read-only tools without asking the user). They are hints, not guarantees.
 *
 * @example
 * ```ts
 * import type { ToolAnnotations } from "@outpost/agent-tools/hono";
 * const hints: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
 * ```
 */
export interface ToolAnnotations {
  /** A human-readable title for the tool. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite things (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no further effect (when not read-only). */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web, people) rather than a closed domain. */
  openWorldHint?: boolean;
}

/** The hints for Outpost's own tools; `createApp`'s `annotations` option adds to and overrides them. */
export const DEFAULT_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = {
  now: { readOnlyHint: true, openWorldHint: false },
  web_fetch: { readOnlyHint: true, openWorldHint: true },
  web_search: { readOnlyHint: true, openWorldHint: true },
  ask_human: { readOnlyHint: true, openWorldHint: true },
};
