import assert from "node:assert/strict";
import * as z from "zod";
import { askHuman, type QuestionChannel, tool } from "../mod.ts";
import { MemoryQuestionChannel, requireApproval } from "../src/human/mod.ts";
import { createApp, type OutpostApp } from "../src/http/mod.ts";
import { chromium } from "playwright-core";
import { INVISIBLES, shownAs } from "./support/invisibles.ts";
import { channelView } from "./support/questions.ts";
import { waitFor } from "./support/wait.ts";
import { startWorker } from "./support/workerd.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
const CHROMIUM = "/usr/bin/chromium";
const TITLE = "Outpost — questions";
/** Where the screenshots go to be kept; without it they go to a temporary directory. */
const SCREENSHOTS = Deno.env.get("OUTPOST_CONSOLE_SCREENSHOTS");

// On a machine without Debian's chromium the test is skipped, so the README's test command holds
// everywhere; CI installs chromium and sets OUTPOST_REQUIRE_CHROMIUM=1 so it can never skip there.
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);
const skip = chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1";
if (skip) {
  console.warn(`${CHROMIUM} is missing: the console test is skipped (apt-get install chromium).`);
}

function ask(url: string, input: unknown, toolCallId: string, name = "ask_human") {
  return fetch(`${url}/tools/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOOL_TOKEN}`, "outpost-tool-call-id": toolCallId },
    body: JSON.stringify(input),
  });
}

function operatorPost(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}/questions/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    body: JSON.stringify(body),
  });
}

interface Served {
  url: string;
  app: OutpostApp;
  server: Deno.HttpServer;
}

/** What the approved tool did. */
const deployed: string[] = [];
const deploy = tool({
  name: "deploy",
  description: "Deploys a service to a region.",
  input: z.object({ service: z.string(), region: z.string() }),
  execute: ({ service, region }) => {
    deployed.push(service);
    return `Deployed ${service} to ${region}.`;
  },
});

function serve(channel: QuestionChannel, pollIntervalMs: number, port = 0): Served {
  const app = createApp({
    tools: [askHuman(channel), requireApproval(deploy, channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
    pollIntervalMs,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, app.fetch);
  return { url: `http://127.0.0.1:${server.addr.port}`, app, server };
}

/** Headless Chromium with a fresh profile, as a phone. */
function launch(profile: string) {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
}

Deno.test({
  name: "the operator answers, cancels and sees conflicts, counts and history in Chromium",
  ignore: skip,
  timeout: 300_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const live = serve(channel, 50);
  // A second front on the same channel whose poller looks only every ten minutes, so that an
  // answer given behind its back is seen first as the 409 of the operator's own answer. The
  // channel pushes its changes; this view of it does not, so that the front polls.
  const unpushed = channelView(channel, {}, { history: true });
  const stale = serve(unpushed, 600_000);
  const fronts = [live, stale];
  const shots = SCREENSHOTS ?? await Deno.makeTempDir({ prefix: "outpost-console-shots-" });
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const browser = await launch(profile);
  // Headless Chromium always has the focus, so the test says when the operator looks at another
  // window; and it records the notifications the page shows (the real API still shows them).
  await browser.addInitScript({
    content: `
      window.focused = true;
      window.shown = [];
      document.hasFocus = () => window.focused;
      const Real = window.Notification;
      window.Notification = class extends Real {
        constructor(title, options) {
          super(title, options);
          window.shown.push(title + ": " + options?.body);
        }
      };`,
  });
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    // The page runs under a strict CSP: anything it blocks would show up here.
    const consoleProblems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || /Content.Security.Policy/i.test(message.text())) {
        consoleProblems.push(message.text());
      }
    });
    const shot = (name: string) =>
      page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
    const shown = () => page.evaluate(() => (window as unknown as { shown: string[] }).shown);
    const lookAway = (away: boolean) =>
      page.evaluate((away) => (window as unknown as { focused: boolean }).focused = !away, away);

    await page.goto(`${live.url}/`);
    await page.getByLabel("Operator token").fill("wrong-token-0123456789");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("The token was not accepted.").waitFor();
    await page.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("No questions waiting.").waitFor();
    assert.equal(await page.title(), TITLE);

    // Notifications take one click to allow.
    await browser.grantPermissions(["notifications"], { origin: live.url });
    await page.getByRole("button", { name: "Turn on notifications" }).click();
    await page.getByText("Notifications on").waitFor();

    // A question arrives while the operator looks elsewhere: a notification, a count in the title.
    await lookAway(true);
    const single = ask(live.url, {
      question: "Deploy the release to which environment?",
      options: [
        { label: "Staging", description: "Try it there first" },
        { label: "Production", description: "Ship it now" },
      ],
    }, "call_single");
    await page.getByText("Deploy the release to which environment?").waitFor();
    assert.equal(await page.title(), `(1) ${TITLE}`);
    assert.deepEqual(await shown(), [
      "A question is waiting: Deploy the release to which environment?",
    ]);
    assert.equal(await page.getByText("call call_single").count(), 1);
    assert.equal(await page.locator("article .age").first().textContent(), "just now");

    // The next one, while the operator is looking: counted, but no notification.
    await lookAway(false);
    const open = ask(live.url, { question: "Which checks should run?" }, "call_checks");
    await page.getByText("Which checks should run?").waitFor();
    assert.equal(await page.title(), `(2) ${TITLE}`);
    assert.equal((await shown()).length, 1);
    await shot("1-two-questions");
    // The cards do not touch.
    const [first, second] = await page.locator("article.card").evaluateAll((cards) =>
      cards.map((card) => card.getBoundingClientRect()).map(({ top, bottom }) => ({ top, bottom }))
    );
    assert.ok(second.top - first.bottom >= 12, `${second.top - first.bottom}px between cards`);

    await page.getByRole("button", { name: /Staging/ }).click();
    assert.deepEqual(await (await single).json(), { text: "Staging" });
    await page.locator("article", { hasText: "Deploy the release" }).waitFor({ state: "detached" });
    assert.equal(await page.title(), `(1) ${TITLE}`);

    // Someone else answers while this operator is typing: the card stays, says who won with
    // what, and keeps the text.
    await page.getByLabel("Free-text answer").fill("Lint, and the <b>smoke</b> test");
    const { questions: [checks] } = await (await fetch(`${live.url}/questions`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    })).json();
    assert.equal(
      (await operatorPost(live.url, `${checks.id}/answer`, { answer: "All of them" })).status,
      200,
    );
    assert.deepEqual(await (await open).json(), { text: "All of them" });
    const card = page.locator("article.card", { hasText: "Which checks should run?" });
    await card.getByText("Already answered by someone else").waitFor();
    assert.equal(await card.locator("blockquote").textContent(), "All of them");
    assert.equal(
      await card.getByLabel("Free-text answer").inputValue(),
      "Lint, and the <b>smoke</b> test",
    );
    // Nothing left to send from it: only a way to dismiss it.
    assert.equal(await card.getByRole("button", { name: "Answer" }).count(), 0);
    assert.equal(await card.getByLabel("Free-text answer").getAttribute("readonly"), "");
    assert.equal(await page.title(), TITLE);
    await shot("2-answered-elsewhere");
    await card.getByRole("button", { name: "Dismiss" }).click();
    await page.getByText("No questions waiting.").waitFor();

    // Cancel asks first, takes a reason, and the model is told it.
    const markup = 'Anything else? <b>bold</b> <img src=x onerror="document.title=1">';
    const cancelled = ask(live.url, { question: markup }, "call_cancel");
    await page.getByText(markup, { exact: true }).waitFor();
    assert.equal(await page.locator("article b, article img").count(), 0);
    await page.getByRole("button", { name: "Cancel question" }).click();
    await page.getByText("Cancel this question?").waitFor();
    await page.getByRole("button", { name: "Keep it" }).click();
    assert.equal(await page.getByText("Cancel this question?").isVisible(), false);
    await page.getByRole("button", { name: "Cancel question" }).click();
    await page.getByLabel("Reason for the agent (optional)").fill("Out of scope for this run");
    await shot("3-cancel-confirm");
    await page.getByLabel("Reason for the agent (optional)").press("Enter");
    const refusal = await cancelled;
    assert.equal(refusal.status, 422);
    assert.match(
      (await refusal.json()).error,
      /cancelled the question \(Out of scope for this run\)/,
    );
    await page.getByText("No questions waiting.").waitFor();

    // The history lists what was resolved, newest first, with outcome, who and when.
    const history = page.locator("#history li");
    await page.getByRole("heading", { name: "Recently resolved" }).waitFor();
    assert.deepEqual(await history.locator(".badge").allTextContents(), [
      "Cancelled",
      "Answered",
      "Answered",
    ]);
    assert.deepEqual(await history.locator(".by").allTextContents(), [
      "by you",
      "elsewhere",
      "by you",
    ]);
    assert.deepEqual(await history.locator(".entry-outcome").allTextContents(), [
      "Reason: Out of scope for this run",
      "All of them",
      "Staging",
    ]);
    assert.match((await history.locator("time").first().textContent())!, /\d{1,2}:\d{2}/);

    // A reload keeps the token, and the history comes back from the server.
    await page.reload();
    await page.getByText("No questions waiting.").waitFor();
    assert.equal(await page.getByLabel("Operator token").isVisible(), false);
    await waitFor(async () => await history.count() === 3, "the history from the server");
    assert.deepEqual(await history.locator(".entry-outcome").allTextContents(), [
      "Reason: Out of scope for this run",
      "All of them",
      "Staging",
    ]);
    await shot("4-history");

    // Several choices plus free text.
    const multi = ask(live.url, {
      question: "Which regions?",
      options: [{ label: "eu-west" }, { label: "us-east" }, { label: "ap-south" }],
      multi_select: true,
    }, "call_multi");
    await page.getByText("Which regions?").waitFor();
    await page.getByRole("checkbox", { name: /eu-west/ }).check();
    await page.getByRole("checkbox", { name: /ap-south/ }).check();
    await page.getByLabel("Free-text answer").fill("and a canary");
    await page.getByLabel("Free-text answer").press("Control+Enter");
    assert.deepEqual(await (await multi).json(), { text: "eu-west\nap-south\nand a canary" });

    // Approvals are their own card: the tool, its input, Approve, and Deny with a reason.
    // Shown as canonical JSON: keys sorted.
    const input = { region: "eu-west", service: "billing" };
    const denied = ask(live.url, input, "call_deploy_1", "deploy");
    const approval = page.locator("article.approval");
    await approval.waitFor();
    assert.equal(await approval.locator(".question").textContent(), "Run deploy?");
    assert.equal(
      await approval.locator(".summary").textContent(),
      "Deploys a service to a region.",
    );
    assert.equal(await approval.locator("pre.input").textContent(), JSON.stringify(input, null, 2));
    assert.equal(await approval.getByLabel("Free-text answer").count(), 0);
    await shot("5-approval");
    await approval.getByRole("button", { name: "Deny", exact: true }).click();
    await approval.getByLabel("Reason for the agent (optional)").fill(
      "Billing is frozen this week",
    );
    await shot("5-approval-deny");
    await approval.getByRole("button", { name: "Deny the call" }).click();
    const refused = await denied;
    assert.equal(refused.status, 422);
    assert.match(
      (await refused.json()).error,
      /denied this call to deploy: Billing is frozen this week/,
    );
    assert.deepEqual(deployed, []);
    const approved = ask(live.url, input, "call_deploy_2", "deploy");
    await approval.waitFor();
    await approval.getByRole("button", { name: "Approve" }).click();
    assert.deepEqual(await (await approved).json(), { text: "Deployed billing to eu-west." });
    assert.deepEqual(deployed, ["billing"]);
    // The tool's reply may come before the console has the answer route's.
    await history.first().getByText("Approved").waitFor();
    assert.deepEqual((await history.locator(".badge").allTextContents()).slice(0, 2), [
      "Approved",
      "Denied",
    ]);
    assert.deepEqual((await history.locator(".entry-outcome").allTextContents()).slice(0, 2), [
      "The call ran.",
      "Reason: Billing is frozen this week",
    ]);

    // The service restarts while the operator types, and the question is answered meanwhile:
    // the console reconnects, says so, and keeps the text.
    const during = ask(live.url, { question: "Restart the workers now?" }, "call_restart");
    await page.getByText("Restart the workers now?").waitFor();
    await page.getByLabel("Free-text answer").fill("Yes, one at a time");
    live.app.close();
    await page.getByText("Reconnecting…").waitFor();
    const [restarting] = await channel.pending;
    assert.equal(channel.answer(restarting.id, "Done already"), true);
    assert.deepEqual(await (await during).json(), { text: "Done already" });
    await live.server.shutdown();
    fronts.push(serve(channel, 50, Number(new URL(live.url).port)));
    const resumed = page.locator("article.card", { hasText: "Restart the workers now?" });
    await resumed.getByText("Already answered by someone else").waitFor();
    assert.equal(await resumed.locator("blockquote").textContent(), "Done already");
    assert.equal(await resumed.getByLabel("Free-text answer").inputValue(), "Yes, one at a time");
    await page.getByText("Live").waitFor();
    // The history loaded on reconnect and the outcome seen live are one entry.
    await waitFor(async () => await history.count() === 7, "seven entries");
    assert.equal(await history.filter({ hasText: "Restart the workers now?" }).count(), 1);

    // Sign out forgets the token and what this tab saw.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Operator token").waitFor();
    assert.equal(await history.count(), 0);
    await page.reload();
    await page.getByLabel("Operator token").waitFor();

    // Lost race: another answer arrives behind the stale front's back, then this operator
    // clicks an option. The server says 409; the card shows the winning answer.
    const raced = ask(live.url, {
      question: "Roll back the migration?",
      options: [{ label: "Yes" }, { label: "No" }],
    }, "call_race");
    // A question whose asker gave up before the next tab opens.
    const gaveUp = new AbortController();
    const abandoned = channel.ask({
      question: "Still need the logs?",
      options: [],
      multiSelect: false,
    }, { signal: gaveUp.signal });
    gaveUp.abort();
    await assert.rejects(abandoned);
    const racer = await browser.newPage();
    await racer.clock.install();
    racer.on("pageerror", (error) => pageErrors.push(error.message));
    await racer.goto(`${stale.url}/`);
    await racer.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await racer.getByRole("button", { name: "Connect" }).click();
    await racer.getByText("Roll back the migration?").waitFor();
    // A fresh tab has the server's history: all that was resolved before it opened, newest first.
    const earlier = racer.locator("#history li");
    await earlier.first().getByText("Still need the logs?").waitFor();
    assert.equal(await earlier.count(), 8);
    assert.deepEqual((await earlier.locator(".badge").allTextContents()).slice(0, 4), [
      "Withdrawn",
      "Answered",
      "Approved",
      "Denied",
    ]);
    assert.deepEqual((await earlier.locator(".entry-outcome").allTextContents()).slice(0, 4), [
      "The agent stopped waiting (the asking call was aborted).",
      "Done already",
      "The call ran.",
      "Reason: Billing is frozen this week",
    ]);
    assert.equal(
      await earlier.nth(2).locator(".entry-question").textContent(),
      'Run deploy with { "region": "eu-west", "service": "billing" }',
    );
    assert.match((await earlier.locator("time").first().textContent())!, /\d{1,2}:\d{2}/);
    await racer.screenshot({ path: `${shots}/7-fresh-tab-history.png`, fullPage: true });
    const [pending] = await channel.pending;
    assert.equal(channel.answer(pending.id, "No, keep it"), true);
    assert.deepEqual(await (await raced).json(), { text: "No, keep it" });
    await racer.getByRole("button", { name: /^Yes/ }).click();
    const lost = racer.locator("article.card", { hasText: "Roll back the migration?" });
    await lost.getByText("Already answered by someone else").waitFor();
    assert.equal(await lost.locator("blockquote").textContent(), "No, keep it");
    await lost.getByText("Your answer “Yes” was not sent.").waitFor();
    assert.equal(
      await racer.locator("#history .entry-outcome").first().textContent(),
      "No, keep it",
    );
    assert.equal(await earlier.count(), 9);
    await racer.screenshot({ path: `${shots}/6-lost-race.png`, fullPage: true });
    // Each pending question shows its age, which moves on by itself.
    await racer.clock.fastForward("05:00");
    await lost.getByText("5 min ago").waitFor();

    assert.deepEqual(pageErrors, []);
    // The wrong token's 401 is the one error the browser itself logs.
    assert.deepEqual(consoleProblems.filter((text) => !/401/.test(text)), []);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
    if (!SCREENSHOTS) await Deno.remove(shots, { recursive: true });
    channel.close();
    for (const { app, server } of fronts) {
      app.close();
      await server.shutdown();
    }
  }
});

/** Whether `text` holds a character a reader could not see (tab, newline and space aside). */
const HIDDEN = /[^\P{C}\t\n\r]|[^\P{Z} ]|[\p{Default_Ignorable_Code_Point}\u2800]/u;

Deno.test({
  name: "the console shows bidi controls and invisible characters in every string, in Chromium",
  ignore: skip,
  timeout: 300_000,
}, async () => {
  const channel = new MemoryQuestionChannel();
  const front = serve(channel, 50);
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const browser = await launch(profile);
  const all = INVISIBLES.join("");
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${front.url}/`);
    await page.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("No questions waiting.").waitFor();

    // An account number reversed by an override, an option that reads "Neve" but sends
    // "\u202EeveN\u202C", and every invisible in the question, descriptions and ids.
    const spoof = "\u202EeveN\u202C";
    const asking = channel.ask({
      question: `Pay account \u202E0987-6543\u202C? [${all}]`,
      options: [
        { label: spoof, description: `The one \u2066you\u2069 asked for ${all}` },
        { label: "Never", description: "" },
      ],
      multiSelect: false,
      sessionId: `session\u202E${all}`,
      runId: `run\u200B`,
      toolCallId: `call\u2067`,
    });
    const card = page.locator("article.card").first();
    await card.waitFor();
    const text = await card.innerText();
    assert.ok(text.includes("Pay account ⟨U+202E⟩0987-6543⟨U+202C⟩?"), text);
    assert.ok(!HIDDEN.test(text), `a hidden character in ${JSON.stringify(text)}`);
    for (const char of INVISIBLES) {
      // In the question, the description and the session id alike.
      const shown = shownAs(char);
      assert.ok(text.split(shown).length - 1 >= 3, `${shown} in ${text}`);
    }
    assert.ok(text.includes("session session⟨U+202E⟩"));
    assert.ok(text.includes("run run⟨U+200B⟩"));
    assert.ok(text.includes("call call⟨U+2067⟩"));
    const option = card.locator("button.option").first();
    assert.equal(
      await option.locator("strong").innerText(),
      "⟨U+202E⟩eveN⟨U+202C⟩",
    );
    // What the operator read is what the agent gets.
    await option.click();
    assert.deepEqual(await asking, { status: "answered", answer: spoof });

    // An answer and a reason from someone else, and the history, show them too.
    const answeredElsewhere = channel.ask({
      question: "Which account?",
      options: [],
      multiSelect: false,
    });
    const typed = page.locator("article.card", { hasText: "Which account?" });
    await typed.getByLabel("Free-text answer").fill("mine");
    const [pending] = channel.pending;
    assert.equal(channel.answer(pending.id, `\u202E1234\u202C ${all}`), true);
    await answeredElsewhere;
    await typed.getByText("Already answered by someone else").waitFor();
    const notice = await typed.locator(".notice").innerText();
    assert.ok(notice.includes("⟨U+202E⟩1234⟨U+202C⟩"), notice);
    assert.ok(!HIDDEN.test(notice), notice);
    await typed.getByRole("button", { name: "Dismiss" }).click();
    // A cancel whose reason reads like a withdrawal is shown as the cancel it is.
    const fake = channel.ask({ question: "Rotate keys?", options: [], multiSelect: false });
    await page.getByText("Rotate keys?").waitFor();
    assert.equal(channel.cancel(channel.pending[0].id, `withdrawn: nobody ${all}`), true);
    await fake;
    const history = page.locator("#history li");
    await waitFor(async () => await history.count() === 3, "three entries");
    assert.deepEqual(await history.locator(".badge").allTextContents(), [
      "Cancelled",
      "Answered",
      "Answered",
    ]);
    const listed = await page.locator("#history").innerText();
    assert.ok(listed.includes("Reason: withdrawn: nobody ⟨U+202A⟩"), listed);
    assert.ok(!HIDDEN.test(listed), listed);

    // A call's input is shown in its stored order: right-to-left letters reorder nothing.
    const denied = ask(
      front.url,
      { service: "pay", region: "שלום 0987 6543" },
      "call_rtl",
      "deploy",
    );
    const input = page.locator("article.approval pre.input");
    await input.waitFor();
    const [first, second] = await input.evaluate((pre) => {
      const text = pre.firstChild!;
      const left = (word: string) => {
        const range = pre.ownerDocument.createRange();
        const at = text.textContent!.indexOf(word);
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        return range.getBoundingClientRect().left;
      };
      return [left("0987"), left("6543")];
    });
    assert.ok(first < second, `0987 at ${first}px, 6543 at ${second}px`);
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    await page.getByRole("button", { name: "Deny the call" }).click();
    assert.equal((await denied).status, 422);
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
    channel.close();
    front.app.close();
    await front.server.shutdown();
  }
});

Deno.test({
  name: "the console the Worker serves as static assets runs under its policy, in Chromium",
  ignore: skip,
  timeout: 300_000,
}, async () => {
  await using worker = await startWorker({
    vars: { OUTPOST_TOOL_TOKEN: TOOL_TOKEN, OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN },
  });
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const browser = await launch(profile);
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    // A script or style the policy blocked would show up here.
    page.on("console", (message) => {
      if (message.type() === "error" || /Content.Security.Policy/i.test(message.text())) {
        problems.push(message.text());
      }
    });
    await page.goto(`${worker.origin}/`);
    await page.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("No questions waiting.").waitFor();
    // The style sheet applied too.
    assert.equal(
      await page.locator("main").evaluate((main) =>
        main.computedStyleMap().get("display")?.toString()
      ),
      "grid",
    );
    const asking = ask(worker.origin, { question: "Ship it from the Worker?" }, "call_worker");
    await page.getByText("Ship it from the Worker?").waitFor();
    await page.getByLabel("Free-text answer").fill("Yes");
    await page.getByRole("button", { name: "Answer" }).click();
    assert.deepEqual(await (await asking).json(), { text: "Yes" });
    await page.locator("#history li").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
  }
});
