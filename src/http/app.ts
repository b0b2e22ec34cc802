import { Hono } from "hono/tiny";
import type { CallTelemetry } from "../call_telemetry.ts";
import type { Clock } from "../clock.ts";
import type { QuestionChannel } from "../human/question_channel.ts";
import { SetupError } from "../errors.ts";
import { checkOption, positiveInteger } from "../option_checks.ts";
import { toolsByName } from "../run_tool_calls.ts";
import type { Tool } from "../tool.ts";
import { acceptedTokens, bearerOf, oneOfTokens, requireToken, unauthorized } from "./auth.ts";
import { inlineConsole } from "./console_route.ts";
import { cors } from "./cors.ts";
import { mcpRoute } from "./mcp.ts";
import { operatorRoutes } from "./operator_routes.ts";
import { problem } from "./problems.ts";
import { QuestionEvents } from "./question_events.ts";
import { type Admit, type CallLimiter, limitCall } from "./call_limiter.ts";
import { bodyCap, declaredLength, tooLarge } from "./request_body.ts";
import { toolRoutes } from "./tool_routes.ts";
import { UnkeyedCalls } from "./unkeyed_calls.ts";

/**
 * The bearer tokens the app accepts: one for tool callers (`/tools`, `/mcp`), another for
 * operators (`/questions`, the console). Neither grants the other's routes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import { type AppAuth, createApp } from "@outpost/agent-tools/http";
 * const toolToken = "tool-token-at-least-16-chars";
 * const operatorToken = "operator-token-at-least-16-chars";
 * const auth: AppAuth = { toolToken, operatorToken };
 * const app = createApp({ tools: [now], channel: new MemoryQuestionChannel(), auth });
 * const questions = (token: string) =>
 *   app.fetch(new Request("http://localhost/questions", { headers: { authorization: `Bearer ${token}` } }));
 * assert.equal((await questions(operatorToken)).status, 200);
 * assert.equal((await questions(toolToken)).status, 401); // neither grants the other's routes
 * ```
 */
export interface AppAuth {
  /**
   * The token agents send as `Authorization: Bearer …`, or several (any of them is accepted, e.g.
   * while one is rotated out); at least 16 characters each.
   */
  toolToken: string | readonly string[];
  /** The token operators use; required with a `channel`, at least 16 characters. */
  operatorToken?: string;
}

/**
 * Request limits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AppLimits, createApp } from "@outpost/agent-tools/http";
 * const limits: AppLimits = { maxBodyBytes: 64 * 1024 };
 * const toolToken = "tool-token-at-least-16-chars";
 * const app = createApp({ tools: [now], auth: { toolToken }, limits });
 * const response = await app.fetch(
 *   new Request("http://localhost/tools/now", {
 *     method: "POST",
 *     headers: { authorization: `Bearer ${toolToken}` },
 *     body: JSON.stringify({ tz: "x".repeat(100_000) }),
 *   }),
 * );
 * assert.equal(response.status, 413);
 * ```
 */
export interface AppLimits {
  /** The largest request body accepted, in bytes; larger ones get 413 (default 1 MB). */
  maxBodyBytes?: number;
  /** How many `/questions/events` streams may be open at once; more get 503 (default 100). */
  maxEventStreams?: number;
}

/**
 * Cross-origin access for browser callers. Without it the app sends no CORS headers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type CorsOptions, createApp } from "@outpost/agent-tools/http";
 * const cors: CorsOptions = { origin: ["https://agent.example.com"] };
 * const app = createApp({ tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" }, cors });
 * const response = await app.fetch(
 *   new Request("http://localhost/tools", { headers: { origin: "https://agent.example.com" } }),
 * );
 * assert.equal(response.headers.get("access-control-allow-origin"), "https://agent.example.com");
 * ```
 */
export interface CorsOptions {
  /** The origins allowed, or `"*"` for any. */
  origin: string | readonly string[];
}

/**
 * What {@linkcode createApp} serves and how.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AppOptions, createApp } from "@outpost/agent-tools/http";
 * const options: AppOptions = { tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" } };
 * const response = await createApp(options).fetch(
 *   new Request("http://localhost/tools", { headers: { authorization: "Bearer tool-token-at-least-16-chars" } }),
 * );
 * assert.equal(response.status, 200);
 * ```
 */
export interface AppOptions {
  /** The tools served on `/tools` and `/mcp`; names must be unique. */
  tools: readonly Tool[];
  /** Where `ask_human` questions wait; enables the operator API and the console. */
  channel?: QuestionChannel;
  /** The accepted bearer tokens. */
  auth: AppAuth;
  /** Request limits. */
  limits?: AppLimits;
  /** Cross-origin access; off by default. */
  cors?: CorsOptions;
  /**
   * How often an MCP tool call that sent a `progressToken` gets a progress notification while it
   * runs, in milliseconds (default 15000): clients with `resetTimeoutOnProgress` then wait for a
   * long `ask_human` instead of timing out.
   */
  mcpProgressIntervalMs?: number;
  /**
   * How often an event stream reads a channel that cannot push its changes, in milliseconds
   * (default 1000). A channel with `changes()` (every channel of this package) is not polled:
   * its streams read it only when it changed.
   */
  pollIntervalMs?: number;
  /** Times the event streams' keep-alives (default the system's clock). */
  clock?: Clock;
  /**
   * Receives failures that became a 500 or a generic tool error, and MCP messages that reach no
   * request (a response that could not be sent, a client's response to nothing) (default
   * `console.error`).
   */
  onError?: (error: unknown) => void;
  /**
   * Admits the tool calls on `/tools` and `/mcp` per tool token (the key it is given): a call
   * it refuses is answered 429 with `Retry-After` when the wait is known, and over MCP as a tool
   * error of code `rate_limited`. Without it, calls are not limited.
   */
  limiter?: CallLimiter;
  /**
   * An access log and a tracer for the tool calls on `/tools` and `/mcp`: the app logs and
   * traces nothing without them.
   */
  telemetry?: CallTelemetry;
}

/**
 * The HTTP app: a fetch handler that Deno's `serve`, Workers and Vercel Edge take as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { createApp, type OutpostApp } from "@outpost/agent-tools/http";
 * const app: OutpostApp = createApp({ tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" } });
 * const response = await app.fetch(new Request("http://localhost/tools"));
 * assert.equal(response.status, 401); // no token
 * ```
 */
export interface OutpostApp {
  /**
   * Answers one request. `env` and `ctx` are what a Workers `fetch` handler receives (its
   * bindings and execution context); they are handed to the routes as Hono hands them on.
   */
  fetch(request: Request, env?: unknown, ctx?: AppExecutionContext): Promise<Response>;
  /** Ends open event streams so that a server can shut down gracefully. Idempotent. */
  close(): void;
  /**
   * Waits up to `graceMs` for the tool calls in flight that have no tool-call id (on the JSON
   * route or MCP), then aborts those still running — an `ask_human` among them withdraws its
   * question, which no retry could re-attach to — and resolves when they have ended. Calls with
   * a tool-call id are left running: their questions stay pending, and the retried call
   * re-attaches after a restart.
   */
  drain(graceMs: number): Promise<void>;
}

/**
 * The execution context a Workers runtime passes to a `fetch` handler, as {@linkcode OutpostApp}
 * takes it: work that may outlive the response is handed to `waitUntil`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { type AppExecutionContext, createApp } from "@outpost/agent-tools/http";
 * const pending: Promise<unknown>[] = [];
 * const ctx: AppExecutionContext = { waitUntil: (promise) => void pending.push(promise) };
 * const app = createApp({ tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" } });
 * // A Workers `fetch(request, env, ctx)` hands its arguments on as they are.
 * const response = await app.fetch(new Request("http://localhost/tools"), {}, ctx);
 * assert.equal(response.status, 401); // no token
 * ```
 */
export interface AppExecutionContext {
  /** Keeps the runtime alive until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
  /** Lets the request through to the origin should the handler throw (Workers only). */
  passThroughOnException?(): void;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Builds the HTTP front for a set of tools: a plain JSON API, an MCP endpoint and, given a
 * question channel, the operator API and console. Web standards only, so the same app runs on
 * Deno, Workers and Vercel Edge.
 *
 * Routes (tool routes need the tool token, question routes and events the operator token):
 * - `GET /tools`: `{ tools: [{ name, description, parameters, annotations? }] }`.
 * - `POST /tools/:name` with the input as JSON: `{ text }`; errors are `{ error, hint? }`, and a
 *   tool's failure adds its `ToolError` `code`: 400 (malformed JSON, or code `invalid_input`), 404
 *   (unknown tool), 429 (code `rate_limited`: the `limiter`'s limits, a backend's rate limit, or
 *   too many questions pending) with `Retry-After` when the wait is known, 422 (another `ToolError`) or 500. The
 *   headers `Outpost-Session-Id`, `Outpost-Run-Id` and `Outpost-Tool-Call-Id` fill the
 *   `ToolContext`; a durable `ask_human` re-attaches a retried call by these ids. A caller that
 *   hangs up aborts its call, unless the call has a tool-call id: then it runs on, so that a
 *   retry with the same id (after a proxy's idle timeout, say) re-attaches to its question.
 * - `POST /mcp`: MCP over Streamable HTTP, stateless; a call carries its ids in `params._meta`
 *   (`outpost/toolCallId`, `outpost/sessionId`, `outpost/runId`), or in the headers above when
 *   the request holds that single call.
 * - `GET /questions`: `{ questions }`, the pending ones, oldest first.
 * - `GET /questions/events`: Server-Sent Events `asked` (data: the question), `answered`
 *   (`{ id, answer, decision?, reason?, by?, resolvedAt }`) and `cancelled`
 *   (`{ id, reason, withdrawn?, resolvedAt }`). A new stream
 *   starts with an `asked` event per pending question; one resumed with `Last-Event-ID` gets
 *   exactly what changed since, or, when the id cannot be honoured, a `reset` (drop what you
 *   show) and then every pending question. 503 beyond `limits.maxEventStreams` open streams.
 * - `GET /questions/history?limit=N`: `{ questions }`, the records of the most recently
 *   resolved questions the channel still keeps (answered, cancelled, withdrawn), newest first,
 *   at most `N` (1 to 100, default 50); 400 for another `limit`, 404 when the channel has no
 *   `resolved` method (every channel of this package has one).
 * - `GET /questions/:id`: the question's record; `POST /questions/:id/answer` `{ answer }` (or,
 *   for an approval, `{ decision: "approve" | "deny", reason? }`) and
 *   `POST /questions/:id/cancel` `{ reason? }`: `{ id, status }`; the same answer or cancel sent
 *   again (a retry whose response was lost) succeeds again; 404 for an unknown id, 409 when
 *   resolved otherwise (with `withdrawn: true` when the asker stopped waiting), 400 for an answer
 *   or reason longer than `MAX_ANSWER_LENGTH` or a decision on a question that is no approval.
 *
 * Statuses and decisions travel as fields, never inside a text. Every string is the raw data the
 * agent sent or gets — questions, options, answers, reasons and ids may hold bidirectional
 * controls and invisible characters; a front-end shows them through `showInvisible`, as the
 * console does, so that what the operator reads is what the agent gets.
 * - `GET /`: the operator console.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * import { createApp } from "@outpost/agent-tools/http";
 *
 * const app = createApp({ tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" } });
 * const response = await app.fetch(
 *   new Request("http://localhost/tools/now", {
 *     method: "POST",
 *     headers: { authorization: "Bearer tool-token-at-least-16-chars" },
 *     body: JSON.stringify({ tz: "UTC" }),
 *   }),
 * );
 * const { text } = await response.json(); // { text: "2026-11-30T17:20:22+00:00" }
 * assert.match(text, /\+00:00$/);
 * ```
 */
export function createApp(options: AppOptions): OutpostApp {
  return appServing(options, inlineConsole);
}

/**
 * {@linkcode createApp}, with `consolePage` answering `GET /` where the app serves the console
 * (nothing without it): the Worker, which serves the page as static assets, builds its app here
 * without `inlineConsole`, and so leaves the page out of its bundle.
 */
export function appServing(options: AppOptions, consolePage?: () => Response): OutpostApp {
  const { channel, onError = (error: unknown) => console.error(error), telemetry } = options;
  if (!Array.isArray(options.tools)) {
    throw new SetupError("createApp needs `tools`, an array of tools.");
  }
  const tools = toolsByName(options.tools);
  const toolTokens = acceptedTokens(options.auth?.toolToken, "toolToken");
  const toolAuth = requireToken(toolTokens);
  const maxBodyBytes = checkOption(
    "limits.maxBodyBytes",
    options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    positiveInteger,
  );
  const pollIntervalMs = checkOption(
    "pollIntervalMs",
    options.pollIntervalMs ?? 1000,
    positiveInteger,
  );
  const progressIntervalMs = checkOption(
    "mcpProgressIntervalMs",
    options.mcpProgressIntervalMs ?? 15_000,
    positiveInteger,
  );
  const maxStreams = checkOption(
    "limits.maxEventStreams",
    options.limits?.maxEventStreams ?? 100,
    positiveInteger,
  );
  const limit = bodyCap(maxBodyBytes);
  const unkeyed = new UnkeyedCalls();
  const { limiter } = options;
  // Behind the tool token's check: the token presented is the caller's.
  const admitFor = limiter && ((token: string): Admit => (run) => limitCall(limiter, token, run));

  const internalError = (error: unknown) => {
    onError(error);
    return problem(500, "Internal error.");
  };
  const app = new Hono();
  app.onError(internalError);
  app.notFound(() => problem(404, "Not found."));
  if (options.cors) {
    app.use("*", cors(options.cors.origin));
  }
  const toolApi = toolRoutes({
    tools,
    unkeyed,
    tokens: toolTokens,
    maxBodyBytes,
    telemetry,
    limiter,
  });
  app.route("/", toolApi.routes);
  const mcp = mcpRoute({
    tools,
    maxBodyBytes,
    progressIntervalMs,
    onError,
    unkeyed,
    telemetry,
    admitFor,
    auth: toolAuth,
    limit,
  });
  app.route("/", mcp.routes);
  /**
   * Answers a tool call (`POST /tools/<served tool>` or `POST /mcp`, with a declared body length)
   * without the router, checking the token and then the length as the routes' middleware does:
   * the hot path of the service, on which routing and the middleware chain cost as much as a
   * call. `undefined` for any other request, which is the routes' to answer; and for all when
   * CORS, which the router's middleware adds, is on.
   */
  const direct = (request: Request): Promise<Response> | undefined => {
    const match = !options.cors && request.method === "POST" && DIRECT.exec(request.url);
    const tool = match && match[1] !== undefined ? tools.get(match[1]) : undefined;
    const length = match && (tool || match[1] === undefined)
      ? declaredLength(request.headers)
      : undefined;
    if (length === undefined) return undefined;
    const token = bearerOf(request);
    if (!oneOfTokens(toolTokens, token)) return Promise.resolve(unauthorized());
    if (length > maxBodyBytes) return Promise.resolve(tooLarge(maxBodyBytes));
    return tool ? toolApi.call(request, tool, token) : mcp.answer(request, token);
  };

  const events = channel
    ? new QuestionEvents(channel, { pollIntervalMs, maxStreams, onError, clock: options.clock })
    : undefined;
  if (channel && events) {
    const operatorAuth = requireToken(acceptedTokens(options.auth.operatorToken, "operatorToken"));
    if ([options.auth.toolToken].flat().includes(options.auth.operatorToken!)) {
      throw new SetupError("The operator token must differ from the tool token.", {
        hint: "Generate two tokens, e.g. with crypto.randomUUID().",
      });
    }
    if (consolePage) app.get("/", consolePage);
    app.route("/", operatorRoutes({ channel, events, auth: operatorAuth, limit }));
  }

  return {
    // Not an async function: on the hot path, one promise fewer for every request.
    fetch(request, env, ctx) {
      try {
        return direct(request)?.catch(internalError) ??
          Promise.resolve(app.fetch(request, env, ctx as Parameters<typeof app.fetch>[2]));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close: () => events?.close(),
    drain: (graceMs) => unkeyed.drain(graceMs),
  };
}

/**
 * A tool call's URL, query aside: `/tools/<name>` (its name as a tool's is written: one the router
 * would decode or match otherwise is left to it) or `/mcp`.
 */
const DIRECT = /^[a-z]+:\/\/[^/]+\/(?:tools\/([a-z0-9_]+)|mcp)(?:\?|$)/;
