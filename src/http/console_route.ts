import { Hono } from "hono/tiny";
import { consolePage } from "./console_page.ts";

/**
 * `GET /`: the operator console, under a fresh nonce and a policy that lets it run its own
 * script and style, talk to this origin only, and be framed by nobody.
 */
export function consoleRoute(): Hono {
  const app = new Hono();
  app.get("/", () => {
    const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    return new Response(consolePage(nonce), {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy":
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
          "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
      },
    });
  });
  return app;
}
