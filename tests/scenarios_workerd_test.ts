import { runScenarios, scenarioEnv, scenarioFixtures } from "./support/scenarios.ts";
import { searchBackendFetch } from "./support/search_backend.ts";
import { startWorker } from "./support/workerd.ts";

Deno.test("scenarios on Cloudflare Workers (workerd, KV cache, Durable Object channel)", async (t) => {
  await using fixtures = scenarioFixtures();
  await using worker = await startWorker({
    vars: scenarioEnv(),
    outbound: searchBackendFetch(fixtures.search.origin),
  });
  await runScenarios(t, { runtime: "workerd", url: worker.origin, durableChannel: true }, fixtures);
});
