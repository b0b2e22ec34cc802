import assert from "node:assert/strict";
import { bundleForNode, findNode, NODE_MAJOR, nodeServer, nodeVersion } from "./support/node.ts";
import { runScenarios, scenarioEnv, scenarioFixtures } from "./support/scenarios.ts";
import { searchBackendPrelude } from "./support/search_backend.ts";

// Node is one of the runtimes the package is for: without it these tests fail rather than skip.
const node = await findNode();

/** Runs the shared scenarios against the Node app, with `prelude` run first in the process. */
async function scenariosOnNode(t: Deno.TestContext, label: string, prelude = ""): Promise<void> {
  assert.ok(
    node,
    `no node found (OUTPOST_NODE, else PATH): install Node ${NODE_MAJOR} or later ` +
      "(apt-get install nodejs), or set OUTPOST_NODE to its path",
  );
  const version = await nodeVersion(node);
  const major = Number(version.match(/^v(\d+)\./)?.[1]);
  assert.ok(major >= NODE_MAJOR, `${node} is Node ${version}; the package needs ${NODE_MAJOR}+`);
  await using fixtures = scenarioFixtures();
  const temp = await Deno.makeTempDir({ prefix: "outpost-node-" });
  try {
    const module = await bundleForNode("tests/fixtures/node_service.ts", temp);
    await using server = await nodeServer(node, module, {
      env: scenarioEnv(),
      // The process's fetch, not the app, sends DuckDuckGo's host to the fixture.
      prelude: prelude + searchBackendPrelude(fixtures.search.origin),
    });
    const runtime = `node ${version}${label}`;
    await runScenarios(t, { runtime, url: server.url, durableChannel: true }, fixtures);
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}

Deno.test("scenarios on Node (esbuild bundle for platform node, node:http server)", {
  timeout: 120_000,
}, async (t) => {
  await scenariosOnNode(t, "");
});

// Node 20.0 to 20.2 lack AbortSignal.any (20.3 added it); the package checks for it and falls
// back, as on Vercel's edge-runtime (web_fetch, web_search and MCP calls go through it).
Deno.test("scenarios on Node without AbortSignal.any, as Node 20.0 to 20.2 ship", {
  timeout: 120_000,
}, async (t) => {
  const withoutAny = `delete AbortSignal.any;
if (typeof AbortSignal.any !== "undefined") throw new Error("AbortSignal.any stayed");\n`;
  await scenariosOnNode(t, " without AbortSignal.any", withoutAny);
});
