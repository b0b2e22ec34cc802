import { type Clock, systemClock } from "../../src/clock.ts";
import { ToolError } from "../../src/errors.ts";
import { type CallLimiter, type CallLimits, rateExceeded } from "../../src/http/call_limiter.ts";
import { MemoryCallLimiter } from "../../src/http/memory_call_limiter.ts";
import type { DurableObjectNamespaceLike } from "./question_channel_options.ts";

// The Worker's call limits. Its isolates share no memory, so calls are counted where one place
// sees every call of a tenant: Cloudflare's rate-limiting binding for the rate, where the Worker
// has one, and the tenant's Durable Object (the one holding its questions) for the rest.

/** Cloudflare's rate-limiting binding (`ratelimits` in `wrangler.jsonc`). */
export interface RateLimitBindingLike {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The path of the object's requests that count calls (its others are channel operations). */
export const CALLS_URL = "https://calls/";

/**
 * What the Worker asks the tenant's object: admit call `id` of the caller `key` within `limits`
 * for at most `leaseMs`, or, without limits, end it.
 */
export interface CountCall {
  id: string;
  key?: string;
  limits?: CallLimits;
  leaseMs?: number;
}

/**
 * Each token's key, its digest: no token leaves the Worker. Kept per isolate, as text (a promise
 * made in one request must not be awaited in another); only tokens that passed the check get one.
 */
const keys = new Map<string, string>();

async function keyOf(token: string): Promise<string> {
  let key = keys.get(token);
  if (key === undefined) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
    keys.set(token, key = btoa(String.fromCharCode(...new Uint8Array(digest))));
  }
  return key;
}

/** Why the object refused a call: the `ToolError`'s words and wait. */
export type Refusal = { message: string; hint?: string; retryAfterMs?: number } | null;

/**
 * The Worker's {@linkcode CallLimiter} for `tenant`, per tool token: the rate through `binding` where given
 * (counted per Cloudflare location over the binding's own period, which `limits.rate` should
 * repeat: `Retry-After` is that whole period, the binding telling no less), else in the tenant's
 * object, where the concurrency is counted too. A call holds its slot at most `leaseMs` (longer
 * than any call runs), should its Worker die before ending it.
 */
export function workerCallLimiter(
  limits: CallLimits,
  namespace: DurableObjectNamespaceLike,
  tenant: string,
  leaseMs: number,
  binding?: RateLimitBindingLike,
): CallLimiter {
  const { rate } = limits;
  const counted: CallLimits = binding ? { concurrency: limits.concurrency } : limits;
  const send = async (call: CountCall): Promise<Refusal> =>
    await (await namespace.get(namespace.idFromName(tenant)).fetch(CALLS_URL, {
      method: "POST",
      body: JSON.stringify(call),
    })).json();
  return {
    async acquire(token) {
      const key = await keyOf(token);
      if (binding && rate && !(await binding.limit({ key })).success) {
        throw rateExceeded(rate, rate.periodMs);
      }
      if (!counted.rate && counted.concurrency === undefined) return () => {};
      const id = crypto.randomUUID();
      const refused = await send({ id, key, limits: counted, leaseMs });
      if (refused) throw new ToolError(refused.message, { code: "rate_limited", ...refused });
      // The call's answer stands even when its end cannot be told: the lease frees the slot.
      return () => send({ id }).then(() => {}, () => {});
    },
  };
}

/**
 * The tenant's object's side: counts its calls in memory. The object is one instance for the
 * whole deployment, so the counts are global; when it restarts they start afresh (a call then
 * running no longer holds a slot). A call whose Worker died before ending it holds its slot
 * until its lease is over.
 */
export class CallCounter {
  #limits: CallLimits = {};
  readonly #clock: Clock;
  readonly #limiter: MemoryCallLimiter;
  readonly #running = new Map<string, { end: () => void | Promise<void>; until: number }>();

  /** Counts on `clock` (default the system's). */
  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
    this.#limiter = new MemoryCallLimiter(() => this.#limits, { clock });
  }

  /** Admits or ends one call, as the Worker asked. */
  async count({ id, key = "", limits, leaseMs = 0 }: CountCall): Promise<Refusal> {
    const now = this.#clock.now();
    for (const [running, { end, until }] of this.#running) {
      if (running === id || (limits && until <= now)) {
        await end();
        this.#running.delete(running);
      }
    }
    if (!limits) return null;
    // The Worker sends its settings with each call: the latest apply.
    this.#limits = limits;
    try {
      this.#running.set(id, { end: await this.#limiter.acquire(key), until: now + leaseMs });
      return null;
    } catch (error) {
      const { message, hint, retryAfterMs } = error as ToolError;
      return { message, hint, retryAfterMs };
    }
  }
}
