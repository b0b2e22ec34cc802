import { ToolError } from "../errors.ts";

/**
 * How many tool calls one caller (a tool token) may make: a rate and a number running at once.
 * Either may be left out for no limit of that kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CallLimits } from "@outpost/agent-tools/http";
 * // 60 calls a minute (a burst of up to 60, then one a second), at most 4 at once.
 * const limits: CallLimits = { rate: { calls: 60, periodMs: 60_000 }, concurrency: 4 };
 * assert.equal(limits.rate!.periodMs / limits.rate!.calls, 1_000);
 * ```
 */
export interface CallLimits {
  /**
   * At most `calls` tool calls per `periodMs`: a bucket of `calls` that refills steadily over
   * `periodMs`, so a caller may spend it in one burst and then gets one call per
   * `periodMs / calls`.
   */
  rate?: { calls: number; periodMs: number };
  /** At most this many tool calls running at once. */
  concurrency?: number;
}

/**
 * Admits or refuses tool calls per caller: the seam behind `createApp`'s `limiter`, with one
 * implementation per runtime (in memory per instance: {@linkcode MemoryCallLimiter}; on the
 * Worker, Cloudflare's rate-limiting binding or the tenant's Durable Object).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolError } from "@outpost/agent-tools";
 * import type { CallLimiter } from "@outpost/agent-tools/http";
 * // A limiter that refuses every call, as an over-limit caller is refused.
 * const closed: CallLimiter = {
 *   acquire: () => Promise.reject(new ToolError("Too many tool calls.", { code: "rate_limited" })),
 * };
 * await assert.rejects(closed.acquire("token"), { code: "rate_limited" });
 * ```
 */
export interface CallLimiter {
  /**
   * Admits one tool call of the caller `key` (the tool token it presented) and resolves to the
   * function that ends it, to call (and await) once when the call ends; a second call does
   * nothing. Or it
   * rejects with a `ToolError` of code `rate_limited`, whose `retryAfterMs` says when a call
   * will be admitted, where that is known.
   */
  acquire(key: string): Promise<() => void | Promise<void>>;
}

/** Runs a tool call within the caller's limits (the app binds a limiter to the caller). */
export type Admit = <T>(run: () => Promise<T>) => Promise<T>;

/** Runs `run` as one call of `key` admitted by `limiter`, ending it however `run` ends. */
export async function limitCall<T>(
  limiter: CallLimiter,
  key: string,
  run: () => Promise<T>,
): Promise<T> {
  const release = await limiter.acquire(key);
  try {
    return await run();
  } finally {
    await release();
  }
}

/** The refusal of a call over the rate: `retryAfterMs` until the next call is admitted. */
export function rateExceeded(
  rate: NonNullable<CallLimits["rate"]>,
  retryAfterMs: number,
): ToolError {
  return new ToolError(
    `Too many tool calls: this caller may make ${rate.calls} per ${period(rate.periodMs)}.`,
    {
      code: "rate_limited",
      hint: `Try again in ${Math.ceil(retryAfterMs / 1000)} s.`,
      retryAfterMs,
    },
  );
}

/** The refusal of a call over the concurrency limit; when a slot frees is not known. */
export function tooManyRunning(concurrency: number): ToolError {
  return new ToolError(
    `Too many tool calls at once: this caller may run ${concurrency} at a time.`,
    { code: "rate_limited", hint: "Wait for one of its calls to end, then try again." },
  );
}

function period(ms: number): string {
  return ms === 1000 ? "second" : ms === 60_000 ? "minute" : ms === 3_600_000 ? "hour" : `${ms} ms`;
}
