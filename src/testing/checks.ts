/**
 * The few assertions the contract suites make: they run on any runtime and test runner, so they
 * bring their own, on web APIs only. A failure is a {@linkcode ContractViolation}.
 *
 * @module
 */

/** A broken contract: what was expected, and what the implementation did. */
export class ContractViolation extends Error {
  /** `"ContractViolation"`, as a test runner shows it. */
  override name = "ContractViolation";
}

/** Fails the case with `message`. */
export function fail(message: string): never {
  throw new ContractViolation(message);
}

/** Fails unless `actual` equals `expected` in every field, as plain data. */
export function same(actual: unknown, expected: unknown, what: string): void {
  if (!isSame(actual, expected)) {
    fail(`${what}: expected ${preview(expected)}, got ${preview(actual)}`);
  }
}

/** Whether `a` and `b` are equal as plain data: the same own fields, recursively. */
export function isSame(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length &&
    keysA.every((key) =>
      Object.hasOwn(b, key) &&
      isSame((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
    );
}

/** A value shown briefly: large pages would flood the failure message. */
export function preview(value: unknown): string {
  const shown = JSON.stringify(
    value,
    (_, v) =>
      typeof v === "string" && v.length > 60
        ? `${v.slice(0, 40)}… (${v.length} characters)`
        : v === undefined
        ? "undefined"
        : v,
  );
  return shown ?? String(value);
}

/** Fails unless `call` returns a promise that rejects with an Error whose message matches. */
export async function refused(
  call: () => Promise<unknown>,
  message: RegExp,
  what: string,
): Promise<void> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    return fail(`${what}: threw at once instead of rejecting: ${error}`);
  }
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof Error) || !message.test(error.message)) {
      fail(`${what}: rejected with ${error}, which does not name ${message}`);
    }
    return;
  }
  fail(`${what}: was accepted, but must be refused`);
}
