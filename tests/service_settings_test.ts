import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import {
  parseToolNames,
  readServiceSettings,
  SERVICE_SETTING_NAMES,
} from "../edge/service/service_settings.ts";
import { createServiceApp, serviceTools } from "../edge/service/service_app.ts";
import { chosenSearch } from "../edge/service/search_choice.ts";
import { MISSING_SETTINGS, SEARCH_CHOICES, searchApis } from "./support/search_apis.ts";
import { searchBackendFetch } from "./support/search_backend.ts";

Deno.test("settings: read under the shared names, empty values unset, bindings ignored", () => {
  const settings = readServiceSettings({
    OUTPOST_TOOL_TOKEN: " tool-token-at-least-16 ",
    OUTPOST_OPERATOR_TOKEN: "",
    TAVILY_API_KEY: "tvly-x",
    OUTPOST_ALLOW_PRIVATE_NETWORK: "TRUE",
    OUTPOST_TOOLS: "now, web_fetch",
    OUTPOST_MAX_CHARS: "8000",
    OUTPOST_FETCH_TIMEOUT_MS: "2500",
    OUTPOST_RESPECT_ROBOTS: "true",
    OUTPOST_ASK_TIMEOUT_MS: "60000",
    OUTPOST_SEARCH: " Brave ",
    BRAVE_API_KEY: "brave-x",
    EXA_API_KEY: "",
    SEARXNG_URL: "https://searx.example.org/",
    CACHE: { get() {} },
  });
  assert.deepEqual(settings, {
    toolToken: "tool-token-at-least-16",
    operatorToken: undefined,
    search: "brave",
    tavilyApiKey: "tvly-x",
    braveApiKey: "brave-x",
    exaApiKey: undefined,
    serperApiKey: undefined,
    searxngUrl: "https://searx.example.org/",
    allowPrivateNetwork: true,
    tools: ["now", "web_fetch"],
    maxChars: 8000,
    fetchTimeoutMs: 2500,
    respectRobots: true,
    askTimeoutMs: 60_000,
    accessLog: true,
    rateLimit: undefined,
    concurrencyLimit: undefined,
    tenants: undefined,
  });
  assert.equal(readServiceSettings({}).allowPrivateNetwork, false);
  assert.equal(readServiceSettings({ OUTPOST_ACCESS_LOG: "false" }).accessLog, false);
  assert.equal(readServiceSettings({}).respectRobots, false);
  assert.equal(
    readServiceSettings({ OUTPOST_ALLOW_PRIVATE_NETWORK: "0" }).allowPrivateNetwork,
    false,
  );
});

Deno.test("settings: malformed values are SetupErrors naming the variable", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { OUTPOST_ALLOW_PRIVATE_NETWORK: "yes please" },
      /OUTPOST_ALLOW_PRIVATE_NETWORK must be true or false/,
    ],
    [{ OUTPOST_RESPECT_ROBOTS: "maybe" }, /OUTPOST_RESPECT_ROBOTS must be true or false/],
    [{ OUTPOST_MAX_CHARS: "10k" }, /OUTPOST_MAX_CHARS must be a positive integer, not "10k"/],
    [{ OUTPOST_MAX_CHARS: "0" }, /OUTPOST_MAX_CHARS/],
    [{ OUTPOST_FETCH_TIMEOUT_MS: "-5" }, /OUTPOST_FETCH_TIMEOUT_MS/],
    [
      { OUTPOST_ASK_TIMEOUT_MS: "0" },
      /OUTPOST_ASK_TIMEOUT_MS must be a positive number of milliseconds up to 2147483647, not 0/,
    ],
    [
      { OUTPOST_ASK_TIMEOUT_MS: "2147483648" },
      /OUTPOST_ASK_TIMEOUT_MS must be a positive number of milliseconds up to 2147483647, not 2147483648/,
    ],
    [{ OUTPOST_TOOLS: "now,telnet" }, /unknown tool, "telnet"/],
    [{ OUTPOST_TOOLS: "now,now" }, /names now twice/],
    [{ OUTPOST_TOOLS: " , " }, /OUTPOST_TOOLS names no tool/],
    [
      { OUTPOST_SEARCH: "Google" },
      /^OUTPOST_SEARCH must be "brave", "searxng", "exa", "serper", "tavily" or "duckduckgo", not "google"\.$/,
    ],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => readServiceSettings(env), (error: unknown) => {
      assert.ok(error instanceof SetupError);
      assert.match(error.message, message);
      return true;
    });
  }
  assert.throws(() => parseToolNames(",", "--tools"), /--tools names no tool/);
  // An echoed value is clipped.
  assert.throws(
    () => readServiceSettings({ OUTPOST_MAX_CHARS: "9".repeat(10_000) + "x" }),
    (error: unknown) => error instanceof SetupError && error.message.length < 200,
  );
});

Deno.test("settings: every runtime gets the same tools, ask_human only with a channel", () => {
  const names = (tools: { name: string }[]) => tools.map((t) => t.name);
  const settings = readServiceSettings({});
  assert.deepEqual(names(serviceTools(settings, {})), ["web_fetch", "web_search", "now"]);
  assert.deepEqual(names(serviceTools(settings, { channel: new MemoryQuestionChannel() })), [
    "web_fetch",
    "web_search",
    "now",
    "ask_human",
  ]);
  const chosen = readServiceSettings({ OUTPOST_TOOLS: "now,ask_human" });
  assert.deepEqual(names(serviceTools(chosen, { channel: new MemoryQuestionChannel() })), [
    "now",
    "ask_human",
  ]);
  assert.throws(() => serviceTools(chosen, {}), /ask_human needs a question channel/);
  assert.equal(SERVICE_SETTING_NAMES.tools, "OUTPOST_TOOLS");
});

Deno.test("settings: allowPrivateNetwork and maxChars reach web_fetch", {
  timeout: 60_000,
  sanitizeResources: false,
}, async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<title>Local</title><p>" + "word ".repeat(600) + "</p>", {
        headers: { "content-type": "text/html" },
      }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const [guarded] = serviceTools(readServiceSettings({ OUTPOST_TOOLS: "web_fetch" }), {});
  await assert.rejects(guarded.execute({ url }, {}), /private|loopback|local/i);
  const [open] = serviceTools(
    readServiceSettings({
      OUTPOST_TOOLS: "web_fetch",
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
      OUTPOST_MAX_CHARS: "1000",
    }),
    {},
  );
  const text = await open.execute({ url }, {});
  assert.match(text, /word word/);
  assert.match(text, /truncated\. Continue with offset=/);
});

Deno.test("createServiceApp: names the token to set, needs the operator's only with a channel", {
  timeout: 60_000,
}, async () => {
  const { createServiceApp } = await import("../edge/service/service_app.ts");
  const token = "tool-token-at-least-16";
  const refused = (env: Record<string, string>, channel: boolean, message: RegExp) =>
    assert.throws(
      () =>
        createServiceApp(
          readServiceSettings(env),
          channel ? { channel: new MemoryQuestionChannel() } : {},
          "with care",
        ),
      (error: unknown) => {
        assert.ok(error instanceof SetupError);
        assert.match(error.message, message);
        assert.match(error.hint ?? "", /with care\.$/);
        return true;
      },
    );
  refused({}, false, /^Outpost is not configured: OUTPOST_TOOL_TOKEN is not set\.$/);
  refused({}, true, /OUTPOST_TOOL_TOKEN and OUTPOST_OPERATOR_TOKEN are not set/);
  refused({ OUTPOST_TOOL_TOKEN: token }, true, /OUTPOST_OPERATOR_TOKEN is not set/);
  refused({ OUTPOST_TOOL_TOKEN: "short" }, false, /OUTPOST_TOOL_TOKEN is too short/);
  refused(
    { OUTPOST_TOOL_TOKEN: token, OUTPOST_OPERATOR_TOKEN: "short" },
    true,
    /OUTPOST_OPERATOR_TOKEN is too short/,
  );
  const app = createServiceApp(
    readServiceSettings({ OUTPOST_TOOL_TOKEN: token, OUTPOST_TOOLS: "now" }),
    {},
    "",
  );
  const listed = await app.fetch(
    new Request("http://localhost/tools", { headers: { authorization: `Bearer ${token}` } }),
  );
  assert.deepEqual((await listed.json()).tools.map((t: { name: string }) => t.name), ["now"]);
});

/** The global fetch, for the loopback fixtures only: nothing may leave the machine. */
const loopbackOnly: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  assert.equal(new URL(request.url).hostname, "127.0.0.1");
  return fetch(request);
};

Deno.test("settings: OUTPOST_SEARCH chooses each backend, which searches with its key or URL", {
  timeout: 60_000,
}, async () => {
  await using apis = searchApis();
  for (const choice of SEARCH_CHOICES) {
    const settings = readServiceSettings(choice.settings(apis.origin));
    const [search] = serviceTools({ ...settings, tools: ["web_search"] }, {
      fetch: searchBackendFetch(apis.origin, loopbackOnly),
    });
    const before = apis.received.length;
    const out = await search.execute({ query: "lanterns" });
    assert.match(out, choice.found, choice.backend);
    assert.ok(apis.received.length > before, choice.backend);
    assert.ok(choice.keyed(apis.received[before]), choice.backend);
  }
  assert.equal(chosenSearch(readServiceSettings({})), "duckduckgo");
});

Deno.test("settings: a chosen backend without its key or URL names the setting to set", () => {
  for (const [env, variable] of MISSING_SETTINGS) {
    const settings = readServiceSettings({ ...env, OUTPOST_TOOL_TOKEN: "tool-token-at-least-16" });
    const named = (error: unknown) => {
      assert.ok(error instanceof SetupError);
      assert.equal(
        error.message,
        `OUTPOST_SEARCH=${env.OUTPOST_SEARCH} needs ${variable}, which is not set.`,
      );
      assert.match(error.hint ?? "", new RegExp(`^Set ${variable}, or choose another backend`));
      return true;
    };
    assert.throws(() => serviceTools(settings, {}), named);
    assert.throws(() => createServiceApp(settings, {}, "in the environment"), named);
    // Not serving web_search needs no backend.
    serviceTools({ ...settings, tools: ["now"] }, {});
  }
});

Deno.test("settings: a SearXNG on a private address needs OUTPOST_ALLOW_PRIVATE_NETWORK", () => {
  for (const url of ["http://127.0.0.1:8080/", "http://searxng:8080/", "http://10.0.0.2/"]) {
    const env = { OUTPOST_SEARCH: "searxng", SEARXNG_URL: url };
    assert.throws(
      () => serviceTools(readServiceSettings(env), {}),
      (error: unknown) =>
        error instanceof SetupError &&
        error.message.startsWith("SEARXNG_URL is on a private or local network address") &&
        /set OUTPOST_ALLOW_PRIVATE_NETWORK=true/.test(error.hint ?? ""),
      url,
    );
    serviceTools(readServiceSettings({ ...env, OUTPOST_ALLOW_PRIVATE_NETWORK: "true" }), {});
  }
  assert.throws(
    () =>
      serviceTools(readServiceSettings({ OUTPOST_SEARCH: "searxng", SEARXNG_URL: "searx" }), {}),
    /SearXNG URL "searx" is not an absolute http\(s\) URL/,
  );
});
