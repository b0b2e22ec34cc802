import { bundle } from "./support/bundle.ts";
import { edgeRuntimeServer } from "./support/edge_runtime.ts";
import { runScenarios, scenarioEnv, scenarioFixtures } from "./support/scenarios.ts";

Deno.test("scenarios on Vercel Edge (edge-runtime, service-worker bundle)", async (t) => {
  await using fixtures = scenarioFixtures();
  const { code } = await bundle("tests/fixtures/vercel_scenario_worker.ts", { format: "iife" });
  await using server = await edgeRuntimeServer(code, scenarioEnv(fixtures));
  await runScenarios(
    t,
    { runtime: "edge-runtime", url: server.url, durableChannel: false },
    fixtures,
  );
});
