import assert from "node:assert/strict";
import { HttpReader } from "../src/fetch/mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { DenoKvQuestionChannel, DenoKvUrlCache, resolveHost } from "../edge/deno/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { type ServiceParts, serviceTools } from "../edge/service/service_app.ts";
import { localServer } from "./support/local_server.ts";
import {
  runScenarios,
  scenarioEnv,
  type ScenarioFixtures,
  scenarioFixtures,
} from "./support/scenarios.ts";
import { searchBackendFetch } from "./support/search_backend.ts";

/** Serves the app as `deno task start` builds it, from the shared settings and the given parts. */
function serve(fixtures: ScenarioFixtures, parts: ServiceParts) {
  const settings = readServiceSettings(scenarioEnv());
  const withSearch = { ...parts, fetch: searchBackendFetch(fixtures.search.origin) };
  const app = createApp({
    tools: serviceTools(settings, withSearch),
    channel: parts.channel,
    auth: { toolToken: settings.toolToken!, operatorToken: settings.operatorToken },
    onError: (error) => console.error(error),
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      app.close();
      await server.shutdown();
    },
  };
}

Deno.test("scenarios on Deno (KV cache and channel)", { timeout: 60_000 }, async (t) => {
  await using fixtures = scenarioFixtures();
  const kv = await Deno.openKv(":memory:");
  const channel = new DenoKvQuestionChannel(kv);
  try {
    await using service = serve(fixtures, { cache: new DenoKvUrlCache(kv), channel, resolveHost });
    await runScenarios(t, { runtime: "deno", url: service.url, durableChannel: true }, fixtures);
  } finally {
    channel.close();
    kv.close();
  }
});

/** Runs `fn` without the globals Vercel's edge-runtime lacks. */
async function withoutEdgeMissingGlobals(fn: () => Promise<void>): Promise<void> {
  const signal = AbortSignal as { any?: unknown };
  const global = globalThis as { ByteLengthQueuingStrategy?: unknown };
  const { any } = signal;
  const { ByteLengthQueuingStrategy } = global;
  delete signal.any;
  delete global.ByteLengthQueuingStrategy;
  try {
    assert.equal(typeof AbortSignal.any, "undefined");
    await fn();
  } finally {
    signal.any = any;
    global.ByteLengthQueuingStrategy = ByteLengthQueuingStrategy;
  }
}

Deno.test("scenarios without AbortSignal.any and ByteLengthQueuingStrategy", {
  timeout: 60_000,
}, async (t) => {
  await withoutEdgeMissingGlobals(async () => {
    await using fixtures = scenarioFixtures();
    const channel = new MemoryQuestionChannel();
    try {
      await using service = serve(fixtures, { channel });
      await runScenarios(t, {
        runtime: "deno without AbortSignal.any, ByteLengthQueuingStrategy",
        url: service.url,
        durableChannel: true,
      }, fixtures);
    } finally {
      channel.close();
    }
  });
});

Deno.test(
  "without AbortSignal.any a read still stops on the caller's abort, and lets go of its signal",
  {
    timeout: 60_000,
  },
  async () => {
    await withoutEdgeMissingGlobals(async () => {
      const stalled = Promise.withResolvers<void>();
      await using server = localServer((request) =>
        request.url.endsWith("/stall")
          ? new Promise<Response>((resolve) => stalled.promise.then(() => resolve(new Response())))
          : new Response("<title>Quick</title><p>quick page</p>", {
            headers: { "content-type": "text/html" },
          })
      );
      const reader = new HttpReader({ allowPrivateNetwork: true });
      // A run-long signal passed to many calls: each call's listener must go when it ends.
      const run = new AbortController();
      let listening = 0;
      const add = run.signal.addEventListener.bind(run.signal);
      const remove = run.signal.removeEventListener.bind(run.signal);
      run.signal.addEventListener = (...args: Parameters<typeof add>) => {
        listening++;
        add(...args);
      };
      run.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
        listening--;
        remove(...args);
      };
      for (let i = 0; i < 5; i++) {
        const page = await reader.read(`${server.origin}/quick?${i}`, { signal: run.signal });
        assert.match(page.text, /quick page/);
      }
      assert.equal(listening, 0);
      const reading = reader.read(`${server.origin}/stall`, { signal: run.signal });
      await server.arrived(6);
      const reason = new Error("the run was stopped");
      run.abort(reason);
      await assert.rejects(reading, (error) => error === reason);
      stalled.resolve();
    });
  },
);
