/**
 * What kind of failure a {@linkcode ToolError} is, for a host that decides in code what to do
 * next (back off, switch backend, ask the user) without parsing the message:
 *
 * - `invalid_input`: the arguments do not match the tool's input schema;
 * - `policy_refused`: a domain policy, robots.txt or an approval rule refused the call;
 * - `private_address`: the address guard refused a private, local or reserved address;
 * - `rate_limited`: a backend asked us to slow down (`retryAfterMs` says for how long, when known);
 * - `timeout`: the call or one of its requests ran out of time;
 * - `unreachable`: the host could not be resolved or connected to;
 * - `http_error`: the server answered with an error status (`status` holds it);
 * - `unsupported_content`: the page is of a kind the tool does not read;
 * - `denied`: a person declined (an approval or a question was refused or cancelled);
 * - `unavailable`: a backend or channel cannot serve the call now;
 * - `failed`: any other failure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolError, type ToolErrorCode } from "@outpost/agent-tools";
 * const code: ToolErrorCode = new ToolError("Slow down.", { code: "rate_limited" }).code;
 * assert.equal(code, "rate_limited");
 * ```
 */
export type ToolErrorCode =
  | "invalid_input"
  | "policy_refused"
  | "private_address"
  | "rate_limited"
  | "timeout"
  | "unreachable"
  | "http_error"
  | "unsupported_content"
  | "denied"
  | "unavailable"
  | "failed";

/**
 * Options of {@linkcode ToolError} and {@linkcode SetupError}: a hint on what to do, the
 * underlying error, and what a host can act on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolError, type ToolErrorOptions } from "@outpost/agent-tools";
 * const options: ToolErrorOptions = { hint: "Try again in a minute.", code: "unavailable", status: 503 };
 * const error = new ToolError("The search backend is unavailable.", options);
 * assert.deepEqual([error.code, error.status, error.retryAfterMs], ["unavailable", 503, undefined]);
 * ```
 */
export interface ToolErrorOptions {
  /** What to do about it, shown after the message. */
  hint?: string;
  /** The underlying error. */
  cause?: unknown;
  /** What kind of failure it is (default `failed`; `invalid_input` for {@linkcode InvalidInputError}). */
  code?: ToolErrorCode;
  /** The HTTP status that caused it, when one did. */
  status?: number;
  /** How long the backend asked us to wait before trying again, when it said. */
  retryAfterMs?: number;
}

// The classes' identity lives on each instance under a registry-wide symbol, so that an error
// thrown by a second copy of the package (two versions in one dependency graph) is still
// recognised by `instanceof` and `isInstance`, and keeps its hint and code.
const KINDS = Symbol.for("@outpost/agent-tools/error-kinds");

/**
 * The base of this package's errors ({@linkcode ToolError}, {@linkcode InvalidInputError},
 * {@linkcode SetupError}). Its identity survives a second copy of the package in one program:
 * `instanceof` on any of these classes checks a registry-wide mark each error carries, not the
 * prototype chain, so an error thrown by another version of the package is still recognised.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutpostError, SetupError, ToolError } from "@outpost/agent-tools";
 * assert.ok(new ToolError("Gone.") instanceof OutpostError);
 * assert.ok(new SetupError("No key.") instanceof OutpostError);
 * assert.ok(!(new Error("x") instanceof OutpostError));
 * ```
 */
export abstract class OutpostError extends Error {
  /**
   * The class's name as every copy of the package spells it; a subclass of ours gives its own,
   * and a subclass without one is judged by its prototype chain.
   */
  static readonly kind: string = "OutpostError";

  /** Whether `value` is an instance of this class, from any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass a user wrote without a kind of its own is judged by the prototype chain.
    if (!Object.hasOwn(this, "kind")) {
      return Function.prototype[Symbol.hasInstance].call(this, value);
    }
    const kinds = typeof value === "object" && value !== null
      ? (value as { [KINDS]?: unknown })[KINDS]
      : undefined;
    return Array.isArray(kinds) && kinds.includes((this as { kind: string }).kind);
  }

  /** Creates an error marked with the kinds of its class and its ancestors. */
  constructor(message: string, cause: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    const kinds: string[] = [];
    for (let c: unknown = new.target; c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c as object, "kind")) kinds.push((c as { kind: string }).kind);
    }
    Object.defineProperty(this, KINDS, { value: Object.freeze(kinds) });
  }
}

/**
 * A failure the model should see and route around, such as an unreachable host or a bad
 * argument. Its message and hint are written for the model; its `code`, `status` and
 * `retryAfterMs` are for the host. `instanceof ToolError` and {@linkcode ToolError.isInstance}
 * recognise a `ToolError` from any copy of this package.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolError } from "@outpost/agent-tools";
 * function checkStatus(status: number): void {
 *   if (status === 404) {
 *     throw new ToolError("The page returned HTTP 404.", { hint: "Check the URL.", code: "http_error", status });
 *   }
 * }
 * assert.throws(() => checkStatus(404), (e) => ToolError.isInstance(e) && e.status === 404);
 * ```
 */
export class ToolError extends OutpostError {
  /** The class's name as every copy of the package spells it. */
  static override readonly kind: string = "ToolError";
  /** What the model can do about it. */
  readonly hint?: string;
  /** What kind of failure it is. */
  readonly code: ToolErrorCode;
  /** The HTTP status that caused it, when one did. */
  readonly status?: number;
  /** How long the backend asked us to wait before trying again, when it said. */
  readonly retryAfterMs?: number;

  /** Creates a model-visible failure with an optional hint and what a host can act on. */
  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause);
    this.name = "ToolError";
    this.code = options.code ?? "failed";
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /**
   * Whether `value` is a `ToolError` (or a subclass) from any copy of this package; the same as
   * `instanceof`, and narrows the type.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { InvalidInputError, ToolError } from "@outpost/agent-tools";
   * assert.ok(ToolError.isInstance(new InvalidInputError("Bad.")));
   * assert.ok(!ToolError.isInstance(new Error("Bad.")));
   * ```
   */
  static isInstance(value: unknown): value is ToolError {
    return value instanceof ToolError;
  }
}

/**
 * A {@linkcode ToolError} for arguments that do not match the tool's input schema, so that
 * callers such as the HTTP front can tell "bad request" from "the tool failed". Its code is
 * `invalid_input`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InvalidInputError, now } from "@outpost/agent-tools";
 * await assert.rejects(now.execute({ tz: 42 }), InvalidInputError);
 * ```
 */
export class InvalidInputError extends ToolError {
  /** The class's name as every copy of the package spells it. */
  static override readonly kind: string = "InvalidInputError";

  /** Creates an invalid-input failure with an optional hint. */
  constructor(message: string, options: Omit<ToolErrorOptions, "code"> = {}) {
    super(message, { ...options, code: "invalid_input" });
    this.name = "InvalidInputError";
  }
}

/**
 * A set-up mistake made by the developer, thrown when a tool or backend is constructed,
 * never during a model's call. `instanceof SetupError` and {@linkcode SetupError.isInstance}
 * recognise one from any copy of this package.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SetupError } from "@outpost/agent-tools";
 * function requireKey(apiKey: string | undefined): string {
 *   if (!apiKey) throw new SetupError("apiKey is required.", { hint: "Pass { apiKey } or set TAVILY_API_KEY." });
 *   return apiKey;
 * }
 * assert.throws(() => requireKey(undefined), SetupError);
 * ```
 */
export class SetupError extends OutpostError {
  /** The class's name as every copy of the package spells it. */
  static override readonly kind: string = "SetupError";
  /** How to fix the set-up. */
  readonly hint?: string;

  /** Creates a set-up error with an optional hint. */
  constructor(message: string, options: Pick<ToolErrorOptions, "hint" | "cause"> = {}) {
    super(message, options.cause);
    this.name = "SetupError";
    if (options.hint !== undefined) this.hint = options.hint;
  }

  /**
   * Whether `value` is a `SetupError` from any copy of this package; the same as `instanceof`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SetupError } from "@outpost/agent-tools";
   * assert.ok(SetupError.isInstance(new SetupError("Missing key.")));
   * ```
   */
  static isInstance(value: unknown): value is SetupError {
    return value instanceof SetupError;
  }
}
