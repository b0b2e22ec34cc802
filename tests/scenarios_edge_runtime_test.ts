import { bundle } from "./support/bundle.ts";
import { edgeRuntimeServer } from "./support/edge_runtime.ts";
import { runScenarios, scenarioEnv, scenarioFixtures } from "./support/scenarios.ts";
import { searchBackendPrelude } from "./support/search_backend.ts";

Deno.test("scenarios on Vercel Edge (edge-runtime, service-worker bundle)", {
  timeout: 60_000,
}, async (t) => {
  await using fixtures = scenarioFixtures();
  // The Edge Function entry as deployed; only the runtime's fetch is wrapped, for search.
  const { code } = await bundle("tests/fixtures/vercel_service_worker.ts", { format: "iife" });
  await using server = await edgeRuntimeServer(
    searchBackendPrelude(fixtures.search.origin) + code,
    scenarioEnv(),
  );
  await runScenarios(
    t,
    { runtime: "edge-runtime", url: server.url, durableChannel: false },
    fixtures,
  );
});
