/**
 * Deno-specific pieces of Outpost, which need `Deno` APIs and so live outside the portable
 * core: the durable `DenoKvQuestionChannel` for `ask_human`, `DenoKvUrlCache` for `web_fetch`'s
 * cache, `resolveHost`, which lets `HttpReader`'s address guard refuse names that resolve into
 * private ranges, `ConnectProxy`, whose `fetch` connects only to addresses it checked, so a
 * name cannot rebind between the check and the connection. `serveMcpStdio`, which serves tools
 * to an MCP client over stdio, is in `@outpost/agent-tools/mcp`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askHuman } from "@outpost/agent-tools/human";
 * import { DenoKvQuestionChannel } from "@outpost/agent-tools/deno";
 *
 * const kv = await Deno.openKv(":memory:"); // `Deno.openKv()` for the default, persistent store
 * const channel = new DenoKvQuestionChannel(kv);
 * const askHumanTool = askHuman(channel);
 * assert.equal(askHumanTool.name, "ask_human");
 * await channel.close();
 * kv.close();
 * ```
 *
 * @module
 */
export { ConnectProxy, type ConnectProxyOptions } from "./connect_proxy.ts";
export { type ChromiumOptions, launchChromium, type LocalChromium } from "./chromium.ts";
export { DenoKvQuestionChannel, type DenoKvQuestionChannelOptions } from "./question_channel.ts";
export { resolveHost } from "./resolve_host.ts";
export { DenoKvUrlCache, type DenoKvUrlCacheOptions } from "./url_cache.ts";
