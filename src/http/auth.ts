import type { MiddlewareHandler } from "hono";
import { SetupError } from "../errors.ts";
import { problem } from "./problems.ts";

/** The token of a request's `Authorization: Bearer …` header, or `""`. */
export function bearerOf(request: Request): string {
  const header = request.headers.get("authorization") ?? "";
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1] ?? "";
}

/**
 * Whether `presented` is `token`, in a time that depends on neither how much of a guess matched
 * nor its length: every character of the token is compared, whatever was presented. (Hashing
 * both sides first would do the same at the cost of a `crypto.subtle.digest` per request, a
 * sixth of the service's time under load.)
 */
export function sameToken(token: string, presented: string): boolean {
  let difference = presented.length ^ token.length;
  // Past the end of `presented`, charCodeAt is NaN, which `| 0` makes 0: still a mismatch.
  for (let i = 0; i < token.length; i++) {
    difference |= token.charCodeAt(i) ^ (presented.charCodeAt(i) | 0);
  }
  return difference === 0;
}

/**
 * Whether `presented` is one of `tokens`. Every token is compared in full, so the time tells
 * neither which one matched nor whether any did.
 */
export function oneOfTokens(tokens: readonly string[], presented: string): boolean {
  let found = false;
  for (const token of tokens) found = sameToken(token, presented) || found;
  return found;
}

const MIN_TOKEN_LENGTH = 16;

/**
 * The tokens a set-up option (`auth.<name>`) gives, one or several, checked: at least 16
 * characters each, no spaces. Throws `SetupError` otherwise.
 */
export function acceptedTokens(token: unknown, name: string): readonly string[] {
  const tokens = Array.isArray(token) && token.length > 0 ? token as unknown[] : [token];
  for (const each of tokens) {
    if (typeof each !== "string" || each.length < MIN_TOKEN_LENGTH || /\s/.test(each)) {
      throw new SetupError(
        `auth.${name} must be a string of at least ${MIN_TOKEN_LENGTH} characters without ` +
          "spaces, or a non-empty array of such.",
        { hint: "Generate one, e.g. with crypto.randomUUID()." },
      );
    }
  }
  return tokens as string[];
}

/** The answer to a request bearing none of the tokens a route accepts. */
export function unauthorized(): Response {
  const response = problem(401, "Missing or wrong bearer token.");
  response.headers.set("www-authenticate", 'Bearer realm="outpost"');
  return response;
}

/**
 * The middleware that lets through requests bearing one of `tokens` (see
 * {@linkcode acceptedTokens}) and answers others 401.
 */
export function requireToken(tokens: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    if (!oneOfTokens(tokens, bearerOf(c.req.raw))) return unauthorized();
    await next();
  };
}
