import assert from "node:assert/strict";
import { bundleAlone, FAMILIES } from "./support/bundle.ts";

// What belongs to no family: the service and the deployments; and the providers' wire knowledge,
// which only the hosted family (native search, transcripts) reads.
const SERVICE = ["src/http/", "edge/", "pdf/"];
const PROVIDERS = [
  "src/adapters/",
  "src/openai/",
  "src/anthropic/",
  "src/gemini/",
  "src/ai_sdk/",
  "src/openai_agents/",
];
// Where each family lives under src/ (the HTML reader serves the fetch and search families).
const HOMES: Record<string, string[]> = {
  fetch: ["src/fetch/", "src/html/"],
  search: ["src/search/", "src/html/"],
  human: ["src/human/"],
  time: ["src/time.ts", "src/time/"],
  hosted: ["src/hosted/"],
};

Deno.test("a program importing one family bundles that family and the core, nothing of another", {
  timeout: 120_000,
}, async () => {
  for (const family of FAMILIES) {
    const own = HOMES[family.home];
    const foreign = [
      ...SERVICE,
      ...(family.home === "hosted" ? [] : PROVIDERS),
      ...Object.values(HOMES).flat().filter((home) => !own.includes(home)),
    ];
    const built = await bundleAlone(family);
    // Our modules by their path from the repository root (or an absolute one), npm's by name.
    const modules = [...built.modules].filter(([, bytes]) => bytes > 0).map(([path]) => `/${path}`);
    const within = (homes: string[]) => (path: string) =>
      homes.some((home) => path.includes(`/${home}`));
    assert.deepEqual(modules.filter(within(foreign)), [], `${family.name} pulls in another family`);
    assert.ok(modules.some(within(own)), `${family.name} bundles none of its own family`);
  }
});

Deno.test("htmlToMarkdown alone bundles no schema library: its option checks are plain tests", {
  timeout: 120_000,
}, async () => {
  const built = await bundleAlone({ name: "htmlToMarkdown", home: "fetch" });
  const packages = [...built.packages].filter(([, bytes]) => bytes > 0).map(([name]) => name);
  // Only our own modules: the HTML tokenizer and entity table are ours too.
  assert.deepEqual(packages, ["outpost"]);
});
