import type { MiddlewareHandler } from "hono";
import { problem } from "./problems.ts";

// Request bodies: capped in size, read as one JSON object, and a hang-up midway told apart.

/**
 * The middleware that refuses a body over `maxBodyBytes` with 413. A body without a length is
 * read here, before the route: a hang-up midway ends it as aborted.
 */
export function bodyCap(maxBodyBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const length = declaredLength(c.req.raw.headers);
    if (length !== undefined) {
      return length > maxBodyBytes ? tooLarge(maxBodyBytes) : await next();
    }
    const reader = c.req.raw.body?.getReader();
    if (!reader) return await next();
    // Counted as it comes, then handed on whole: a body of unknown length is read before the
    // route, and a hang-up midway ends it as aborted.
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    let size = 0;
    try {
      for (let read; !(read = await reader.read()).done;) {
        if ((size += read.value.length) > maxBodyBytes) {
          reader.cancel().catch(() => {});
          return tooLarge(maxBodyBytes);
        }
        chunks.push(read.value);
      }
    } catch {
      return bodyBroken();
    }
    c.req.raw = new Request(c.req.raw, { body: new Blob(chunks) });
    return await next();
  };
}

/**
 * The length a request declares for its body, which is checked from the header alone (touching
 * `body` first would make the runtime build a stream that the route then reads more slowly than
 * the whole body at once); `undefined` when it declares none, and the body must be counted as it
 * is read.
 */
export function declaredLength(headers: Headers): number | undefined {
  const length = headers.get("content-length");
  // `get`, not `has`: on a request Deno serves, `has` copies out every header; `get` reads one.
  return length === null || headers.get("transfer-encoding") !== null
    ? undefined
    : parseInt(length, 10);
}

/** The 413 answer to a body over `maxBodyBytes`. */
export function tooLarge(maxBodyBytes: number): Response {
  return problem(413, `The request body is larger than ${maxBodyBytes} bytes.`);
}

/** The body's JSON object, `{}` for an empty body, or a 400 (499 for a hang-up) response. */
export async function readJson(request: Request): Promise<Record<string, unknown> | Response> {
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
