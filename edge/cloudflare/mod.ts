/**
 * Cloudflare Workers pieces of Outpost: `WorkersKvUrlCache`, `web_fetch`'s cache on a KV
 * namespace, and `DurableObjectQuestionChannel`, a durable question channel for `ask_human` on a Durable
 * Object of the `QuestionChannelObject` class (SQLite storage, one object per channel name). The
 * Worker that serves every tool, the operator API and the console is `edge/cloudflare/app/worker.ts`,
 * with `wrangler.jsonc` beside it.
 *
 * @example
 * ```ts
 * // Not asserted: the bindings (KV, a Durable Object namespace) exist only inside workerd; see
 * // WorkersKvUrlCache for a checked example on a stand-in.
 * import { askHuman, webFetch } from "@outpost/agent-tools";
 * import { HttpReader } from "@outpost/agent-tools/fetch";
 * import {
 *   DurableObjectQuestionChannel,
 *   type DurableObjectNamespaceLike,
 *   type KvNamespaceLike,
 *   WorkersKvUrlCache,
 * } from "@outpost/agent-tools/cloudflare";
 *
 * interface Env {
 *   OUTPOST_URL_CACHE: KvNamespaceLike;
 *   OUTPOST_QUESTIONS: DurableObjectNamespaceLike;
 * }
 *
 * function tools(env: Env) {
 *   const reader = new HttpReader({ cache: new WorkersKvUrlCache(env.OUTPOST_URL_CACHE) });
 *   const channel = new DurableObjectQuestionChannel(env.OUTPOST_QUESTIONS, "default");
 *   return [webFetch(reader), askHuman(channel)];
 * }
 * ```
 *
 * @module
 */
export { DurableObjectQuestionChannel } from "./question_channel.ts";
export type {
  DurableObjectNamespaceLike,
  DurableObjectQuestionChannelOptions,
} from "./question_channel_options.ts";
export { type DurableObjectStateLike, QuestionChannelObject } from "./question_object.ts";
export {
  type KvNamespaceLike,
  WorkersKvUrlCache,
  type WorkersKvUrlCacheOptions,
} from "./url_cache.ts";
