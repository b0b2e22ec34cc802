import { sha256 } from "../sha256.ts";

/** A bearer-token check that takes the same time whatever the presented token is. */
export interface TokenCheck {
  /** Whether the request's `Authorization: Bearer …` header carries the token. */
  permits(request: Request): Promise<boolean>;
}

/**
 * Builds a check for one token. Both sides are hashed first, so the comparison runs over equal
 * lengths and leaks neither the token's length nor how much of a guess matched.
 */
export function bearerCheck(token: string): TokenCheck {
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
