import { type AppOptions, createApp, type OutpostApp } from "../../src/http/mod.ts";

/** The tool token of the apps {@linkcode withMcp} serves. */
export const TOOL_TOKEN = "tool-token-0123456789abcdef";
/** What an MCP client over HTTP must accept. */
export const JSON_AND_SSE = "application/json, text/event-stream";

/** A raw POST to `/mcp` (`body` as is when a string), with the headers a client sends. */
export type McpPost = (body: unknown, headers?: Record<string, string>) => Promise<Response>;

/**
 * Serves an app of `options` (with {@linkcode TOOL_TOKEN}) on 127.0.0.1 while `run` posts to its
 * `/mcp`, given also the endpoint's URL and the app.
 */
export async function withMcp(
  options: Omit<AppOptions, "auth">,
  run: (post: McpPost, url: string, app: OutpostApp) => Promise<void>,
): Promise<void> {
  const app = createApp({ ...options, auth: { toolToken: TOOL_TOKEN } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  try {
    await run(
      (body, headers = {}) =>
        fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${TOOL_TOKEN}`,
            accept: JSON_AND_SSE,
            "content-type": "application/json",
            ...headers,
          },
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
      url,
      app,
    );
  } finally {
    await server.shutdown();
  }
}
