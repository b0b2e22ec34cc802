/**
 * The Cloudflare Worker behind `wrangler dev` and `wrangler deploy` (see `wrangler.jsonc`
 * beside it): every tool over the JSON API and MCP, and, with the Durable Object binding, the
 * operator API and console for `ask_human`. The app is built for each request from that
 * request's bindings, so nothing bound to one request is kept for another.
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
import type { AppExecutionContext } from "../../../src/http/mod.ts";
import { createServiceApp, readServiceSettings } from "../../service/service_settings.ts";
import {
  type DurableObjectNamespaceLike,
  DurableObjectQuestionChannel,
  QuestionChannelObject,
} from "../question_channel.ts";
import { type KvNamespaceLike, WorkersKvUrlCache } from "../url_cache.ts";

export { QuestionChannelObject };

/** What the Worker is bound to (see `wrangler.jsonc`), besides its settings. */
export interface WorkerEnv {
  /** `web_fetch`'s cache; without it each instance caches in memory. */
  OUTPOST_URL_CACHE?: KvNamespaceLike;
  /** The question channels; without it `ask_human` and the console are not served. */
  OUTPOST_QUESTIONS?: DurableObjectNamespaceLike;
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
    const app = createServiceApp(
      readServiceSettings(env),
      { cache, channelFor },
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
