/**
 * The Cloudflare Worker behind `wrangler dev` and `wrangler deploy` (see `wrangler.jsonc`
 * beside it): every tool over the JSON API and MCP, and, with the Durable Object binding, the
 * operator API for `ask_human`, whose console is the Worker's static assets (`console_assets.ts`
 * writes them). The app is built for each request from that request's bindings, so nothing bound
 * to one request is kept for another.
 *
 * Bindings: `OUTPOST_URL_CACHE` (KV, `web_fetch`'s cache) and `OUTPOST_QUESTIONS` (the
 * {@linkcode QuestionChannelObject} namespace: one object per tenant, named by its id, `default`
 * without `OUTPOST_TENANTS`). Settings: the environment names of `readServiceSettings`
 * (`OUTPOST_TOOL_TOKEN`, `OUTPOST_OPERATOR_TOKEN` or `OUTPOST_TENANTS`, `OUTPOST_SEARCH` and its
 * key, `OUTPOST_ALLOW_PRIVATE_NETWORK`, …), as vars or secrets.
 *
 * @module
 */
import { SetupError } from "../../../src/errors.ts";
import { appServing } from "../../../src/http/app.ts";
import type { AppExecutionContext } from "../../../src/http/mod.ts";
import { DEFAULT_ASK_TIMEOUT_MS, readServiceSettings } from "../../service/service_settings.ts";
import { serviceAppOn } from "../../service/service_app.ts";
import { type RateLimitBindingLike, workerCallLimiter } from "../call_limits.ts";
import type { CallLimits } from "../../../src/http/call_limiter.ts";
import { DurableObjectQuestionChannel, QuestionChannelObject } from "../question_channel.ts";
import type { DurableObjectNamespaceLike } from "../question_channel_options.ts";
import { type KvNamespaceLike, WorkersKvUrlCache } from "../url_cache.ts";

export { QuestionChannelObject };

/** What the Worker is bound to (see `wrangler.jsonc`), besides its settings. */
export interface WorkerEnv {
  /** `web_fetch`'s cache; without it each instance caches in memory. */
  OUTPOST_URL_CACHE?: KvNamespaceLike;
  /**
   * The question channels; without it `ask_human` and the operator API are not served. It also
   * counts each tenant's calls against its limits (`limits`, `OUTPOST_RATE_LIMIT`, …).
   */
  OUTPOST_QUESTIONS?: DurableObjectNamespaceLike;
  /** Cloudflare's rate-limiting binding: counts the rate in place of the Durable Object. */
  OUTPOST_RATE_LIMITER?: RateLimitBindingLike;
  /** Settings, by the names of `SERVICE_SETTING_NAMES`. */
  [name: string]: unknown;
}

/** The Worker's fetch handler. */
async function handle(
  request: Request,
  env: WorkerEnv,
  ctx?: AppExecutionContext,
): Promise<Response> {
  try {
    const questions = env.OUTPOST_QUESTIONS;
    // Each tenant's questions live in a Durable Object of its own, named by its id.
    const channelFor = questions &&
      ((tenant: string) => new DurableObjectQuestionChannel(questions, tenant));
    const cache = env.OUTPOST_URL_CACHE && new WorkersKvUrlCache(env.OUTPOST_URL_CACHE);
    const settings = readServiceSettings(env);
    // A slot outlives the longest call (an unanswered ask_human) by a minute.
    const leaseMs = (settings.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS) + 60_000;
    // A tenant's calls are counted in its own Durable Object, as its questions are kept.
    const limiterFor = (tenant: string, limits: CallLimits) => {
      if (!questions) {
        throw new SetupError("Call limits need the OUTPOST_QUESTIONS Durable Object binding.");
      }
      return workerCallLimiter(limits, questions, tenant, leaseMs, env.OUTPOST_RATE_LIMITER);
    };
    // Without the console page: the Worker's static assets serve it (see wrangler.jsonc).
    const app = serviceAppOn(
      appServing,
      settings,
      { cache, channelFor, limiterFor },
      "with `wrangler secret put`, or in .dev.vars for `wrangler dev`",
      true,
    );
    // Inside the try: a tenant's app is built on its first request, and may be misconfigured.
    return await app.fetch(request, env, ctx);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    // A misconfigured deployment says what to fix instead of failing every request blindly.
    return Response.json({ error: error.message, hint: error.hint }, {
      status: 503,
      headers: { "retry-after": "60" },
    });
  }
}

export default { fetch: handle };
