// A question's context: which tenant and session asked it, and what that session's calls did
// just before — through the service as deployed, its operator API and its console in Chromium.
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { readServiceSettings } from "../edge/service/service_settings.ts";
import { createServiceApp } from "../edge/service/service_app.ts";
import { type HumanQuestion, MemoryQuestionChannel } from "../src/human/mod.ts";
import { waitFor } from "./support/wait.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
const CHROMIUM = "/usr/bin/chromium";
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);
const noChromium = chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1";

/** The service with web_fetch, now and ask_human on a memory channel, and a page to read. */
function service(env: Record<string, string> = {}) {
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<title>Page</title><p>Hello.</p>", {
        headers: { "content-type": "text/html" },
      }),
  );
  const lines: string[] = [];
  const channel = new MemoryQuestionChannel();
  const app = createServiceApp(
    readServiceSettings({
      OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
      OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
      OUTPOST_TOOLS: "web_fetch,now,ask_human",
      OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
      ...env,
    }),
    { channel, log: (line) => lines.push(line) },
    "",
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    pageHost: `127.0.0.1:${page.addr.port}`,
    channel,
    lines,
    async [Symbol.asyncDispose]() {
      channel.close();
      app.close();
      await Promise.all([server.shutdown(), page.shutdown()]);
    },
  };
}

/** Calls a tool over the JSON API with these context headers. */
async function call(
  url: string,
  name: string,
  input: unknown,
  ids: { session?: string; run?: string; call?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOOL_TOKEN}` };
  if (ids.session) headers["outpost-session-id"] = ids.session;
  if (ids.run) headers["outpost-run-id"] = ids.run;
  if (ids.call) headers["outpost-tool-call-id"] = ids.call;
  return await fetch(`${url}/tools/${name}`, {
    method: "POST",
    headers,
    body: JSON.stringify(input),
  });
}

/** The pending questions, as the operator API lists them, once `count` are pending. */
async function pending(url: string, count: number): Promise<HumanQuestion[]> {
  let questions: HumanQuestion[] = [];
  await waitFor(async () => {
    const response = await fetch(`${url}/questions`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    ({ questions } = await response.json());
    return questions.length >= count;
  }, `${count} pending questions`);
  return questions;
}

Deno.test(
  "a question carries its tenant and its session's latest calls: tool, time, outcome, host — never the path or query",
  {
    timeout: 60_000,
  },
  async () => {
    await using svc = service();
    const s1 = { session: "agent-1" };
    assert.equal((await call(svc.url, "now", { tz: "UTC" }, s1)).status, 200);
    const read = await call(svc.url, "web_fetch", {
      url: `http://${svc.pageHost}/private/page?token=secret-123`,
    }, s1);
    assert.equal(read.status, 200, await read.clone().text());
    assert.equal((await call(svc.url, "now", { tz: "Mars/Olympus" }, s1)).status, 400);
    // Another session's call and a call without a session are not agent-1's.
    await call(svc.url, "now", {}, { session: "agent-2" });
    await call(svc.url, "now", {});

    const asked = call(svc.url, "ask_human", { question: "Publish the summary?" }, {
      ...s1,
      call: "call_ask",
    });
    const [question] = await pending(svc.url, 1);
    assert.equal(question.sessionId, "agent-1");
    assert.equal(question.context?.tenant, "default");
    const calls = question.context?.recentCalls ?? [];
    assert.deepEqual(
      calls.map((c) => [c.tool, c.outcome, c.errorCode, c.host]),
      [
        ["now", "ok", undefined, undefined],
        ["web_fetch", "ok", undefined, svc.pageHost],
        ["now", "error", "invalid_input", undefined],
      ],
    );
    assert.ok(calls.every((c) => !Number.isNaN(Date.parse(c.time))));
    const shown = JSON.stringify(question);
    assert.doesNotMatch(shown, /secret-123|private|token=/);
    await svc.channel.answer(question.id, "Yes");
    assert.deepEqual(await (await asked).json(), { text: "Yes" });

    // A question asked without a session names the tenant, and no one's calls.
    const anonymous = call(svc.url, "ask_human", { question: "Anyone?" }, { call: "call_anon" });
    const [unnamed] = await pending(svc.url, 1);
    assert.deepEqual(unnamed.context, { tenant: "default" });
    await svc.channel.answer(unnamed.id, "No");
    await (await anonymous).body?.cancel();
  },
);

Deno.test(
  "the memory of recent calls is bounded: the latest 10 per session and run; kept with the access log off",
  {
    timeout: 60_000,
  },
  async () => {
    await using svc = service({ OUTPOST_ACCESS_LOG: "false" });
    const ids = { session: "busy", run: "run-7" };
    for (let i = 0; i < 12; i++) {
      await (await call(svc.url, "now", { tz: "UTC" }, ids)).body?.cancel();
    }
    await (await call(svc.url, "now", { tz: "Nowhere/Else" }, ids)).body?.cancel();
    // The same session in another run is another agent.
    await (await call(svc.url, "now", {}, { session: "busy", run: "run-8" })).body?.cancel();
    const asked = call(svc.url, "ask_human", { question: "Keep going?" }, { ...ids, call: "c" });
    const [question] = await pending(svc.url, 1);
    const calls = question.context?.recentCalls ?? [];
    assert.equal(calls.length, 10);
    assert.deepEqual(calls.at(-1)?.errorCode, "invalid_input");
    assert.ok(calls.every((c) => c.runId === "run-7"));
    assert.deepEqual(svc.lines, []);
    await svc.channel.answer(question.id, "Yes");
    await (await asked).body?.cancel();
  },
);

Deno.test({
  name: "the console shows who asked and what their session did before, as text",
  ignore: noChromium,
  timeout: 120_000,
}, async () => {
  await using svc = service();
  // A session id is the caller's: markup in it is shown, never run.
  const s1 = { session: "<img src=x onerror=window.pwned=1>" };
  await (await call(svc.url, "web_fetch", { url: `http://${svc.pageHost}/a?q=secret-123` }, s1))
    .body?.cancel();
  await (await call(svc.url, "now", { tz: "Mars/Olympus" }, s1)).body?.cancel();
  const asked = call(svc.url, "ask_human", { question: "Publish the summary?" }, {
    ...s1,
    call: "call_ask",
  });
  await pending(svc.url, 1);
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
  });
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    await page.goto(`${svc.url}/`);
    await page.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    const card = page.locator("article", { hasText: "Publish the summary?" });
    await card.waitFor();
    const meta = await card.locator(".meta").innerText();
    assert.match(meta, /tenant default · session <img src=x onerror=window\.pwned=1>/);
    const items = await card.locator(".meta li").allInnerTexts();
    assert.equal(items.length, 2);
    assert.match(items[0], new RegExp(`web_fetch · ok · ${svc.pageHost.replaceAll(".", "\\.")}$`));
    assert.match(items[1], /now · invalid_input$/);
    assert.doesNotMatch(meta, /secret-123/);
    assert.equal(await card.locator("img").count(), 0);
    assert.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined);
    await card.getByLabel("Free-text answer").fill("Yes");
    await card.getByRole("button", { name: "Answer" }).click();
    assert.deepEqual(await (await asked).json(), { text: "Yes" });
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
  }
});
