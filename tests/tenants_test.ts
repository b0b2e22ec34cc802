import assert from "node:assert/strict";
import { SetupError } from "../mod.ts";
import { MemoryQuestionChannel, type QuestionChannel } from "../src/human/mod.ts";
import { MemoryUrlCache } from "../src/fetch/mod.ts";
import { DomainPolicy } from "../src/hosted/mod.ts";
import { vercelHandler } from "../edge/vercel/mod.ts";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { createServiceApp } from "../edge/service/service_app.ts";
import { localServer } from "./support/local_server.ts";
import { sseEvents } from "./support/sse.ts";
import { inheritedEnv } from "./support/inherited_env.ts";
import { waitFor } from "./support/wait.ts";
import { startWorker } from "./support/workerd.ts";
import { DurableObjectQuestionChannel } from "../edge/cloudflare/mod.ts";

const root = new URL("../", import.meta.url);

const A_TOOL = "alpha-tool-token-0123456789";
const A_TOOL_2 = "alpha-second-tool-token-0123";
const A_OP = "alpha-operator-token-0123456789";
const B_TOOL = "beta-tool-token-0123456789";
const B_OP = "beta-operator-token-0123456789";
const C_TOOL = "gamma-tool-token-0123456789";
const TOKENS = [A_TOOL, A_TOOL_2, A_OP, B_TOOL, B_OP, C_TOOL];

const ALPHA = { id: "alpha", toolTokens: [A_TOOL, A_TOOL_2], operatorToken: A_OP };
const BETA = {
  id: "beta",
  toolTokens: [B_TOOL],
  operatorToken: B_OP,
  tools: ["web_fetch", "now", "ask_human"],
};
/** Allowed example.org only: an address such as 127.0.0.1 matches no domain rule. */
const GAMMA = {
  id: "gamma",
  toolTokens: [C_TOOL],
  tools: ["web_fetch"],
  allowedDomains: ["example.org"],
};

/** A deployment under test: requests by path, and the access log lines it wrote so far. */
interface Deployment {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  log(): string[];
}

const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
});

function call(d: Deployment, token: string, name: string, input: unknown, callId?: string) {
  return d.fetch(`/tools/${name}`, {
    method: "POST",
    headers: { ...bearer(token), ...(callId ? { "outpost-tool-call-id": callId } : {}) },
    body: JSON.stringify(input),
  });
}

async function pendingIds(d: Deployment, token: string): Promise<string[]> {
  const response = await d.fetch("/questions", { headers: bearer(token) });
  assert.equal(response.status, 200);
  return (await response.json()).questions.map((q: { id: string }) => q.id);
}

/**
 * Two tenants on one deployment see nothing of each other: tools offered, questions, their
 * records and answers, history, event streams, cached pages, the access log's tenant; with
 * `policies`, a third tenant's domain rules hold.
 */
async function isolation(
  d: Deployment,
  origin: string,
  received: () => number,
  policies: boolean,
): Promise<{ qa: string; qb: string }> {
  // Tools offered, per tenant.
  const names = async (token: string) =>
    (await (await d.fetch("/tools", { headers: bearer(token) })).json()).tools.map((
      t: { name: string },
    ) => t.name);
  assert.deepEqual(await names(A_TOOL), ["web_fetch", "web_search", "now", "ask_human"]);
  assert.deepEqual(await names(A_TOOL_2), ["web_fetch", "web_search", "now", "ask_human"]);
  assert.deepEqual(await names(B_TOOL), ["web_fetch", "now", "ask_human"]);
  assert.equal((await call(d, B_TOOL, "web_search", { query: "x" })).status, 404);
  // MCP too: each tenant's token lists its own tools.
  const mcpTools = async (token: string) => {
    const response = await d.fetch("/mcp", {
      method: "POST",
      headers: { ...bearer(token), accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(response.status, 200);
    return await response.text();
  };
  assert.match(await mcpTools(A_TOOL), /"web_search"/);
  assert.doesNotMatch(await mcpTools(B_TOOL), /"web_search"/);
  // No tenant's token, or a tenant's token on the other kind of route: 401.
  assert.equal(
    (await d.fetch("/tools", { headers: bearer("nobody-token-0123456789") })).status,
    401,
  );
  assert.equal((await d.fetch("/questions", { headers: bearer(A_TOOL) })).status, 401);
  assert.equal((await d.fetch("/tools", { headers: bearer(B_OP) })).status, 401);
  assert.equal((await d.fetch("/")).status, 200); // the console page needs no token

  // Cached pages: alpha's second read is a hit; beta's first read of the same URL is not.
  const url = `${origin}/page`;
  assert.equal((await call(d, A_TOOL, "web_fetch", { url })).status, 200);
  assert.equal((await call(d, A_TOOL_2, "web_fetch", { url })).status, 200);
  assert.equal(received(), 1, "alpha's second read came from the cache");
  assert.equal((await call(d, B_TOOL, "web_fetch", { url })).status, 200);
  assert.equal(received(), 2, "beta did not get alpha's cached page");
  if (policies) {
    const refused = await call(d, C_TOOL, "web_fetch", { url });
    assert.equal(refused.status, 422);
    assert.match((await refused.json()).error, /polic/i);
    assert.equal(received(), 2);
  }

  // Questions: each tenant's operator sees and answers only its own.
  const askA = call(d, A_TOOL, "ask_human", { question: "Alpha's question?" }, "call-a");
  await waitFor(async () => (await pendingIds(d, A_OP)).length === 1, "alpha's question");
  const askB = call(d, B_TOOL, "ask_human", { question: "Beta's question?" }, "call-b");
  await waitFor(async () => (await pendingIds(d, B_OP)).length === 1, "beta's question");
  const [qa] = await pendingIds(d, A_OP);
  const [qb] = await pendingIds(d, B_OP);
  assert.notEqual(qa, qb);
  assert.deepEqual(await pendingIds(d, A_OP), [qa]);
  // Each question says which tenant asked it, for the console.
  const record = await (await d.fetch(`/questions/${qa}`, { headers: bearer(A_OP) })).json();
  assert.equal(record.question.context?.tenant, "alpha");
  assert.equal((await d.fetch(`/questions/${qb}`, { headers: bearer(A_OP) })).status, 404);
  assert.equal((await d.fetch(`/questions/${qa}`, { headers: bearer(B_OP) })).status, 404);
  for (const action of ["answer", "cancel"]) {
    const response = await d.fetch(`/questions/${qb}/${action}`, {
      method: "POST",
      headers: bearer(A_OP),
      body: JSON.stringify({ answer: "from alpha" }),
    });
    assert.equal(response.status, 404, action);
  }
  // Alpha's event stream: beta's question was pending when it opened, yet never shows.
  const controller = new AbortController();
  const stream = await d.fetch("/questions/events", {
    headers: bearer(A_OP),
    signal: controller.signal,
  });
  assert.equal(stream.status, 200);
  const events = sseEvents(stream);
  const answered = await d.fetch(`/questions/${qa}/answer`, {
    method: "POST",
    headers: bearer(A_OP),
    body: JSON.stringify({ answer: "alpha's answer" }),
  });
  assert.equal(answered.status, 200);
  const seen: string[] = [];
  for (;;) {
    const event = await events.next();
    seen.push(`${event.event} ${event.data.id}`);
    if (event.event === "answered") break;
  }
  assert.deepEqual(seen, [`asked ${qa}`, `answered ${qa}`]);
  controller.abort();
  await events.close().catch(() => {});
  const replyA = await askA;
  assert.equal(replyA.status, 200);
  assert.match((await replyA.json()).text, /alpha's answer/);
  const answeredB = await d.fetch(`/questions/${qb}/answer`, {
    method: "POST",
    headers: bearer(B_OP),
    body: JSON.stringify({ answer: "beta's answer" }),
  });
  assert.equal(answeredB.status, 200);
  const replyB = await askB;
  assert.match((await replyB.json()).text, /beta's answer/);

  // History: each its own.
  const history = async (token: string) =>
    (await (await d.fetch("/questions/history", { headers: bearer(token) })).json()).questions
      .map((q: { question: { id: string } }) => q.question.id);
  assert.deepEqual(await history(A_OP), [qa]);
  assert.deepEqual(await history(B_OP), [qb]);

  // The access log names each call's tenant.
  await waitFor(() => d.log().length >= (policies ? 6 : 5), "the access log");
  const entries = d.log().map((line) => JSON.parse(line));
  const byTenant = (tenant: string) =>
    entries.filter((e) => e.tenant === tenant).map((e) => `${e.tool} ${e.cacheHit}`);
  assert.deepEqual(byTenant("alpha"), ["web_fetch false", "web_fetch true", "ask_human false"]);
  assert.deepEqual(byTenant("beta").sort(), ["ask_human false", "web_fetch false"]);
  if (policies) assert.deepEqual(byTenant("gamma"), ["web_fetch false"]);
  return { qa, qb };
}

/** A page server that counts its requests. */
function pageOrigin() {
  return localServer(() =>
    new Response("<html><title>Page</title><body><p>Hello.</p></body></html>", {
      headers: { "content-type": "text/html" },
    })
  );
}

Deno.test("vercel: two tenants see nothing of each other's", { timeout: 60_000 }, async () => {
  await using origin = pageOrigin();
  const lines: string[] = [];
  const channels = new Map<string, QuestionChannel>();
  const handler = vercelHandler({
    env: {
      OUTPOST_TENANTS: JSON.stringify([ALPHA, BETA, GAMMA]),
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
    },
    parts: {
      // One cache for every tenant, as a store spanning instances would be.
      cache: new MemoryUrlCache(),
      channelFor: (tenant) => {
        if (!channels.has(tenant)) channels.set(tenant, new MemoryQuestionChannel());
        return channels.get(tenant)!;
      },
      // No domainPolicy: GAMMA's rules apply without one, as on the Worker.
      log: (line) => lines.push(line),
    },
  });
  await isolation(
    {
      fetch: (path, init) => handler(new Request(new URL(path, "https://outpost.example"), init)),
      log: () => lines,
    },
    origin.origin,
    () => origin.received.length,
    true,
  );
  assert.deepEqual([...channels.keys()].sort(), ["alpha", "beta"]);
});

Deno.test("workerd: two tenants see nothing of each other's, each in its own Durable Object", {
  timeout: 120_000,
}, async () => {
  await using origin = pageOrigin();
  let stdout = "";
  await using worker = await startWorker({
    vars: {
      OUTPOST_TENANTS: JSON.stringify([ALPHA, BETA, GAMMA]),
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
    },
    onStdout: (text) => stdout += text,
  });
  const { qa, qb } = await isolation(
    {
      fetch: (path, init) => worker.fetch(path, init),
      log: () => stdout.split("\n").filter((line) => line.startsWith("{")),
    },
    origin.origin,
    () => origin.received.length,
    true,
  );
  // Each tenant's questions are in the object named by its id; `default` holds none.
  const namespace = await worker.durableObjects("OUTPOST_QUESTIONS");
  const historyOf = async (name: string) =>
    (await new DurableObjectQuestionChannel(namespace, name).resolved(10)).map((q) =>
      q.question.id
    );
  assert.deepEqual(await historyOf("alpha"), [qa]);
  assert.deepEqual(await historyOf("beta"), [qb]);
  assert.deepEqual(await historyOf("default"), []);
});

/** `deno task start` as users run it, with `env` only; resolves once it listens. */
async function startDeno(env: Record<string, string>, dataDir: string) {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const [, ...args] = (config.tasks.start as string).split(/\s+/);
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args, "--port", "0", "--data-dir", dataDir],
    cwd: root,
    env: { NO_COLOR: "1", ...inheritedEnv(), ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  const reading = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (stdout += text) }),
  );
  const stderr = new Response(child.stderr).text();
  const exited = child.status;
  let listening = false;
  await Promise.race([
    waitFor(() => (listening = /Press Ctrl-C to stop\./.test(stdout)), "the service to start", {
      timeoutMs: 60_000,
    }),
    exited,
  ]);
  if (!listening) {
    throw new Error(`the service exited: ${stdout}${await stderr}`);
  }
  const url = /listening on (http:\/\/\S+?)\/\n/.exec(stdout)![1];
  return {
    url,
    output: () => stdout,
    async stop() {
      child.kill("SIGTERM");
      assert.equal((await exited).code, 0, await stderr);
      await reading;
    },
  };
}

Deno.test(
  "deno: two tenants (from OUTPOST_TENANTS_FILE) see nothing of each other's, each under its own KV prefix",
  {
    timeout: 120_000,
  },
  async () => {
    await using origin = pageOrigin();
    const dir = await Deno.makeTempDir({ prefix: "outpost-tenants-" });
    try {
      // From a file here (OUTPOST_TENANTS_FILE); the variable is read as on the other runtimes.
      await Deno.writeTextFile(`${dir}/tenants.json`, JSON.stringify([ALPHA, BETA, GAMMA]));
      const service = await startDeno({
        OUTPOST_TENANTS_FILE: `${dir}/tenants.json`,
        OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
      }, dir);
      let ids;
      try {
        assert.match(service.output(), /Tenants:\s+alpha, beta, gamma\n/);
        ids = await isolation(
          {
            fetch: (path, init) => fetch(new URL(path, service.url), init),
            log: () => service.output().split("\n").filter((line) => line.startsWith("{")),
          },
          origin.origin,
          () => origin.received.length,
          true,
        );
      } finally {
        await service.stop();
      }
      // Each tenant's questions under its own prefix; the default's holds none.
      using kv = await Deno.openKv(`${dir}/outpost.sqlite3`);
      const keys = async (...prefix: string[]) =>
        (await Array.fromAsync(kv.list({ prefix }))).map((entry) => entry.key.join("/")).join();
      assert.match(await keys("outpost", "tenant", "alpha"), new RegExp(ids.qa));
      assert.doesNotMatch(await keys("outpost", "tenant", "alpha"), new RegExp(ids.qb));
      assert.match(await keys("outpost", "tenant", "beta"), new RegExp(ids.qb));
      assert.equal(await keys("outpost", "human"), "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/** Settings refused at start, each with what the message must say; none may quote a token. */
const BAD_TENANTS: [string, RegExp][] = [
  [`[{"id": "alpha", "toolTokens": ["${A_TOOL}"],}]`, /OUTPOST_TENANTS is not valid JSON/],
  [`{"id": "alpha", "toolTokens": ["${A_TOOL}"]}`, /must be a non-empty JSON array/],
  ["[]", /must be a non-empty JSON array/],
  [JSON.stringify([{ ...ALPHA, colour: "red" }]), /tenant "alpha" has an unknown field, "colour"/],
  [JSON.stringify([ALPHA, { ...BETA, id: "alpha" }]), /tenant "alpha" is listed twice/],
  [JSON.stringify([{ ...ALPHA, id: "Alpha Team" }]), /entry 1 needs an `id` of 1 to 63/],
  [
    JSON.stringify([ALPHA, { ...BETA, toolTokens: [A_TOOL_2] }]),
    /"beta" shares a token with tenant "alpha"/,
  ],
  [
    JSON.stringify([ALPHA, { ...BETA, operatorToken: A_OP }]),
    /"beta" shares a token with tenant "alpha"/,
  ],
  [JSON.stringify([{ ...ALPHA, operatorToken: A_TOOL }]), /"alpha" uses one token twice/],
  [JSON.stringify([{ ...ALPHA, toolTokens: [] }]), /needs `toolTokens`, a non-empty array/],
  [
    JSON.stringify([{ ...ALPHA, toolTokens: ["short"] }]),
    /has a `toolTokens` that is no token of at least 16/,
  ],
  [JSON.stringify([{ ...ALPHA, tools: ["now", "teleport"] }]), /names an unknown tool, "teleport"/],
  [JSON.stringify([{ ...ALPHA, allowedDomains: ["a.org"], blockedDomains: ["b.org"] }]), /both/],
  [
    JSON.stringify([{ ...ALPHA, limits: { rate: "60/min", burst: 3 } }]),
    /has an unknown field in `limits`, "burst"/,
  ],
  [
    JSON.stringify([{ ...ALPHA, limits: { concurrency: 0 } }]),
    /needs `limits.concurrency` as a positive/,
  ],
  [JSON.stringify([{ ...ALPHA, operatorToken: undefined }]), /"alpha" needs an `operatorToken`/],
  [JSON.stringify([{ ...ALPHA, limits: { rate: 60 } }]), /"alpha" needs `limits.rate` as a rate/],
  [
    JSON.stringify([{ ...ALPHA, limits: { rate: "lots/min" } }]),
    /tenant "alpha"'s `limits.rate` must be a number of calls per period such as 60\/min/,
  ],
];

function assertNoToken(text: string) {
  for (const token of TOKENS) assert.ok(!text.includes(token), `a token is quoted in: ${text}`);
  assert.ok(!text.includes("short"), `a token is quoted in: ${text}`);
}

Deno.test("settings: a bad OUTPOST_TENANTS is a SetupError naming the tenant, never a token", () => {
  const parts = { channelFor: () => new MemoryQuestionChannel() };
  for (const [tenants, message] of BAD_TENANTS) {
    let thrown: unknown;
    try {
      createServiceApp(readServiceSettings({ OUTPOST_TENANTS: tenants }), parts, "here");
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof SetupError, `no SetupError for ${message}`);
    assert.match(thrown.message, message);
    assertNoToken(`${thrown.message} ${thrown.hint}`);
  }
  // Tenants give the tokens; one channel would mix them; a bad domain rule names its tenant.
  const two = JSON.stringify([ALPHA, BETA]);
  const refusals: [Record<string, string>, object, RegExp][] = [
    [{ OUTPOST_TENANTS: two, OUTPOST_TOOL_TOKEN: A_TOOL }, parts, /leave OUTPOST_TOOL_TOKEN/],
    [{ OUTPOST_TENANTS: two }, { channel: new MemoryQuestionChannel() }, /mix the questions/],
    [
      { OUTPOST_TENANTS: JSON.stringify([{ ...GAMMA, allowedDomains: ["*.example.org"] }]) },
      parts,
      /tenant "gamma": allowedDomains\[0\] \("\*\.example\.org"\) has a wildcard/,
    ],
    [{ OUTPOST_TENANTS: two }, {}, /ask_human needs a question channel/],
  ];
  for (const [env, given, message] of refusals) {
    assert.throws(() => createServiceApp(readServiceSettings(env), given, "here"), message);
  }
  // An invalid domain rule is refused at start by the policy it builds.
  const badRule = JSON.stringify([{ ...GAMMA, allowedDomains: ["co.uk"] }]);
  assert.throws(
    () =>
      createServiceApp(readServiceSettings({ OUTPOST_TENANTS: badRule }), {
        domainPolicy: (mode, rules) => DomainPolicy[mode](rules),
      }, "here"),
    /public suffix/,
  );
});

// A token shared by two tenants; a tenant's `limits.rate` that is no rate.
const REFUSED_AT_START = [BAD_TENANTS[6], BAD_TENANTS.at(-1)!];

Deno.test("each runtime refuses a bad OUTPOST_TENANTS at start: exit 2, or 503", {
  timeout: 240_000,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "outpost-tenants-" });
  try {
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
    const [, ...args] = (config.tasks.start as string).split(/\s+/);
    for (const [bad, expected] of REFUSED_AT_START) {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [...args, "--port", "0", "--data-dir", dir],
        cwd: root,
        env: { NO_COLOR: "1", ...inheritedEnv(), OUTPOST_TENANTS: bad },
        clearEnv: true,
        stdin: "null",
      }).output();
      const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
      assert.equal(code, 2, output);
      assert.match(output, expected);
      assertNoToken(output);
    }
    // A tenants file that cannot be read is named, and stops the start too.
    const missing = await new Deno.Command(Deno.execPath(), {
      args: [...args, "--port", "0", "--data-dir", dir],
      cwd: root,
      env: { NO_COLOR: "1", ...inheritedEnv(), OUTPOST_TENANTS_FILE: `${dir}/none.json` },
      clearEnv: true,
      stdin: "null",
    }).output();
    assert.equal(missing.code, 2);
    assert.match(
      new TextDecoder().decode(missing.stderr),
      /OUTPOST_TENANTS_FILE names a file that cannot be read \(NotFound\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  for (const [bad, expected] of REFUSED_AT_START) {
    const vercel = vercelHandler({ env: { OUTPOST_TENANTS: bad } });
    const refused = await vercel(new Request("https://outpost.example/tools"));
    assert.equal(refused.status, 503);
    const body = await refused.json();
    assert.match(body.error, expected);
    assertNoToken(JSON.stringify(body));
  }
  // The Worker also refuses a domain rule that is no rule.
  const schemeRule = JSON.stringify([{ ...GAMMA, allowedDomains: ["https://example.org"] }]);
  for (const [bad, expected] of [...REFUSED_AT_START, [schemeRule, /"gamma".*has a scheme/]]) {
    await using worker = await startWorker({ vars: { OUTPOST_TENANTS: bad as string } });
    const response = await worker.fetch("/tools", { headers: bearer(A_TOOL) });
    assert.equal(response.status, 503);
    const body = await response.json();
    assert.match(body.error, expected as RegExp);
    assertNoToken(JSON.stringify(body));
  }
});

/**
 * Alpha's own rate (1 an hour) against the deployment's (`OUTPOST_RATE_LIMIT`, 3 an hour), which
 * beta, setting none, keeps.
 */
const LIMITED = {
  OUTPOST_TENANTS: JSON.stringify([{ ...ALPHA, limits: { rate: "1/h" } }, BETA]),
  OUTPOST_RATE_LIMIT: "3/h",
  OUTPOST_ACCESS_LOG: "false",
};

/**
 * Alpha's limit refuses alpha's calls while beta's pass; each of alpha's two tool tokens has the
 * limit in full; beta is refused past the deployment's limit.
 */
async function limitsPerTenant(d: Deployment) {
  const statusOf = async (token: string) => {
    const response = await call(d, token, "now", {});
    const body = await response.json();
    return response.status === 429 ? `429 ${body.code}` : `${response.status}`;
  };
  assert.equal(await statusOf(A_TOOL), "200");
  assert.equal(await statusOf(A_TOOL), "429 rate_limited");
  for (let i = 0; i < 3; i++) assert.equal(await statusOf(B_TOOL), "200", `beta's call ${i + 1}`);
  assert.equal(await statusOf(A_TOOL), "429 rate_limited");
  assert.equal(await statusOf(B_TOOL), "429 rate_limited");
  assert.equal(await statusOf(A_TOOL_2), "200");
  assert.equal(await statusOf(A_TOOL_2), "429 rate_limited");
}

Deno.test("limits per tenant: each tenant's own, else the deployment's (Vercel)", {
  timeout: 30_000,
}, async () => {
  const handler = vercelHandler({
    env: LIMITED,
    parts: { channelFor: () => new MemoryQuestionChannel() },
  });
  await limitsPerTenant({
    fetch: (path, init) => handler(new Request(new URL(path, "https://outpost.example"), init)),
    log: () => [],
  });
});

Deno.test("limits per tenant: each tenant's own, else the deployment's (deno task start)", {
  timeout: 120_000,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "outpost-tenants-" });
  try {
    const service = await startDeno(LIMITED, dir);
    try {
      await limitsPerTenant({
        fetch: (path, init) => fetch(new URL(path, service.url), init),
        log: () => [],
      });
    } finally {
      await service.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("limits per tenant: each tenant's own, else the deployment's (workerd)", {
  timeout: 120_000,
}, async () => {
  await using worker = await startWorker({ vars: LIMITED });
  await limitsPerTenant({ fetch: (path, init) => worker.fetch(path, init), log: () => [] });
});
