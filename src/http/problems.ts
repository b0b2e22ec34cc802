import type { ToolError } from "../errors.ts";

// The app's error answers: `{ error, hint? }` with a status, and a tool's failure with its code.

/** A JSON error answer: `{ error, hint? }` with `status`. */
export function problem(status: number, error: string, hint?: string): Response {
  return Response.json(hint === undefined ? { error } : { error, hint }, { status });
}

/**
 * A tool's failure, with its code for the host: invalid input is the caller's 400; a rate limit
 * (a backend's, or a full question channel) is 429 with `Retry-After` in whole seconds, rounded up,
 * when the wait is known; any other failure the model should hear about is 422.
 */
export function toolProblem(error: ToolError): Response {
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
