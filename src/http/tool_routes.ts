import { Hono } from "hono/tiny";
import type { MiddlewareHandler } from "hono";
import { type CallTelemetry, observeCall } from "../call_telemetry.ts";
import { ToolError } from "../errors.ts";
import { unknownTool } from "../run_tool_calls.ts";
import type { Tool } from "../tool.ts";
import type { Admit } from "./call_limiter.ts";
import { problem, toolProblem } from "./problems.ts";
import { readJson } from "./request_body.ts";
import { toolContext } from "./tool_context.ts";
import type { UnkeyedCalls } from "./unkeyed_calls.ts";

/** What the tool routes serve, and the middleware they run behind. */
export interface ToolRoutesOptions {
  tools: ReadonlyMap<string, Tool>;
  unkeyed: UnkeyedCalls;
  /** The tool token's check. */
  auth: MiddlewareHandler;
  /** The body cap. */
  limit: MiddlewareHandler;
  /** The access log and tracer of tool calls, if any. */
  telemetry: CallTelemetry | undefined;
  /** Admits each call of a request within its caller's limits, if it has any. */
  admitFor?: (request: Request) => Admit;
}

/** `GET /tools` and `POST /tools/:name`: the plain JSON API (see `createApp`). */
export function toolRoutes(
  { tools, unkeyed, auth, limit, telemetry, admitFor }: ToolRoutesOptions,
): Hono {
  const app = new Hono();
  app.get("/tools", auth, () =>
    Response.json({
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    }));

  app.post("/tools/:name", auth, limit, async (c) => {
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
    const admit: Admit = admitFor?.(c.req.raw) ?? ((run) => run());
    try {
      const text = await observeCall(
        telemetry,
        name,
        ctx,
        (ctx) =>
          admit(() =>
            ctx.toolCallId === undefined
              ? unkeyed.run(c.req.raw.signal, (signal) => found.execute(input, { ...ctx, signal }))
              : found.execute(input, ctx)
          ),
      );
      return Response.json({ text });
    } catch (error) {
      // The caller hung up and the call was aborted: nobody reads this, and nothing failed.
      if (c.req.raw.signal.aborted) return problem(499, "The client closed the request.");
      if (unkeyed.stopping) return problem(503, "The service is stopping.", "Try again later.");
      if (error instanceof ToolError) return toolProblem(error);
      throw error;
    }
  });
  return app;
}
