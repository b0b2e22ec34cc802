import { wranglerBuild } from "./support/bundle.ts";
import { runScenarios, scenarioEnv, scenarioFixtures } from "./support/scenarios.ts";
import { searchBackendFetch } from "./support/search_backend.ts";
import { startWorker } from "./support/workerd.ts";

async function scenarios(t: Deno.TestContext, runtime: string, entry?: URL): Promise<void> {
  await using fixtures = scenarioFixtures();
  await using worker = await startWorker({
    vars: scenarioEnv(),
    // The Worker's outbound fetch, not the Worker, sends DuckDuckGo's host to the fixture.
    outbound: searchBackendFetch(fixtures.search.origin),
    entry,
  });
  await runScenarios(t, { runtime, url: worker.origin, durableChannel: true }, fixtures);
}

Deno.test("scenarios on Cloudflare Workers (workerd, KV cache, Durable Object channel)", {
  timeout: 120_000,
}, async (t) => {
  await scenarios(t, "workerd");
});

Deno.test("scenarios on the Worker as wrangler deploy --minify builds it", {
  timeout: 120_000,
}, async (t) => {
  const temp = await Deno.makeTempDir({ prefix: "outpost-wrangler-" });
  try {
    const module = await wranglerBuild(temp);
    await scenarios(t, "workerd (wrangler --minify)", new URL(`file://${module}`));
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
});
