/**
 * The Cloudflare Worker behind `wrangler dev` and `wrangler deploy` (see `wrangler.jsonc`
 * beside it): every tool over the JSON API and MCP, and, with the Durable Object binding, the
 * operator API and console for `ask_human`. The app is built for each request from that
 * request's bindings, so nothing bound to one request is kept for another.
 *
 * Bindings: `OUTPOST_URL_CACHE` (KV, `web_fetch`'s cache) and `OUTPOST_QUESTIONS` (the
 * {@linkcode QuestionChannelObject} namespace). Settings: the environment names of
 * `readServiceSettings` (`OUTPOST_TOOL_TOKEN`, `OUTPOST_OPERATOR_TOKEN`, `TAVILY_API_KEY`,
 * `OUTPOST_ALLOW_PRIVATE_NETWORK`, …), as vars or secrets.
 *
 * @module
 */
import { UserError } from "../../src/tool.ts";
import {
  type AppExecutionContext,
  createApp,
  readServiceSettings,
  SERVICE_SETTING_NAMES,
  serviceTools,
} from "../../src/http/mod.ts";
import {
  DurableHumanChannel,
  type DurableObjectNamespaceLike,
  QuestionChannelObject,
} from "./question_channel.ts";
import { type KvNamespaceLike, KvUrlCache } from "./url_cache.ts";

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

/** The channel the Worker's `ask_human` and console use: one Durable Object. */
const CHANNEL_NAME = "default";

/** The Worker's fetch handler. */
async function handle(
  request: Request,
  env: WorkerEnv,
  ctx?: AppExecutionContext,
): Promise<Response> {
  let app;
  try {
    const settings = readServiceSettings(env);
    const channel = env.OUTPOST_QUESTIONS &&
      new DurableHumanChannel(env.OUTPOST_QUESTIONS, CHANNEL_NAME);
    const missing = [
      settings.toolToken ? [] : [SERVICE_SETTING_NAMES.toolToken],
      settings.operatorToken || !channel ? [] : [SERVICE_SETTING_NAMES.operatorToken],
    ].flat();
    if (missing.length > 0) {
      throw new UserError(`This Worker is not configured: ${missing.join(" and ")} not set.`, {
        hint: `Set ${missing.join(" and ")} (at least 16 characters each, different), e.g. with ` +
          "`wrangler secret put`, or in .dev.vars for `wrangler dev`.",
      });
    }
    for (const key of ["toolToken", "operatorToken"] as const) {
      const value = settings[key];
      if (value !== undefined && value.length < 16) {
        throw new UserError(`${SERVICE_SETTING_NAMES[key]} is too short.`, {
          hint: "Use at least 16 characters, e.g. from `uuidgen`.",
        });
      }
    }
    const cache = env.OUTPOST_URL_CACHE && new KvUrlCache(env.OUTPOST_URL_CACHE);
    const tools = serviceTools(settings, { cache, channel });
    app = createApp({
      tools,
      channel,
      auth: { toolToken: settings.toolToken!, operatorToken: settings.operatorToken },
    });
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    // A misconfigured deployment says what to fix instead of failing every request blindly.
    return Response.json({ error: error.message, hint: error.hint }, {
      status: 503,
      headers: { "retry-after": "60" },
    });
  }
  return await app.fetch(request, env, ctx);
}

export default { fetch: handle };
