/**
 * The HTTP front: {@linkcode createApp} serves tools as a JSON API and an MCP server, and, with
 * a question channel, an operator API and a console for `ask_human`. It runs wherever a fetch
 * handler does: Deno, Cloudflare Workers, Vercel Edge.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { createApp } from "@outpost/agent-tools/http";
 *
 * const toolToken = crypto.randomUUID();
 * const app = createApp({ tools: [now], auth: { toolToken } });
 * // A fetch handler: export it as the module's default for `deno serve` or Cloudflare Workers.
 * const handler = { fetch: app.fetch };
 * const response = await handler.fetch(
 *   new Request("http://localhost/tools", { headers: { authorization: `Bearer ${toolToken}` } }),
 * );
 * assert.equal(response.status, 200);
 * ```
 *
 * @module
 */
export {
  type AppAuth,
  type AppExecutionContext,
  type AppLimits,
  type AppOptions,
  type CorsOptions,
  createApp,
  type OutpostApp,
} from "./app.ts";
export type { CallLimiter, CallLimits } from "./call_limiter.ts";
export { MemoryCallLimiter } from "./memory_call_limiter.ts";
