import { disarm } from "../fence.ts";
import { ToolError, UserError } from "../tool.ts";

/** Checks a backend's `endpoint` option: an absolute http(s) URL, or the default. */
export function parseEndpoint(value: string | undefined, fallback: string, backend: string): URL {
  if (value === undefined) return new URL(fallback);
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UserError(
      `${backend} endpoint ${JSON.stringify(value)} is not an absolute http(s) URL.`,
      {
        hint: `Pass a URL such as ${JSON.stringify(fallback)}, or omit \`endpoint\`.`,
      },
    );
  }
  return url;
}

/** Checks a pause option in milliseconds: a finite number, zero or more. */
export function parseDelay(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new UserError(`${option} must be a number of milliseconds, zero or more.`);
  }
  return value;
}

/**
 * The error for a request that never got an answer. An abort is passed on untouched, so the
 * caller sees its own reason.
 */
export function unreachable(
  service: string,
  endpoint: URL,
  error: unknown,
  signal: AbortSignal | undefined,
): unknown {
  if (signal?.aborted) return signal.reason;
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolError(`Could not reach ${service} at ${endpoint.host}: ${reason}`, {
    hint: "This is a network problem, not a problem with the query; try again in a moment.",
    cause: error,
  });
}

/** A third party's error text made safe and short enough to quote in one of our messages. */
export function quote(text: string, limit = 300): string {
  const flat = disarm(text).replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

/** Whether `value` parses as an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const protocol = new URL(value).protocol;
  return protocol === "http:" || protocol === "https:";
}
