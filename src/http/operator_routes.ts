import { Hono } from "hono/tiny";
import type { MiddlewareHandler } from "hono";
import type { QuestionChannel } from "../human/question_channel.ts";
import {
  type ApprovalDecision,
  MAX_ANSWER_LENGTH,
  type QuestionRecord,
} from "../human/question.ts";
import { MAX_QUESTION_ID_LENGTH, MAX_RESOLVED_LIMIT } from "../human/question_support.ts";
import { problem } from "./problems.ts";
import type { QuestionEvents } from "./question_events.ts";
import { readJson } from "./request_body.ts";

/** How many resolved questions `GET /questions/history` lists without a `limit`. */
const DEFAULT_HISTORY_LIMIT = 50;

/** What the operator API serves, and the middleware it runs behind. */
export interface OperatorRoutesOptions {
  channel: QuestionChannel;
  events: QuestionEvents;
  /** The operator token's check. */
  auth: MiddlewareHandler;
  /** The body cap. */
  limit: MiddlewareHandler;
}

/** The operator API on `/questions` (see `createApp`). */
export function operatorRoutes(options: OperatorRoutesOptions): Hono {
  const { channel, events, auth: operatorAuth, limit } = options;
  const app = new Hono();
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
        `limit must be a whole number from 1 to ${MAX_RESOLVED_LIMIT}, not ${JSON.stringify(raw)}.`,
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
  return app;
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
