import { clipLine, quoteText, quoteValue, showUrl } from "../fence.ts";
import { InvalidInputError, ToolError } from "../errors.ts";

// How HttpReader words its failures: the URL the model gave, clipped; hosts only for the rest.

/** The longest URL quoted in an error, in characters. */
export const MAX_URL_SHOWN = 300;

/** Parses a URL the model gave; only absolute http(s) URLs pass. */
export function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new InvalidInputError(`Malformed URL: ${quoteValue(url)}.`, {
      hint: "Pass an absolute URL such as https://example.com/page.",
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidInputError(
      `Unsupported URL scheme ${quoteValue(parsed.protocol, 40)} in ${
        showUrl(parsed.href, MAX_URL_SHOWN)
      }.`,
      {
        hint: "Only http:// and https:// URLs can be fetched.",
      },
    );
  }
  return parsed;
}

/** The read of `target` ran out of its `timeoutMs`. */
export function timedOut(target: URL, timeoutMs: number): ToolError {
  return new ToolError(
    `Timed out after ${timeoutMs / 1000} s reading ${showUrl(target.href, MAX_URL_SHOWN)}.`,
    {
      hint: "The server is slow or not answering; try again later or try another source.",
      code: "timeout",
    },
  );
}

/** The read of `target` broke off for a reason that is not ours to word. */
export function readFailed(target: URL, error: unknown): ToolError {
  return new ToolError(
    `Reading ${showUrl(target.href, MAX_URL_SHOWN)} failed: ${quoteText(describe(error))}.`,
    {
      hint: "The connection broke off; try again later.",
      cause: error,
    },
  );
}

/** No connection to `url`'s host, said in our words from the runtime's. */
export function unreachable(url: URL, cause: unknown): ToolError {
  const message = describe(cause);
  const reason = /dns|lookup|resolve|getaddrinfo|name or service|nodename/i.test(message)
    ? "the name does not resolve"
    : /refused/i.test(message)
    ? "the connection was refused"
    : /certificate|tls|ssl|handshake/i.test(message)
    ? "the secure connection failed"
    : /reset|closed|broken pipe|eof/i.test(message)
    ? "the connection was dropped"
    : "the connection failed";
  return new ToolError(`Could not reach ${clipLine(url.host, MAX_URL_SHOWN)}: ${reason}.`, {
    hint: "Check the URL for typos, or try again later; the site may be down.",
    code: "unreachable",
    cause,
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
