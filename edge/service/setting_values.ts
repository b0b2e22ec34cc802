import { SetupError } from "../../src/errors.ts";
import type { CallLimits } from "../../src/http/call_limiter.ts";
import { checkOption, positiveInteger, timeoutMs } from "../../src/option_checks.ts";

/**
 * Parses a timeout in milliseconds: a positive whole number up to 2^31 - 1 (the longest timer),
 * or throws a `SetupError` naming `source` (a variable or flag).
 */
export function parseTimeout(value: string, source: string): number {
  return checkOption(source, digits(value), timeoutMs());
}

/**
 * Parses a rate such as `60/min`: a positive whole number of calls per `s`, `min` or `h`, or per
 * a number of them (`100/10s`); or throws a `SetupError` naming `source`.
 */
export function parseRate(value: string, source: string): NonNullable<CallLimits["rate"]> {
  const [, calls, count, unit] = /^(\d+) *\/ *(\d*) *(s|min|h)$/.exec(value) ?? [];
  const periodMs = Number(count || 1) *
    (unit === "s" ? 1000 : unit === "min" ? 60_000 : 3_600_000);
  // The limiter counts in calls × milliseconds: that product must stay exact.
  if (
    !unit || !(Number(calls) > 0) || !(periodMs > 0) ||
    !Number.isSafeInteger(Number(calls) * periodMs)
  ) {
    const shown = JSON.stringify(value.slice(0, 40));
    throw new SetupError(
      `${source} must be a number of calls per period such as 60/min, not ${shown}.`,
      {
        hint: "Periods: s, min or h, or a number of them, as in 100/10s.",
      },
    );
  }
  return { calls: Number(calls), periodMs };
}

/** Parses a positive whole number, or throws a `SetupError` naming `source` (a variable or flag). */
export function parseCount(value: string, source: string): number {
  return checkOption(source, digits(value), positiveInteger);
}

/** Digits as their number, for the option checks; other text stays text, which they refuse. */
function digits(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}
