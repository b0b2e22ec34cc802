import assert from "node:assert/strict";
import { chromium } from "./support/dev_dependencies.ts";
import { askHuman, HumanChannel } from "../mod.ts";
import { createApp } from "../src/http/mod.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = Deno.env.get("OUTPOST_CONSOLE_SCREENSHOT");

function ask(url: string, input: unknown, toolCallId: string): Promise<Response> {
  return fetch(`${url}/tools/ask_human`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOOL_TOKEN}`, "outpost-tool-call-id": toolCallId },
    body: JSON.stringify(input),
  });
}

// On a machine without Debian's chromium the test is skipped, so the README's test command holds
// everywhere; CI installs chromium and sets OUTPOST_REQUIRE_CHROMIUM=1 so it can never skip there.
const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);
const skip = chromiumMissing && Deno.env.get("OUTPOST_REQUIRE_CHROMIUM") !== "1";
if (skip) {
  console.warn(`${CHROMIUM} is missing: the console test is skipped (apt-get install chromium).`);
}

Deno.test({
  name: "the operator answers ask_human questions from the console in Chromium",
  ignore: skip,
}, async () => {
  const channel = new HumanChannel();
  const app = createApp({
    tools: [askHuman(channel)],
    channel,
    auth: { toolToken: TOOL_TOKEN, operatorToken: OPERATOR_TOKEN },
    pollIntervalMs: 50,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  const profile = await Deno.makeTempDir({ prefix: "outpost-chromium-" });
  const browser = await chromium.launchPersistentContext(profile, {
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
    await page.goto(`${url}/`);

    await page.getByLabel("Operator token").fill("wrong-token-0123456789");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("The token was not accepted.").waitFor();
    await page.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("No questions waiting.").waitFor();

    // One choice: a click on an option answers with its label.
    const single = ask(url, {
      question: "Deploy the release to which environment?",
      options: [
        { label: "Staging", description: "Try it there first" },
        { label: "Production", description: "Ship it now" },
      ],
    }, "call_single");
    await page.getByText("Deploy the release to which environment?").waitFor();
    assert.equal(await page.getByText("call call_single").count(), 1);
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.getByRole("button", { name: /Staging/ }).click();
    assert.deepEqual(await (await single).json(), { text: "Staging" });
    await page.getByText("Deploy the release to which environment?").waitFor({ state: "detached" });

    // Several choices plus free text, after a reload: the token stays in the tab's session.
    await page.reload();
    await page.getByText("No questions waiting.").waitFor();
    assert.equal(await page.getByLabel("Operator token").isVisible(), false);
    const multi = ask(url, {
      question: "Which checks should run?",
      options: [{ label: "Lint" }, { label: "Unit tests" }, { label: "E2E" }],
      multi_select: true,
    }, "call_multi");
    await page.getByText("Which checks should run?").waitFor();
    await page.getByRole("checkbox", { name: /Lint/ }).check();
    await page.getByRole("checkbox", { name: /E2E/ }).check();
    await page.getByLabel("Free-text answer").fill("and the <b>smoke</b> test");
    await page.getByRole("button", { name: "Answer" }).click();
    assert.deepEqual(await (await multi).json(), { text: "Lint\nE2E\nand the <b>smoke</b> test" });

    // Cancel: the call ends with a ToolError. Markup in a question shows as text.
    const markup = 'Anything else? <b>bold</b> <img src=x onerror="document.title=1">';
    const open = ask(url, { question: markup }, "call_cancel");
    await page.getByText(markup, { exact: true }).waitFor();
    assert.equal(await page.locator("article b, article img").count(), 0);
    await page.getByRole("button", { name: "Cancel question" }).click();
    assert.equal((await open).status, 422);
    await page.getByText("No questions waiting.").waitFor();

    assert.deepEqual(pageErrors, []);
    // The wrong token's 401 is the one error the browser itself logs.
    assert.deepEqual(consoleProblems.filter((text) => !/401/.test(text)), []);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
    channel.close();
    app.close();
    await server.shutdown();
  }
});
