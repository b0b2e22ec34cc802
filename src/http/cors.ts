import type { MiddlewareHandler } from "hono";
import { CONTEXT_HEADERS } from "./tool_context.ts";

const ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-session-id",
  "mcp-protocol-version",
  ...Object.values(CONTEXT_HEADERS),
].join(",");

/**
 * CORS for the service's routes: `origin` (one, a list, or `"*"`) may call them from a browser.
 * A preflight is answered here, with no route behind it; other answers to an allowed origin say
 * so and expose `mcp-session-id`. Ours rather than Hono's middleware, whose options we do not
 * use, to keep the Worker small.
 */
export function cors(origin: string | readonly string[]): MiddlewareHandler {
  const allowed = (requested: string) =>
    origin === "*"
      ? "*"
      : (typeof origin === "string" ? origin === requested : origin.includes(requested))
      ? requested
      : undefined;
  return async (c, next) => {
    const allow = allowed(c.req.header("origin") ?? "");
    const preflight = c.req.method === "OPTIONS";
    // On the response in the making, which Hono carries over to the one the route returns.
    const headers = preflight ? new Headers() : c.res.headers;
    // Which origin is allowed depends on the request's: caches must keep answers apart.
    if (origin !== "*") headers.append("vary", "Origin");
    if (allow) headers.set("access-control-allow-origin", allow);
    if (preflight) {
      if (allow) {
        headers.set("access-control-allow-methods", "GET,POST,DELETE,OPTIONS");
        headers.set("access-control-allow-headers", ALLOW_HEADERS);
        headers.set("access-control-max-age", "600");
      }
      return new Response(null, { status: 204, headers });
    }
    if (allow) headers.set("access-control-expose-headers", "mcp-session-id");
    await next();
  };
}
