import type { MiddlewareHandler } from "hono";
import { SetupError } from "../errors.ts";
import { sha256 } from "../sha256.ts";
import { problem } from "./problems.ts";

/** A bearer-token check that takes the same time whatever the presented token is. */
interface TokenCheck {
  /** Whether the request's `Authorization: Bearer …` header carries the token. */
  permits(request: Request): Promise<boolean>;
}

/**
 * Builds a check for one token. Both sides are hashed first, so the comparison runs over equal
 * lengths and leaks neither the token's length nor how much of a guess matched.
 */
function bearerCheck(token: string): TokenCheck {
  const expected = sha256(token);
  return {
    async permits(request: Request): Promise<boolean> {
      const header = request.headers.get("authorization") ?? "";
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      const presented = await sha256(match?.[1] ?? "");
      const wanted = await expected;
      let difference = match ? 0 : 1;
      for (let i = 0; i < wanted.length; i++) difference |= wanted[i] ^ presented[i];
      return difference === 0;
    },
  };
}

const MIN_TOKEN_LENGTH = 16;

/**
 * The middleware that lets through requests bearing `token` (checked as a set-up option named
 * `auth.<name>`: at least 16 characters, no spaces) and answers others 401.
 */
export function requireToken(token: unknown, name: string): MiddlewareHandler {
  if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new SetupError(
      `auth.${name} must be a string of at least ${MIN_TOKEN_LENGTH} characters without spaces.`,
      { hint: "Generate one, e.g. with crypto.randomUUID()." },
    );
  }
  const check = bearerCheck(token);
  return async (c, next) => {
    if (!(await check.permits(c.req.raw))) {
      const response = problem(401, "Missing or wrong bearer token.");
      response.headers.set("www-authenticate", 'Bearer realm="outpost"');
      return response;
    }
    await next();
  };
}
