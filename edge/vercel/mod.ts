/**
 * Outpost on Vercel Edge Functions: {@linkcode vercelHandler} builds the app from the shared
 * environment names (`OUTPOST_TOOL_TOKEN`, `OUTPOST_OPERATOR_TOKEN`, `TAVILY_API_KEY`,
 * `OUTPOST_ALLOW_PRIVATE_NETWORK`, `OUTPOST_TOOLS`, …) and answers within Vercel's 25 s limit
 * for the start of a response.
 *
 * Vercel Edge has no durable store: the URL cache lives in memory, per instance, and
 * `ask_human` is left out unless a channel that spans instances is given.
 *
 * @example
 * ```ts
 * // Not asserted: a Vercel deployment's entry file (see vercelHandler for a checked example).
 * // api/outpost.ts in a Vercel project
 * import { vercelHandler } from "@outpost/agent-tools/vercel";
 *
 * export const config = { runtime: "edge" };
 * export default vercelHandler({ env: process.env });
 * ```
 *
 * @module
 */
export { vercelHandler, type VercelHandlerOptions } from "./handler.ts";
export type { ServiceParts } from "../service/service_app.ts";
