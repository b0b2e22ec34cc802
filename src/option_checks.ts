/**
 * Checks of the options a program passes when it sets a tool, reader or service up: each kind of
 * option is a test and one wording, so that every "`name` must be a positive integer" reads the
 * same wherever it is thrown. A bad option is a `SetupError`, thrown at set-up. Plain tests, not
 * schemas: what checks only its options (the HTML converter) then bundles no schema library.
 *
 * @module
 */

import { MAX_TIMER_MS } from "./clock.ts";
import { SetupError } from "./errors.ts";
import { clipLine } from "./fence.ts";
import { describeValue } from "./validation.ts";

/** What an option must be: a test that accepts it, and the words that say so. */
export interface OptionKind<T> {
  readonly accepts: (value: unknown) => value is T;
  /** Completes "`name` must be …", e.g. "a positive integer". */
  readonly expected: string;
}

function kind<T>(accepts: (value: unknown) => boolean, expected: string): OptionKind<T> {
  return { accepts: accepts as (value: unknown) => value is T, expected };
}

/** A finite number from `min` to `max`; above `min` only when `open`. */
function numberIn(value: unknown, min: number, max: number, open = false): boolean {
  return typeof value === "number" && Number.isFinite(value) && value <= max &&
    (open ? value > min : value >= min);
}

/** A safe integer of at least 1. */
export const positiveInteger: OptionKind<number> = kind(
  (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  "a positive integer",
);

/** A finite number above 0. */
export const positiveNumber: OptionKind<number> = kind(
  (value) => numberIn(value, 0, Infinity, true),
  "a positive number",
);

/** A number of 0 or more, `Infinity` included (a time to live that never ends, say). */
export const nonNegativeNumber: OptionKind<number> = kind(
  (value) => typeof value === "number" && value >= 0,
  "a number ≥ 0",
);

/** A pause a timer can wait: from 0 to {@linkcode MAX_TIMER_MS}. */
export const delayMs: OptionKind<number> = kind(
  (value) => numberIn(value, 0, MAX_TIMER_MS),
  `a number of milliseconds from 0 to ${MAX_TIMER_MS}`,
);

/** `true` or `false`. */
export const flag: OptionKind<boolean> = kind(
  (value) => typeof value === "boolean",
  "true or false",
);

/** A string with something besides whitespace. */
export const nonEmptyString: OptionKind<string> = kind(
  (value) => typeof value === "string" && value.trim() !== "",
  "a non-empty string",
);

/** A safe integer of at least `min`. */
export function integerAtLeast(min: number): OptionKind<number> {
  return kind(
    (value) => Number.isSafeInteger(value) && (value as number) >= min,
    `an integer of at least ${min}`,
  );
}

/** A time limit a timer can keep: above 0 and at most `max` milliseconds. */
export function timeoutMs(max = MAX_TIMER_MS): OptionKind<number> {
  return kind(
    (value) => numberIn(value, 0, max, true),
    `a positive number of milliseconds up to ${max}`,
  );
}

/** One of a few strings. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
): OptionKind<T[number]> {
  const quoted = values.map((value) => JSON.stringify(value));
  const listed = quoted.length === 1
    ? quoted[0]
    : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  return kind((value) => (values as readonly unknown[]).includes(value), listed);
}

/** A function; `what` says which, e.g. "from a host name to its addresses". */
export function aFunction<F>(what: string): OptionKind<F> {
  return kind((value) => typeof value === "function", `a function ${what}`);
}

/**
 * An object with the named methods, i.e. an implementation of the seam `seam`, described as
 * `methods` says (e.g. "async get(key) and set(key, entry)").
 */
export function implementing<T>(
  seam: string,
  names: readonly string[],
  methods: string,
): OptionKind<T> {
  return kind(
    (value) =>
      typeof value === "object" && value !== null &&
      names.every((name) => typeof (value as Record<string, unknown>)[name] === "function"),
    `a ${seam}, with ${methods}`,
  );
}

/**
 * Returns `value` if it is of `kind`; else throws a `SetupError` "`name` must be …, not …", with
 * `hint` when given.
 */
export function checkOption<T>(
  name: string,
  value: unknown,
  kind: OptionKind<T>,
  hint?: string,
): T {
  const problem = optionProblem(name, value, kind);
  if (problem === undefined) return value as T;
  throw new SetupError(problem, hint === undefined ? undefined : { hint });
}

/** The sentence "`name` must be …, not …." for a `value` not of `kind`; else `undefined`. */
export function optionProblem(
  name: string,
  value: unknown,
  kind: OptionKind<unknown>,
): string | undefined {
  if (kind.accepts(value)) return undefined;
  return `${name} must be ${kind.expected}, not ${shown(value)}.`;
}

/** A bad option as the message quotes it: a short value itself, else its kind. */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clipLine(value, 40));
  if (value === null || typeof value !== "object" && typeof value !== "function") {
    return String(value);
  }
  return typeof value === "function" ? "a function" : describeValue(value);
}
