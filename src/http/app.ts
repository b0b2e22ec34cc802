import { Hono } from "hono/tiny";
import type { Clock } from "../clock.ts";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import {
  type ApprovalDecision,
  MAX_ANSWER_LENGTH,
  type QuestionChannel,
  type QuestionRecord,
} from "../human/question_channel.ts";
import { MAX_QUESTION_ID_LENGTH, MAX_RESOLVED_LIMIT } from "../human/question_support.ts";
import { ToolError, UserError } from "../errors.ts";
import type { Tool } from "../tool.ts";
import { bearerCheck, type TokenCheck } from "./auth.ts";
import { consolePage } from "./console_page.ts";
import { handleMcp } from "./mcp.ts";
import { QuestionEvents } from "./question_events.ts";
import { CONTEXT_HEADERS, toolContext } from "./tool_context.ts";
import { UnkeyedCalls } from "./unkeyed_calls.ts";
import { toolsByName, unknownTool } from "../run_tool_calls.ts";

/**
 * The bearer tokens the app accepts: one for tool callers (`/tools`, `/mcp`), another for
 * operators (`/questions`, the console). Neither grants the other's routes.
 *
 * @example
 * ```ts
 * import type { AppAuth } from "@outpost/agent-tools/hono";
 * const auth: AppAuth = {
 *   toolToken: "tool-token-at-least-16-chars",
 *   operatorToken: "operator-token-at-least-16-chars",
 * };
 * ```
 */
export interface AppAuth {
  /** The token agents send as `Authorization: Bearer …`; at least 16 characters. */
  toolToken: string;
  /** The token operators use; required with a `channel`, at least 16 characters. */
  operatorToken?: string;
}

/**
 * Request limits.
 *
 * @example
 * ```ts
 * import type { AppLimits } from "@outpost/agent-tools/hono";
 * const limits: AppLimits = { maxBodyBytes: 64 * 1024 };
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
 * import type { CorsOptions } from "@outpost/agent-tools/hono";
 * const cors: CorsOptions = { origin: ["https://agent.example.com"] };
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
 * import { now } from "@outpost/agent-tools";
 * import type { AppOptions } from "@outpost/agent-tools/hono";
 * const options: AppOptions = { tools: [now], auth: { toolToken: "tool-token-at-least-16-chars" } };
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
  /** Receives failures that became a 500 or a generic tool error (default `console.error`). */
  onError?: (error: unknown) => void;
}

/**
 * The HTTP app: a fetch handler that Deno's `serve`, Workers and Vercel Edge take as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools";
 * import { createApp, type OutpostApp } from "@outpost/agent-tools/hono";
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
 * import type { AppExecutionContext } from "@outpost/agent-tools/hono";
 * const pending: Promise<unknown>[] = [];
 * const ctx: AppExecutionContext = { waitUntil: (promise) => void pending.push(promise) };
 * ```
 */
export interface AppExecutionContext {
  /** Keeps the runtime alive until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
  /** Lets the request through to the origin should the handler throw (Workers only). */
  passThroughOnException?(): void;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const MIN_TOKEN_LENGTH = 16;

/** How many resolved questions `GET /questions/history` lists without a `limit`. */
const DEFAULT_HISTORY_LIMIT = 50;

/**
 * Builds the HTTP front for a set of tools: a plain JSON API, an MCP endpoint and, given a
 * question channel, the operator API and console. Web standards only, so the same app runs on
 * Deno, Workers and Vercel Edge.
 *
 * Routes (tool routes need the tool token, question routes and events the operator token):
 * - `GET /tools`: `{ tools: [{ name, description, parameters, annotations? }] }`.
 * - `POST /tools/:name` with the input as JSON: `{ text }`; errors are `{ error, hint? }`, and a
 *   tool's failure adds its `ToolError` `code`: 400 (malformed JSON, or code `invalid_input`), 404
 *   (unknown tool), 429 (code `rate_limited`: a backend's rate limit, or too many questions
 *   pending) with `Retry-After` when the wait is known, 422 (another `ToolError`) or 500. The
 *   headers `Outpost-Session-Id`, `Outpost-Run-Id` and `Outpost-Tool-Call-Id` fill the
 *   `ToolContext`; a durable `ask_human` re-attaches a retried call by these ids. A caller that
 *   hangs up aborts its call, unless the call has a tool-call id: then it runs on, so that a
 *   retry with the same id (after a proxy's idle timeout, say) re-attaches to its question.
 * - `POST /mcp`: MCP over Streamable HTTP, stateless; a call carries its ids in `params._meta`
 *   (`outpost/toolCallId`, `outpost/sessionId`, `outpost/runId`), or in the headers above when
 *   the request holds that single call.
 * - `GET /questions`: `{ questions }`, the pending ones, oldest first.
 * - `GET /questions/events`: Server-Sent Events `asked` (data: the question), `answered`
 *   (`{ id, answer, decision?, reason?, resolvedAt }`) and `cancelled`
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
 * import { now } from "@outpost/agent-tools";
 * import { createApp } from "@outpost/agent-tools/hono";
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
  const { channel, onError = (error: unknown) => console.error(error) } = options;
  const tools = toolMap(options.tools);
  const toolAuth = requireToken(bearerCheck(token(options.auth?.toolToken, "toolToken")));
  const maxBodyBytes = positiveInteger(
    options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    "limits.maxBodyBytes",
  );
  const pollIntervalMs = positiveInteger(options.pollIntervalMs ?? 1000, "pollIntervalMs");
  const progressIntervalMs = positiveInteger(
    options.mcpProgressIntervalMs ?? 15_000,
    "mcpProgressIntervalMs",
  );
  const counted = bodyLimit({
    maxSize: maxBodyBytes,
    onError: () => problem(413, `The request body is larger than ${maxBodyBytes} bytes.`),
  });
  // A body without a length is read here, before the route: a hang-up midway ends it as aborted.
  const limit: MiddlewareHandler = async (c, next) => {
    let routed = false;
    try {
      return await counted(c, () => {
        routed = true;
        return next();
      });
    } catch (error) {
      if (routed) throw error;
      return bodyBroken();
    }
  };

  const unkeyed = new UnkeyedCalls();
  const app = new Hono();
  app.onError((error) => {
    onError(error);
    return problem(500, "Internal error.");
  });
  app.notFound(() => problem(404, "Not found."));
  if (options.cors) {
    app.use(
      "*",
      cors({
        origin: typeof options.cors.origin === "string"
          ? options.cors.origin
          : [...options.cors.origin],
        allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
        allowHeaders: [
          "authorization",
          "content-type",
          "last-event-id",
          "mcp-session-id",
          "mcp-protocol-version",
          ...Object.values(CONTEXT_HEADERS),
        ],
        exposeHeaders: ["mcp-session-id"],
        maxAge: 600,
      }),
    );
  }

  app.get("/tools", toolAuth, () =>
    Response.json({
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    }));

  app.post("/tools/:name", toolAuth, limit, async (c) => {
    const name = c.req.param("name");
    const found = tools.get(name);
    if (!found) {
      const error = unknownTool(name, tools.keys());
      return problem(404, error.message, error.hint);
    }
    const ctx = toolContext(c.req.raw.headers, c.req.raw.signal);
    if (typeof ctx === "string") return problem(400, ctx);
    const input = await readJson(c.req.raw);
    if (input instanceof Response) return input;
    try {
      const text = ctx.toolCallId === undefined
        ? await unkeyed.run(c.req.raw.signal, (signal) => found.execute(input, { ...ctx, signal }))
        : await found.execute(input, ctx);
      return Response.json({ text });
    } catch (error) {
      // The caller hung up and the call was aborted: nobody reads this, and nothing failed.
      if (c.req.raw.signal.aborted) return problem(499, "The client closed the request.");
      if (unkeyed.stopping) return problem(503, "The service is stopping.", "Try again later.");
      if (error instanceof ToolError) return toolProblem(error);
      throw error;
    }
  });

  app.all(
    "/mcp",
    toolAuth,
    limit,
    (c) => handleMcp(c.req.raw, { tools, maxBodyBytes, progressIntervalMs, onError, unkeyed }),
  );

  const maxStreams = positiveInteger(
    options.limits?.maxEventStreams ?? 100,
    "limits.maxEventStreams",
  );
  const events = channel
    ? new QuestionEvents(channel, { pollIntervalMs, maxStreams, onError, clock: options.clock })
    : undefined;
  if (channel && events) {
    const operatorAuth = requireToken(
      bearerCheck(token(options.auth.operatorToken, "operatorToken")),
    );
    if (options.auth.operatorToken === options.auth.toolToken) {
      throw new UserError("The operator token must differ from the tool token.", {
        hint: "Generate two tokens, e.g. with crypto.randomUUID().",
      });
    }

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

    app.get(
      "/questions",
      operatorAuth,
      async () => Response.json({ questions: await channel.pending }),
    );

    // Before `/questions/:id`, which would take "history" for an id.
    app.get("/questions/history", operatorAuth, async (c) => {
      if (!channel.resolved) {
        return problem(
          404,
          "This question channel keeps no history of resolved questions.",
          "Use a channel with `resolved` (every channel of this package has it).",
        );
      }
      const raw = c.req.query("limit") ?? String(DEFAULT_HISTORY_LIMIT);
      const limit = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : NaN;
      if (!(limit <= MAX_RESOLVED_LIMIT)) {
        return problem(
          400,
          `limit must be a whole number from 1 to ${MAX_RESOLVED_LIMIT}, not ${
            JSON.stringify(raw)
          }.`,
        );
      }
      return Response.json({ questions: await channel.resolved(limit) });
    });

    app.get(
      "/questions/events",
      operatorAuth,
      (c) => {
        const stream = events.open(c.req.header("last-event-id") ?? null, c.req.raw.signal);
        if (!stream) {
          const response = problem(503, "Too many open event streams; try again later.");
          response.headers.set("retry-after", "5");
          return response;
        }
        return new Response(stream, {
          headers: {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache, no-transform",
            "x-accel-buffering": "no",
          },
        });
      },
    );

    app.get("/questions/:id", operatorAuth, async (c) => {
      const id = c.req.param("id");
      const record = id.length > MAX_QUESTION_ID_LENGTH ? undefined : await channel.get(id);
      return record ? Response.json(record) : unknownQuestion(id);
    });

    app.post("/questions/:id/answer", operatorAuth, limit, async (c) => {
      const id = c.req.param("id");
      const body = await readJson(c.req.raw);
      if (body instanceof Response) return body;
      const answer = answerOf(body);
      if (answer instanceof Response) return answer;
      const refuse = typeof answer === "string"
        ? undefined
        : (record: QuestionRecord) =>
          record.question.kind === "approval" ? undefined : problem(
            400,
            `Question ${JSON.stringify(id)} is not an approval: answer it with a text.`,
            'Send {"answer": "…"}.',
          );
      return await resolve(
        channel,
        events,
        id,
        () => channel.answer(id, answer),
        "answered",
        refuse,
      );
    });

    app.post("/questions/:id/cancel", operatorAuth, limit, async (c) => {
      const id = c.req.param("id");
      const body = await readJson(c.req.raw);
      if (body instanceof Response) return body;
      const { reason } = body;
      if (reason !== undefined && typeof reason !== "string") {
        return problem(400, "`reason` must be a string when given.");
      }
      if (reason !== undefined && reason.length > MAX_ANSWER_LENGTH) {
        return tooLong("reason", reason);
      }
      return await resolve(channel, events, id, () => channel.cancel(id, reason), "cancelled");
    });
  }

  return {
    fetch: async (request, env, ctx) =>
      await app.fetch(request, env, ctx as Parameters<typeof app.fetch>[2]),
    close: () => events?.close(),
    drain: (graceMs) => unkeyed.drain(graceMs),
  };
}

/**
 * The answer a `POST /questions/:id/answer` body gives: `{ answer }`, a non-empty text, or
 * `{ decision, reason? }` for an approval; or the 400 that says what is wrong.
 */
function answerOf(body: Record<string, unknown>): string | ApprovalDecision | Response {
  const { answer, decision, reason } = body;
  if (decision === undefined) {
    if (typeof answer !== "string" || answer.trim() === "") {
      return problem(
        400,
        "The body needs a non-empty string `answer`, or an approval's `decision`.",
        'Send {"answer": "…"}, or {"decision": "approve"} or {"decision": "deny", "reason": "…"}.',
      );
    }
    return answer.length > MAX_ANSWER_LENGTH ? tooLong("answer", answer) : answer;
  }
  if (answer !== undefined) {
    return problem(400, "Send either `answer` or `decision`, not both.");
  }
  if (decision !== "approve" && decision !== "deny") {
    return problem(400, '`decision` must be "approve" or "deny".');
  }
  if (reason !== undefined && typeof reason !== "string") {
    return problem(400, "`reason` must be a string when given.");
  }
  if (reason !== undefined && reason.length > MAX_ANSWER_LENGTH) return tooLong("reason", reason);
  return reason?.trim() ? { decision, reason } : { decision };
}

/**
 * Answers or cancels `id`, telling an unknown question (404) from one resolved otherwise (409).
 * The same answer or cancel sent again (a retry whose response was lost) succeeds again.
 */
async function resolve(
  channel: QuestionChannel,
  events: QuestionEvents,
  id: string,
  act: () => boolean | Promise<boolean>,
  status: "answered" | "cancelled",
  refuse?: (record: QuestionRecord) => Response | undefined,
): Promise<Response> {
  const before = id.length > MAX_QUESTION_ID_LENGTH ? undefined : await channel.get(id);
  if (!before) return unknownQuestion(id);
  const refused = refuse?.(before);
  if (refused) return refused;
  if (await act()) {
    events.nudge();
    return Response.json({ id, status });
  }
  const after = await channel.get(id);
  // A withdrawn question's asker is gone: say so, or the operator thinks someone got the answer.
  const withdrawn = after?.status === "cancelled" && after.withdrawn === true;
  const error = withdrawn
    ? `Question ${JSON.stringify(id)} was withdrawn (${
      after.reason.replace(/^withdrawn: /, "").slice(0, 200)
    }); nobody is waiting for an answer.`
    : `Question ${JSON.stringify(id)} is no longer pending.`;
  return Response.json(
    { error, status: after?.status, ...(withdrawn ? { withdrawn } : {}) },
    { status: 409 },
  );
}

function tooLong(field: string, text: string): Response {
  return problem(
    400,
    `\`${field}\` has ${text.length} characters; at most ${MAX_ANSWER_LENGTH} are allowed.`,
    "Shorten it, or share a longer text by link.",
  );
}

function unknownQuestion(id: string): Response {
  if (id.length > MAX_QUESTION_ID_LENGTH) {
    return problem(404, `Unknown question: no id is ${id.length} characters long.`);
  }
  return problem(404, `Unknown question ${JSON.stringify(id)}.`);
}

function problem(status: number, error: string, hint?: string): Response {
  return Response.json(hint === undefined ? { error } : { error, hint }, { status });
}

/**
 * A tool's failure, with its code for the host: invalid input is the caller's 400; a rate limit
 * (a backend's, or a full question channel) is 429 with `Retry-After` in whole seconds, rounded up,
 * when the wait is known; any other failure the model should hear about is 422.
 */
function toolProblem(error: ToolError): Response {
  const { code, hint, retryAfterMs } = error;
  const status = code === "invalid_input" ? 400 : code === "rate_limited" ? 429 : 422;
  const response = Response.json(
    { error: error.message, ...(hint === undefined ? {} : { hint }), code },
    { status },
  );
  if (status === 429 && retryAfterMs !== undefined) {
    response.headers.set("retry-after", String(Math.ceil(retryAfterMs / 1000)));
  }
  return response;
}

function requireToken(check: TokenCheck): MiddlewareHandler {
  return async (c, next) => {
    if (!(await check.permits(c.req.raw))) {
      const response = problem(401, "Missing or wrong bearer token.");
      response.headers.set("www-authenticate", 'Bearer realm="outpost"');
      return response;
    }
    await next();
  };
}

/** The body's JSON object, `{}` for an empty body, or a 400 (499 for a hang-up) response. */
async function readJson(request: Request): Promise<Record<string, unknown> | Response> {
  let text: string;
  try {
    text = await request.text();
  } catch {
    return bodyBroken();
  }
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return problem(400, "The request body is not valid JSON.", "Send a JSON object.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return problem(400, "The request body must be a JSON object.", "Send a JSON object.");
  }
  return value as Record<string, unknown>;
}

/**
 * The answer to a request whose body broke off: the client hung up mid-body (runtimes report
 * it as a failed read, not an abort), so nobody reads this, and nothing of ours failed.
 */
function bodyBroken(): Response {
  return problem(499, "The client closed the request before its body was complete.");
}

function toolMap(list: readonly Tool[]): Map<string, Tool> {
  if (!Array.isArray(list)) throw new UserError("createApp needs `tools`, an array of tools.");
  return toolsByName(list);
}

function token(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length < MIN_TOKEN_LENGTH || /\s/.test(value)) {
    throw new UserError(
      `auth.${name} must be a string of at least ${MIN_TOKEN_LENGTH} characters without spaces.`,
      { hint: "Generate one, e.g. with crypto.randomUUID()." },
    );
  }
  return value;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new UserError(`${name} must be a positive integer, not ${value}.`);
  }
  return value;
}
