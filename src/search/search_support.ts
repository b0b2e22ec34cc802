import { quoteText, stripInvisible } from "../fence.ts";
import { readEnv } from "../env.ts";
import { checkOption, delayMs } from "../option_checks.ts";
import { SetupError, ToolError } from "../errors.ts";

// Helpers the web_search tool and its backends share: option checks, transport errors, and
// making third-party text safe to show.

/** Checks a backend's `endpoint` option: an absolute http(s) URL, or the default. */
export function parseEndpoint(value: string | undefined, fallback: string, backend: string): URL {
  if (value === undefined) return new URL(fallback);
  if (!isHttpUrl(value)) {
    throw new SetupError(
      `${backend} endpoint ${JSON.stringify(value)} is not an absolute http(s) URL.`,
      {
        hint: `Pass a URL such as ${JSON.stringify(fallback)}, or omit \`endpoint\`.`,
      },
    );
  }
  return new URL(value);
}

/**
 * A keyed backend's API key: `value`, else the environment variable `variable` where the runtime
 * has one. Throws {@linkcode SetupError} naming both when neither holds a key.
 */
export function apiKeyOf(value: string | undefined, variable: string, backend: string): string {
  const key = (value ?? readEnv(variable))?.trim();
  if (!key) {
    throw new SetupError(`${backend} needs an API key.`, {
      hint:
        `Pass { apiKey } (on Workers, from the binding) or set the ${variable} environment variable.`,
    });
  }
  return key;
}

/** Checks a pause option in milliseconds: a finite number from zero to the longest timer. */
export function parseDelay(value: number | undefined, fallback: number, option: string): number {
  return value === undefined ? fallback : checkOption(option, value, delayMs);
}

/**
 * The error for a request whose connection failed: before any answer, or (`midAnswer`) while
 * the answer was arriving. An abort is passed on untouched, so the caller sees its own reason.
 */
export function transportError(
  service: string,
  endpoint: URL,
  error: unknown,
  signal: AbortSignal | undefined,
  midAnswer = false,
): unknown {
  if (signal?.aborted) return signal.reason;
  const reason = error instanceof Error ? error.message : String(error);
  const what = midAnswer
    ? `The connection to ${service} at ${endpoint.host} broke off while the answer arrived`
    : `Could not reach ${service} at ${endpoint.host}`;
  return new ToolError(`${what}: ${quoteText(reason)}`, {
    hint: "This is a network problem, not a problem with the query; try again in a moment.",
    // Once the answer has begun, the host was reached: the failure is the transfer's.
    code: midAnswer ? "failed" : "unreachable",
    cause: error,
  });
}

/**
 * Runs of whitespace, line breaks included, as one space, so text stays on one line; invisible
 * characters go first, as the fence would drop them, so text of nothing else counts as empty.
 */
export function oneLine(text: string): string {
  return stripInvisible(text).replace(/\s+/g, " ").trim();
}

/** A third party's error text made safe and short enough to quote in one of our messages. */
export { quoteText as quote };

/** Whether `value` parses as an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const protocol = new URL(value).protocol;
  return protocol === "http:" || protocol === "https:";
}
