import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import postgres from "postgres";
import { DenoKvQuestionChannel } from "../edge/deno/mod.ts";
import { inheritedEnv } from "./support/inherited_env.ts";
import {
  assertRefusesDatabaseUrls,
  freshDatabase,
  postgresMissing,
  REFUSED_DATABASE_URLS,
} from "./support/postgres.ts";
import { start, within } from "./support/service_process.ts";
import { localServer } from "./support/local_server.ts";
import { makePdf } from "./support/pdf.ts";
import { waitFor } from "./support/wait.ts";

const ENTRY = new URL("../edge/deno/app/mcp_stdio.ts", import.meta.url).pathname;

function inherited(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      !name.startsWith("OUTPOST_") && name !== "TAVILY_API_KEY"
    ),
  );
}

type Elicited = { message: string; requestedSchema: unknown };

/** Starts `deno task mcp` as an MCP client would, as a subprocess on stdio. */
async function stdioClient(
  options: {
    args?: string[];
    answer?: (request: Elicited) => ElicitResult;
    env?: Record<string, string>;
    /** Receives the server's stderr, which is otherwise the test's. */
    onStderr?: (text: string) => void;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: "outpost-stdio-test", version: "1.0.0" },
    options.answer ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params as Elicited));
  }
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", ENTRY, ...(options.args ?? [])],
    // This environment (DENO_DIR, proxies) without our own settings, and loopback pages only
    // in these tests; the search backend is never called.
    env: { ...inherited(), OUTPOST_ALLOW_PRIVATE_NETWORK: "true", ...options.env },
    stderr: options.onStderr ? "pipe" : "inherit",
  });
  const onStderr = options.onStderr;
  if (onStderr) transport.stderr?.on("data", (chunk: unknown) => onStderr(String(chunk)));
  await client.connect(transport);
  return client;
}

Deno.test({
  name: "deno task mcp serves the tools over stdio: list, now, web_fetch on a local page",
  timeout: 60_000,
}, async () => {
  await using site = localServer(() =>
    new Response(
      "<!doctype html><title>Notes</title><main><h1>Notes</h1><p>Stdio <b>works</b>.</p></main>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    )
  );
  const client = await stdioClient();
  try {
    assert.equal(client.getServerVersion()?.name, "outpost");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["web_fetch", "web_search", "now", "ask_human"]);
    const time = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
    assert.match(
      (time.content as { text: string }[])[0].text,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/,
    );
    const page = await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    assert.equal(page.isError, undefined);
    const text = (page.content as { text: string }[])[0].text;
    assert.match(text, /# Notes/);
    assert.match(text, /Stdio \*\*works\*\*\./);
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "over stdio, ask_human asks the client's user through elicitation",
  timeout: 60_000,
}, async () => {
  const asked: Elicited[] = [];
  const replies: ElicitResult[] = [
    { action: "accept", content: { answer: "Staging" } },
    { action: "accept", content: { answer: ["Logs", "Metrics"] } },
    { action: "accept", content: { answer: "Next Tuesday" } },
    { action: "decline" },
    { action: "cancel" },
  ];
  const client = await stdioClient({
    answer: (request) => {
      asked.push(request);
      return replies.shift()!;
    },
  });
  const call = async (args: Record<string, unknown>) => {
    const result = await client.callTool({ name: "ask_human", arguments: args });
    return { text: (result.content as { text: string }[])[0].text, isError: result.isError };
  };
  try {
    const options = [{ label: "Staging", description: "First" }, { label: "Production" }];
    assert.deepEqual(await call({ question: "Where?", options }), {
      text: "Staging",
      isError: undefined,
    });
    assert.deepEqual(asked[0], {
      mode: "form",
      message: "Where?",
      requestedSchema: {
        type: "object",
        properties: {
          answer: {
            type: "string",
            title: "Choose one",
            oneOf: [
              { const: "Staging", title: "Staging — First" },
              { const: "Production", title: "Production" },
            ],
          },
        },
        required: ["answer"],
      },
    });
    const many = [{ label: "Logs" }, { label: "Metrics" }, { label: "Traces" }];
    assert.equal(
      (await call({ question: "Which signals?", options: many, multi_select: true })).text,
      "Logs\nMetrics",
    );
    assert.deepEqual((asked[1].requestedSchema as { properties: unknown }).properties, {
      answer: {
        type: "array",
        title: "Choose one or more",
        minItems: 1,
        items: {
          anyOf: [
            { const: "Logs", title: "Logs" },
            { const: "Metrics", title: "Metrics" },
            { const: "Traces", title: "Traces" },
          ],
        },
      },
    });
    assert.equal((await call({ question: "When?" })).text, "Next Tuesday");
    assert.deepEqual((asked[2].requestedSchema as { properties: unknown }).properties, {
      answer: { type: "string", title: "Answer", minLength: 1, maxLength: 20_000 },
    });
    const declined = await call({ question: "Really?" });
    assert.equal(declined.isError, true);
    assert.match(
      declined.text,
      /^Error: The operator cancelled the question \(the user declined\)/,
    );
    const dismissed = await call({ question: "Really, really?" });
    assert.match(dismissed.text, /the user dismissed the question/);
  } finally {
    await client.close();
  }
});

Deno.test({
  name:
    "over stdio without elicitation, ask_human falls back to the operator channel in --data-dir",
  timeout: 60_000,
}, async () => {
  const dir = await Deno.makeTempDir();
  const client = await stdioClient({ args: ["--data-dir", dir] });
  const kv = await Deno.openKv(`${dir}/outpost.sqlite3`);
  const operator = new DenoKvQuestionChannel(kv, { pollMs: 20 });
  try {
    const calling = client.callTool({
      name: "ask_human",
      arguments: { question: "Ship it?" },
      _meta: { "outpost/toolCallId": "call_stdio" },
    });
    await waitFor(async () => (await operator.pending).length === 1, "the question");
    const [question] = await operator.pending;
    assert.equal(question.question, "Ship it?");
    assert.equal(question.toolCallId, "call_stdio");
    assert.equal(await operator.answer(question.id, "Yes"), true);
    assert.deepEqual((await calling).content, [{ type: "text", text: "Yes" }]);
    // A client's explicit cancel withdraws even a call with a tool-call id.
    const cancel = new AbortController();
    const cancelled = client.callTool(
      {
        name: "ask_human",
        arguments: { question: "Ship it now?" },
        _meta: { "outpost/toolCallId": "call_cancelled" },
      },
      undefined,
      { signal: cancel.signal },
    ).catch((error) => error);
    await waitFor(async () => (await operator.pending).length === 1, "the second question");
    const [second] = await operator.pending;
    cancel.abort("changed my mind");
    await cancelled;
    await waitFor(
      async () => (await operator.get(second.id))?.status === "cancelled",
      "the withdrawal",
    );
  } finally {
    await client.close();
    await operator.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "with OUTPOST_DATABASE_URL, deno task mcp keeps questions and pages in PostgreSQL, " +
    "answered from deno task start's operator API on the same database",
  ignore: !!postgresMissing,
  ...within(2),
}, async () => {
  await using site = localServer(() =>
    new Response("<!doctype html><title>Notes</title><main><p>Cached here.</p></main>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  const database = await freshDatabase();
  const operatorToken = "operator-token-0123456789abcdef";
  // Given a data dir too, as `deno task start` does, the database wins.
  const dir = await Deno.makeTempDir();
  const client = await stdioClient({
    args: ["--data-dir", dir],
    env: { OUTPOST_DATABASE_URL: database },
  });
  const service = await start([], {
    ...inheritedEnv(),
    OUTPOST_TOOL_TOKEN: "tool-token-0123456789abcdef",
    OUTPOST_OPERATOR_TOKEN: operatorToken,
    OUTPOST_DATABASE_URL: database,
  });
  const sql = postgres(database, { onnotice: () => {} });
  const operator = (path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${operatorToken}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  try {
    const calling = client.callTool({
      name: "ask_human",
      arguments: { question: "Ship it?" },
      _meta: { "outpost/toolCallId": "call_pg" },
    });
    // Awaited below; a failure before that fails the test, not the run.
    calling.catch(() => {});
    let questions: { id: string; question: string; toolCallId?: string }[] = [];
    await waitFor(
      async () => (questions = (await (await operator("/questions")).json()).questions).length > 0,
      "the question on the service",
    );
    assert.deepEqual(questions.map((q) => [q.question, q.toolCallId]), [["Ship it?", "call_pg"]]);
    const answered = await operator(`/questions/${questions[0].id}/answer`, { answer: "Yes" });
    assert.equal(answered.status, 200, await answered.text());
    assert.deepEqual((await calling).content, [{ type: "text", text: "Yes" }]);

    const page = await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    assert.match((page.content as { text: string }[])[0].text, /Cached here\./);
    const [{ count }] = await sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM outpost_url_cache`;
    assert.equal(count, 1, "the page is cached in the database");
    assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing in the data dir");
  } finally {
    await client.close();
    await service.stop();
    await sql.end({ timeout: 5 });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "deno task mcp refuses a bad OUTPOST_DATABASE_URL as deno task start does: exit 2",
  timeout: 60_000,
}, async () => {
  await assertRefusesDatabaseUrls(["run", "-A", ENTRY], inheritedEnv(), REFUSED_DATABASE_URLS);
});

Deno.test({
  name: "over stdio without elicitation or a data dir, ask_human says no operator can answer",
  timeout: 60_000,
}, async () => {
  const client = await stdioClient();
  try {
    const result = await client.callTool({ name: "ask_human", arguments: { question: "Hi?" } });
    assert.equal(result.isError, true);
    assert.match(
      (result.content as { text: string }[])[0].text,
      /^Error: No operator can answer: .*start the MCP server with --data-dir/,
    );
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "deno task mcp reads PDFs, as deno task start does",
  timeout: 60_000,
}, async () => {
  await using site = localServer(() =>
    new Response(makePdf({ pages: [["Quarterly figures rose."]] }).slice(), {
      headers: { "content-type": "application/pdf" },
    })
  );
  const client = await stdioClient();
  try {
    const page = await client.callTool({
      name: "web_fetch",
      arguments: { url: `${site.origin}/report.pdf` },
    });
    const text = (page.content as { text: string }[])[0].text;
    assert.match(text, /HTTP 200 · application\/pdf/);
    assert.match(text, /Quarterly figures rose\./);
  } finally {
    await client.close();
  }
});

const CHROMIUM = "/usr/bin/chromium";
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);

Deno.test({
  name: "deno task mcp with OUTPOST_BROWSER renders a page only a script fills",
  // Skipped where Debian's chromium is missing; CI sets OUTPOST_REQUIRE_CHROMIUM=1.
  ignore: chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1",
  timeout: 90_000,
}, async () => {
  await using site = localServer(() =>
    new Response(
      `<!doctype html><title>App</title><div id="app"></div><script>
        document.getElementById("app").innerHTML = "<p>Written by the page's own script.</p>";
      </script>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    )
  );
  const client = await stdioClient({ env: { OUTPOST_BROWSER: CHROMIUM } });
  try {
    const { tools } = await client.listTools();
    const webFetch = tools.find((t) => t.name === "web_fetch")!;
    assert.ok("render" in (webFetch.inputSchema.properties ?? {}));
    const page = await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    const text = (page.content as { text: string }[])[0].text;
    assert.match(text, /rendered in a browser/);
    assert.match(text, /Written by the page's own script\./);
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "deno task mcp logs each tool call as a JSON line on stderr, stdout left to the protocol",
  timeout: 60_000,
}, async () => {
  let stderr = "";
  const client = await stdioClient({ onStderr: (text) => (stderr += text) });
  try {
    const result = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
    assert.equal(result.isError, undefined);
    await waitFor(() => stderr.includes('{"time"'), "the access-log line");
    const line = stderr.split("\n").find((text) => text.startsWith('{"time"'))!;
    const entry = JSON.parse(line);
    assert.deepEqual([entry.tool, entry.outcome, entry.tenant], ["now", "ok", "default"]);
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "deno task mcp: titles, structured `now`, logging/setLevel filtering notifications/message",
  timeout: 60_000,
}, async () => {
  await using site = localServer(() =>
    new Response("<!doctype html><title>Notes</title><main><h1>Notes</h1></main>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  const client = await stdioClient();
  const logged: { level: string; logger?: string; data: unknown }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push(n.params);
  });
  try {
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === "now")!;
    assert.equal(listed.title, "Current time");
    assert.equal(listed.outputSchema?.type, "object");
    const time = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
    assert.equal(
      (time.structuredContent as { time: string }).time,
      (time.content as { text: string }[])[0].text,
    );
    assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ["fetch"]);

    // By default only warnings and worse: a plain fetch says nothing.
    await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    assert.deepEqual(logged, []);
    // The level holds for the session: the fetch's change of state now reaches the client.
    await client.setLoggingLevel("info");
    await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    const host = new URL(site.origin).host;
    assert.deepEqual(logged, [{ level: "info", logger: "web_fetch", data: `Fetching ${host}` }]);
  } finally {
    await client.close();
  }
});

const TENANTS = JSON.stringify([
  {
    id: "research",
    toolTokens: ["rs-agents-0123456789abcdef"],
    operatorToken: "rs-operators-0123456789abcdef",
  },
  {
    id: "support",
    toolTokens: ["sp-agents-0123456789abcdef"],
    operatorToken: "sp-operators-0123456789abcdef",
    tools: ["web_fetch", "now", "ask_human"],
    allowedDomains: ["example.org"],
  },
]);

Deno.test({
  name: "with OUTPOST_TENANTS, deno task mcp acts for the tenant OUTPOST_TENANT names: " +
    "its tools, its domain rules, its questions and its log name",
  timeout: 60_000,
}, async () => {
  await using site = localServer(() =>
    new Response("<!doctype html><title>Notes</title><main><p>Local.</p></main>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    })
  );
  const dir = await Deno.makeTempDir();
  let stderr = "";
  const client = await stdioClient({
    args: ["--data-dir", dir],
    env: { OUTPOST_TENANTS: TENANTS, OUTPOST_TENANT: "support" },
    onStderr: (text) => (stderr += text),
  });
  const kv = await Deno.openKv(`${dir}/outpost.sqlite3`);
  const support = new DenoKvQuestionChannel(kv, {
    pollMs: 20,
    prefix: ["outpost", "tenant", "support"],
  });
  const research = new DenoKvQuestionChannel(kv, {
    pollMs: 20,
    prefix: ["outpost", "tenant", "research"],
  });
  const unspaced = new DenoKvQuestionChannel(kv, { pollMs: 20 });
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["web_fetch", "now", "ask_human"]);
    // Its allow list holds: a page elsewhere is refused before it is read.
    const refused = await client.callTool({ name: "web_fetch", arguments: { url: site.origin } });
    assert.equal(refused.isError, true);
    assert.equal(site.received.length, 0);

    const calling = client.callTool({
      name: "ask_human",
      arguments: { question: "Refund it?" },
      _meta: { "outpost/toolCallId": "call_support" },
    });
    calling.catch(() => {});
    await waitFor(async () => (await support.pending).length === 1, "the tenant's question");
    assert.deepEqual(await research.pending, []);
    assert.deepEqual(await unspaced.pending, []);
    const [question] = await support.pending;
    assert.equal(await support.answer(question.id, "Yes"), true);
    assert.deepEqual((await calling).content, [{ type: "text", text: "Yes" }]);

    await waitFor(() => stderr.includes('"tool":"ask_human"'), "the access-log line");
    const entry = JSON.parse(
      stderr.split("\n").find((line) => line.includes('"tool":"ask_human"'))!,
    );
    assert.equal(entry.tenant, "support");
    assert.match(stderr, /tenant support: questions and pages kept in .*outpost\.sqlite3/);
  } finally {
    await client.close();
    for (const channel of [support, research, unspaced]) await channel.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "deno task mcp holds the call limits: the deployment's, and the served tenant's own; " +
    "a call over them is a rate_limited tool error",
  timeout: 60_000,
}, async () => {
  const tenants = JSON.stringify([
    { id: "research", toolTokens: ["rs-agents-0123456789abcdef"] },
    {
      id: "support",
      toolTokens: ["sp-agents-0123456789abcdef"],
      limits: { rate: "1/min" },
    },
  ]);
  for (
    const [env, allowed] of [
      [{ OUTPOST_RATE_LIMIT: "2/min" }, 2],
      [{ OUTPOST_RATE_LIMIT: "3/min", OUTPOST_TENANTS: tenants, OUTPOST_TENANT: "support" }, 1],
      [{ OUTPOST_RATE_LIMIT: "3/min", OUTPOST_TENANTS: tenants, OUTPOST_TENANT: "research" }, 3],
    ] as const
  ) {
    const client = await stdioClient({ env });
    try {
      for (let i = 0; i < allowed; i++) {
        const time = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
        assert.equal(
          time.isError,
          undefined,
          `call ${i + 1} of ${allowed} with ${JSON.stringify(env)}`,
        );
      }
      const refused = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
      assert.equal(refused.isError, true);
      assert.match((refused.content as { text: string }[])[0].text, /Too many tool calls/);
      const error = refused._meta?.["outpost/error"] as { code: string; retryAfterMs: number };
      assert.equal(error.code, "rate_limited");
      assert.ok(error.retryAfterMs > 0);
    } finally {
      await client.close();
    }
  }
});

Deno.test({
  name: "deno task mcp refuses to guess a tenant: OUTPOST_TENANT missing, unknown, or without " +
    "tenants is exit 2, naming the ids and never a token",
  timeout: 60_000,
}, async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ OUTPOST_TENANTS: TENANTS }, /OUTPOST_TENANT must name.*\n.*One of: research, support/],
    [
      { OUTPOST_TENANTS: TENANTS, OUTPOST_TENANT: "sales" },
      /OUTPOST_TENANT names no configured tenant.*\n.*One of: research, support/,
    ],
    [{ OUTPOST_TENANT: "support" }, /OUTPOST_TENANT names a tenant, but no tenants/],
  ];
  for (const [env, message] of cases) {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ENTRY],
      env: { ...inherited(), ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(stderr);
    assert.equal(code, 2, text);
    assert.match(text, message);
    assert.ok(!text.includes("0123456789abcdef"), text);
  }
});
