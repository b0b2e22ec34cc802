import { SetupError } from "../../src/errors.ts";
import { systemClock } from "../../src/clock.ts";
import { checkOption, timeoutMs } from "../../src/option_checks.ts";
import { MemoryCallLimiter, type OutpostApp } from "../../src/http/mod.ts";
import type { ServiceParts } from "./mod.ts";
import { readServiceSettings } from "../service/service_settings.ts";
import { createServiceApp } from "../service/service_app.ts";

/**
 * What {@linkcode vercelHandler} serves.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vercelHandler, type VercelHandlerOptions } from "@outpost/agent-tools/vercel";
 * const options: VercelHandlerOptions = {
 *   env: { OUTPOST_TOOL_TOKEN: "tool-token-at-least-16", OUTPOST_TOOLS: "now" },
 * };
 * const response = await vercelHandler(options)(
 *   new Request("https://outpost.example/tools", { headers: { authorization: "Bearer tool-token-at-least-16" } }),
 * );
 * assert.equal(response.status, 200);
 * ```
 */
export interface VercelHandlerOptions {
  /** Where the settings come from, under the shared names: the Edge Function's `process.env`. */
  env: Readonly<Record<string, unknown>>;
  /**
   * The stores and fetch the tools use. Vercel Edge has none that spans instances: the URL cache
   * defaults to memory, per instance, and `ask_human` is served only when `channel` is given
   * (with `OUTPOST_TENANTS`, `channelFor`, a channel per tenant), which must then be one that
   * every instance reaches. Tenants' domain rules apply as on the Worker; give `domainPolicy`,
   * e.g. `(mode, rules) => DomainPolicy[mode](rules)` with `DomainPolicy` from `./hosted`, to
   * refuse a rule that names a public suffix (`co.uk`) (left to you, since
   * the public suffix list it carries is large).
   */
  parts?: ServiceParts;
  /**
   * How long a request may go without its response starting, in milliseconds (default 24000):
   * Vercel ends a function whose response has not started within 25 s. Past it the call is
   * aborted and the caller gets 504 with what to do.
   */
  firstByteMs?: number;
}

/** Leaves a second for the runtime before Vercel's 25 s limit. */
const FIRST_BYTE_MS = 24_000;
/** Under the first-byte limit, so that a slow page is a clear tool error, not a 504. */
const FETCH_TIMEOUT_MS = 20_000;

/**
 * The Edge Function: a fetch handler serving Outpost's tools as a JSON API, an MCP endpoint and,
 * with a `channel`, the operator API and console. Settings are read from `env` on the first
 * request; while the tokens are missing or a setting is malformed every request gets 503
 * saying what to set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vercelHandler } from "@outpost/agent-tools/vercel";
 * const handler = vercelHandler({ env: { OUTPOST_TOOLS: "now" } });
 * const response = await handler(new Request("https://outpost.example/tools"));
 * assert.equal(response.status, 503); // OUTPOST_TOOL_TOKEN is not set
 * ```
 */
export function vercelHandler(
  options: VercelHandlerOptions,
): (request: Request) => Promise<Response> {
  const firstByteMs = checkOption(
    "firstByteMs",
    options.firstByteMs ?? FIRST_BYTE_MS,
    timeoutMs(FIRST_BYTE_MS),
    "Vercel ends a function whose response has not started within 25 s.",
  );
  let app: OutpostApp | Response | undefined;
  return async (request) => {
    app ??= build(options);
    if (app instanceof Response) return app.clone();
    return await withinFirstByte(app, request, firstByteMs);
  };
}

function build({ env, parts = {} }: VercelHandlerOptions): OutpostApp | Response {
  try {
    const settings = readServiceSettings(env);
    return createServiceApp(
      { ...settings, fetchTimeoutMs: settings.fetchTimeoutMs ?? FETCH_TIMEOUT_MS },
      // Vercel Edge keeps nothing across instances: each counts on its own.
      { limiterFor: (_tenant, limits) => new MemoryCallLimiter(() => limits), ...parts },
      "in the project's environment variables (vercel env add NAME), and deploy again",
    );
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    return Response.json({ error: error.message, hint: error.hint }, { status: 503 });
  }
}

/** Answers 504 when the app has not started its response in time, and aborts the call. */
async function withinFirstByte(
  app: OutpostApp,
  request: Request,
  firstByteMs: number,
): Promise<Response> {
  const deadline = new AbortController();
  // The caller's hang-up still reaches the app after the response has started (event streams).
  const abort = () => deadline.abort(request.signal.reason);
  if (request.signal.aborted) abort();
  else request.signal.addEventListener("abort", abort, { once: true });
  const inner = new Request(request, { signal: deadline.signal });
  let cancel = () => {};
  const late = new Promise<Response>((resolve) => {
    cancel = systemClock.setTimer(() => {
      resolve(Response.json({
        error: `No response within ${firstByteMs / 1000} s, the most Vercel Edge waits for one.`,
        hint: "The call was stopped. Try again, ask for less (a smaller page, a narrower " +
          "search), or deploy where calls may run longer.",
      }, { status: 504 }));
      deadline.abort(new DOMException("No response in time.", "TimeoutError"));
    }, firstByteMs);
  });
  try {
    return await Promise.race([app.fetch(inner), late]);
  } finally {
    cancel();
  }
}
