import { Hono } from "hono/tiny";
import { type CallTelemetry, observeCall } from "../call_telemetry.ts";
import { ToolError } from "../errors.ts";
import { unknownTool } from "../run_tool_calls.ts";
import type { Tool } from "../tool.ts";
import type { ToolContext } from "../tool_context.ts";
import { bearerOf, requireToken } from "./auth.ts";
import { type CallLimiter, limitCall } from "./call_limiter.ts";
import { problem, toolProblem } from "./problems.ts";
import { bodyCap, readJson } from "./request_body.ts";
import { contextIds } from "./tool_context.ts";
import { unlessAtOnce } from "./at_once.ts";
import type { UnkeyedCalls } from "./unkeyed_calls.ts";

/** What the tool routes serve, and what they check first. */
export interface ToolRoutesOptions {
  tools: ReadonlyMap<string, Tool>;
  unkeyed: UnkeyedCalls;
  /** The tool tokens accepted (checked already: `acceptedTokens`). */
  tokens: readonly string[];
  /** The largest body accepted, in bytes. */
  maxBodyBytes: number;
  /** The access log and tracer of tool calls, if any. */
  telemetry: CallTelemetry | undefined;
  /** Admits each call within its caller's (tool token's) limits, if there are any. */
  limiter?: CallLimiter;
}

/** The plain JSON API (see `createApp`), for the router and for the app to call directly. */
export interface ToolRoutes {
  /** `GET /tools` and `POST /tools/:name`, behind the token check and the body cap. */
  readonly routes: Hono;
  /** Runs `tool` on the request's body for the caller bearing `token`, which was accepted. */
  call(request: Request, tool: Tool, token: string): Promise<Response>;
}

/** `GET /tools` and `POST /tools/:name`: the plain JSON API (see `createApp`). */
export function toolRoutes(
  { tools, unkeyed, tokens, maxBodyBytes, telemetry, limiter }: ToolRoutesOptions,
): ToolRoutes {
  /** Runs `tool` on the request's body for the caller bearing `token`, which was accepted. */
  async function call(request: Request, tool: Tool, token: string): Promise<Response> {
    const ctx = contextIds(request.headers);
    if (typeof ctx === "string") return problem(400, ctx);
    const input = await readJson(request);
    if (input instanceof Response) return input;
    // A call with a tool-call id is durable (a retry with the id re-attaches to it, e.g. to a
    // pending ask_human question), so a dropped connection (a proxy's idle timeout, a client's
    // own retry) must not withdraw it. Without an id nobody could re-attach: the drop aborts it.
    const controller = ctx.toolCallId === undefined ? new AbortController() : undefined;
    const tracked = controller && unkeyed.begin(controller);
    if (controller) ctx.signal = controller.signal;
    let gone = false;
    const run = (ctx: ToolContext) => tool.execute(input, ctx);
    try {
      const calling = observeCall(
        telemetry,
        tool.name,
        ctx,
        limiter ? (ctx) => limitCall(limiter, token, () => run(ctx)) : run,
      );
      const text = await (controller
        ? unlessAtOnce(calling, () => {
          const { signal } = request;
          const leave = () => {
            gone = true;
            controller.abort(signal.reason);
          };
          if (signal.aborted) leave();
          else signal.addEventListener("abort", leave, { once: true });
        })
        : calling);
      return Response.json({ text });
    } catch (error) {
      // The caller hung up and the call was aborted: nobody reads this, and nothing failed.
      if (gone) return problem(499, "The client closed the request.");
      if (unkeyed.stopping) return problem(503, "The service is stopping.", "Try again later.");
      if (error instanceof ToolError) return toolProblem(error);
      throw error;
    } finally {
      if (tracked) unkeyed.end(tracked);
    }
  }

  const auth = requireToken(tokens);
  const routes = new Hono();
  routes.get("/tools", auth, () =>
    Response.json({
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    }));
  routes.post("/tools/:name", auth, bodyCap(maxBodyBytes), (c) => {
    const name = c.req.param("name");
    const found = tools.get(name);
    if (!found) {
      const error = unknownTool(name, tools.keys());
      return problem(404, error.message, error.hint);
    }
    return call(c.req.raw, found, bearerOf(c.req.raw));
  });

  return {
    routes,
    call,
  };
}
