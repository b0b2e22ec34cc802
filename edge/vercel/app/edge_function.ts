/**
 * The Edge Function: Outpost's tools, MCP endpoint and (given a channel) console, configured
 * from the project's environment variables. In a Vercel project, `api/outpost.ts` re-exports
 * it; `vercel.json` routes every path to it.
 *
 * @module
 */
import { vercelHandler } from "../handler.ts";

/** Tells Vercel to run this function on the Edge runtime. */
export const config = { runtime: "edge" };

const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
  ?.env ?? {};

/** Answers one request. */
export default vercelHandler({ env });
