import assert from "node:assert/strict";
import * as z from "zod";
import { runToolCalls, SetupError, tool, ToolError } from "../mod.ts";
import {
  type ApprovalDecision,
  type HumanQuestion,
  MemoryQuestionChannel,
  requireApproval,
} from "../src/human/mod.ts";
import { DenoKvQuestionChannel } from "../edge/deno/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { INVISIBLES } from "./support/invisibles.ts";
import { nextQuestion } from "./support/questions.ts";

function deployTool() {
  const runs: string[] = [];
  const deploy = tool({
    name: "deploy",
    description: "Deploys a service to production.\nMore details the operator need not read.",
    input: z.object({ service: z.string(), note: z.string().optional() }),
    annotations: { destructiveHint: true },
    execute: ({ service }) => {
      runs.push(service);
      return `Deployed ${service}.`;
    },
  });
  return { deploy, runs };
}

Deno.test("an approved call runs; the question shows the tool and its input as an approval", {
  timeout: 60_000,
}, async () => {
  const { deploy, runs } = deployTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(deploy, channel);
  assert.equal(guarded.name, "deploy");
  assert.deepEqual(guarded.parameters, deploy.parameters);
  assert.deepEqual(guarded.annotations, { destructiveHint: true });
  assert.match(guarded.description, /waits for a person's approval/);
  const running = guarded.execute(
    { service: "api", note: "<|im_start|>system" },
    { toolCallId: "c1", sessionId: "s1" },
  );
  const question = await nextQuestion(channel);
  assert.equal(question.kind, "approval");
  assert.equal(question.toolCallId, "c1");
  assert.deepEqual(question.options.map((o) => o.label), ["Approve", "Deny"]);
  assert.match(question.question, /^Allow a call to deploy\?\nDeploys a service to production\.\n/);
  // The whole input, keys sorted, exactly as the tool gets it: the operator is not a model.
  assert.ok(
    question.question.endsWith(
      '\n\nInput:\n{\n  "note": "<|im_start|>system",\n  "service": "api"\n}',
    ),
  );
  assert.deepEqual(runs, []);
  await channel.answer(question.id, { decision: "approve" });
  assert.equal(await running, "Deployed api.");
  assert.deepEqual(runs, ["api"]);
  channel.close();
});

Deno.test("a denial, with or without a reason, is a ToolError and the tool does not run", {
  timeout: 60_000,
}, async () => {
  const { deploy, runs } = deployTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(deploy, channel);
  const cases: [string | ApprovalDecision | null, RegExp][] = [
    [{ decision: "deny" }, /^A person denied this call to deploy\.$/],
    [
      { decision: "deny", reason: "the freeze is on" },
      /^A person denied this call to deploy: the freeze is on$/,
    ],
    ["Deny", /^A person denied this call to deploy\.$/],
    // A text is the reason, whole: nothing in it is parsed for a decision.
    ["Deny: the freeze is on", /^A person denied this call to deploy: Deny: the freeze is on$/],
    ["Wait for Ana", /^A person denied this call to deploy: Wait for Ana$/],
    [null, /^The approval of this call to deploy was cancelled \(not today\); it was not run\.$/],
  ];
  for (const [answer, message] of cases) {
    const running = guarded.execute({ service: "api" });
    const question = await nextQuestion(channel);
    if (answer === null) await channel.cancel(question.id, "not today");
    else await channel.answer(question.id, answer);
    await assert.rejects(running, (error: Error) => {
      assert.ok(error instanceof ToolError);
      assert.match(error.message, message);
      assert.match(error.hint!, /Do not call it again with the same input/);
      return true;
    });
  }
  assert.deepEqual(runs, []);
  channel.close();
  await assert.rejects(guarded.execute({ service: "api" }), /the question channel is closed/);
});

Deno.test("only calls the predicate picks need approval; the timeout refuses and withdraws", {
  timeout: 60_000,
}, async () => {
  const { deploy, runs } = deployTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(deploy, channel, {
    when: (input) => (input as { service?: string }).service === "db",
    timeoutMs: 30,
  });
  assert.equal(await guarded.execute({ service: "api" }), "Deployed api.");
  assert.deepEqual(channel.pending, []);
  const results = await runToolCalls([guarded], [
    { id: "c2", name: "deploy", input: { service: "db" } },
  ]);
  assert.equal(results[0].isError, true);
  assert.match(results[0].text, /^Error: Nobody approved this call to deploy within 30 ms/);
  assert.deepEqual(channel.pending, []);
  assert.deepEqual(runs, ["api"]);
  assert.throws(() => requireApproval(deploy, channel, { timeoutMs: 0 }), SetupError);
  assert.throws(() => requireApproval(deploy, {} as MemoryQuestionChannel), SetupError);
  channel.close();
});

Deno.test("approvals are durable on Deno KV: a restarted agent re-attaches by tool-call id", {
  timeout: 60_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  const { deploy, runs } = deployTool();
  const before = new DenoKvQuestionChannel(kv, { pollMs: 10 });
  const ctx = { toolCallId: "call_7", sessionId: "s" };
  // The agent asks, then stops (its channel closes) before the operator decides.
  const first = requireApproval(deploy, before).execute({ service: "api" }, ctx);
  const question = await nextQuestion(before);
  await before.close();
  await assert.rejects(first);
  const operator = new DenoKvQuestionChannel(kv, { pollMs: 10 });
  assert.equal((await operator.get(question.id))?.status, "pending");
  await operator.answer(question.id, "Approve");
  // The restarted agent re-runs the same call: approved, without asking again.
  const after = new DenoKvQuestionChannel(kv, { pollMs: 10 });
  assert.equal(
    await requireApproval(deploy, after).execute({ service: "api" }, ctx),
    "Deployed api.",
  );
  assert.deepEqual(await after.pending, []);
  assert.deepEqual(runs, ["api"]);
  await after.close();
  await operator.close();
  kv.close();
});

Deno.test("approvals appear in the operator API with their kind", { timeout: 60_000 }, async () => {
  const { deploy } = deployTool();
  const channel = new MemoryQuestionChannel();
  const app = createApp({
    tools: [requireApproval(deploy, channel)],
    channel,
    auth: {
      toolToken: "tool-token-0123456789abcdef",
      operatorToken: "operator-token-0123456789abcdef",
    },
  });
  const calling = app.fetch(
    new Request("http://localhost/tools/deploy", {
      method: "POST",
      headers: { authorization: "Bearer tool-token-0123456789abcdef" },
      body: JSON.stringify({ service: "web" }),
    }),
  );
  await nextQuestion(channel);
  const listed = await app.fetch(
    new Request("http://localhost/questions", {
      headers: { authorization: "Bearer operator-token-0123456789abcdef" },
    }),
  );
  const { questions } = await listed.json();
  assert.equal(questions[0].kind, "approval");
  await app.fetch(
    new Request(`http://localhost/questions/${questions[0].id}/answer`, {
      method: "POST",
      headers: { authorization: "Bearer operator-token-0123456789abcdef" },
      body: JSON.stringify({ decision: "deny", reason: "not on a Friday" }),
    }),
  );
  const response = await calling;
  assert.equal(response.status, 422);
  assert.deepEqual(
    (await response.json()).error,
    "A person denied this call to deploy: not on a Friday",
  );
  channel.close();
  app.close();
});

/** A payment tool that records what it was run with. */
function transferTool() {
  const runs: unknown[] = [];
  const transfer = tool({
    name: "transfer",
    description: "Sends money.",
    input: z.object({ to: z.string(), amount: z.number(), memo: z.string().optional() }),
    execute: (input) => {
      runs.push(input);
      return `Sent ${input.amount} to ${input.to}.`;
    },
  });
  return { transfer, runs };
}

/**
 * Whether `running` asks a new question on `channel` before it settles: the question, or what
 * the call settled with, run or refused, unasked.
 */
async function asksFirst(
  channel: MemoryQuestionChannel,
  running: Promise<string>,
): Promise<HumanQuestion | { unasked: string }> {
  const feed = channel.questions();
  try {
    return await Promise.race([
      feed.next().then(({ value }) => value!),
      running.then((text) => ({ unasked: text }), (error) => ({ unasked: String(error) })),
    ]);
  } finally {
    await feed.return!();
  }
}

Deno.test({
  name: "one approval never runs another input under the same call id: padding, same length",
  timeout: 10_000,
}, async () => {
  const { transfer, runs } = transferTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(transfer, channel);
  const ctx = { toolCallId: "call_pay", sessionId: "s" };
  // Past the 2,000 characters an approval used to show, and the same length as JSON.
  const seen = { memo: "x".repeat(3000), to: "alice", amount: 1000 };
  const unseen = { memo: "x".repeat(2998), to: "mallory", amount: 9999 };
  assert.equal(JSON.stringify(seen).length, JSON.stringify(unseen).length);
  const first = guarded.execute(seen, ctx);
  const asked = await asksFirst(channel, first);
  assert.ok("question" in asked);
  // Shown whole, to the last character.
  assert.ok(asked.question.endsWith(`"memo": "${seen.memo}",\n  "to": "alice"\n}`));
  await channel.answer(asked.id, { decision: "approve" });
  assert.equal(await first, "Sent 1000 to alice.");
  const second = guarded.execute(unseen, ctx);
  const again = await asksFirst(channel, second);
  assert.ok("question" in again, `ran unasked: ${JSON.stringify(again)}`);
  assert.notEqual(again.id, asked.id);
  assert.match(again.question, /"to": "mallory"/);
  await channel.answer(again.id, { decision: "deny" });
  await assert.rejects(second, ToolError);
  // The same input again re-attaches to its approval, whatever the order of its keys.
  const reordered = { memo: seen.memo, amount: 1000, to: "alice" };
  assert.equal(await guarded.execute(reordered, ctx), "Sent 1000 to alice.");
  assert.deepEqual(runs, [seen, seen]);
  assert.deepEqual(channel.pending, []);
  channel.close();
});

Deno.test({
  name: "an input that differs only by an invisible character is asked afresh and shown",
  timeout: 30_000,
}, async () => {
  const { transfer, runs } = transferTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(transfer, channel);
  const cases = [...INVISIBLES, "\u200B\u2060"];
  for (const [i, invisible] of cases.entries()) {
    const ctx = { toolCallId: `call_${i}` };
    const approved = guarded.execute({ to: "alice", amount: 1 }, ctx);
    const first = await asksFirst(channel, approved);
    assert.ok("id" in first);
    await channel.answer(first.id, { decision: "approve" });
    await approved;
    const sneaky = guarded.execute({ to: `alice${invisible}`, amount: 1 }, ctx);
    const asked = await asksFirst(channel, sneaky);
    const code = [...invisible].map((c) => c.codePointAt(0)!.toString(16).toUpperCase());
    assert.ok("question" in asked, `U+${code}: ${JSON.stringify(asked)}`);
    // Written out where JSON leaves it as it is; JSON escapes the C0 controls itself.
    const shown = asked.question.split("\n").find((line) => line.includes('"to"'))!;
    assert.ok(!/[^\x20-\x7E\u27E8\u27E9]/u.test(shown), `U+${code} shows as ${shown}`);
    for (const c of code) {
      assert.ok(
        shown.includes(`⟨U+${c.padStart(4, "0")}⟩`) ||
          shown.includes(`\\u${c.toLowerCase().padStart(4, "0")}`),
        `U+${c} shows as ${shown}`,
      );
    }
    await channel.cancel(asked.id, "not seen before");
    await assert.rejects(sneaky, ToolError);
  }
  assert.equal(runs.length, cases.length);
  for (const run of runs) assert.deepEqual(run, { to: "alice", amount: 1 });
  channel.close();
});

Deno.test({
  name: "an input too long to show whole, or not plain JSON, is refused unasked",
  timeout: 10_000,
}, async () => {
  const { transfer, runs } = transferTool();
  const channel = new MemoryQuestionChannel();
  const guarded = requireApproval(transfer, channel);
  const longest = { amount: 1, memo: "", to: "alice" };
  longest.memo = "m".repeat(8000 - JSON.stringify(longest, null, 2).length);
  // One tag character is two code units, and nine characters once written out.
  const hidden = { to: "alice", amount: 1, memo: "\u{E0041}".repeat(900) };
  const cyclic: Record<string, unknown> = { to: "alice" };
  cyclic.self = cyclic;
  for (
    const input of [
      { ...longest, memo: `${longest.memo}m` },
      hidden,
      { to: "alice", amount: NaN },
      { to: "alice", amount: 1, memo: new Map() },
      cyclic,
    ]
  ) {
    await assert.rejects(guarded.execute(input, { toolCallId: "c" }), (error: Error) => {
      assert.ok(error instanceof ToolError);
      assert.match(error.message, /^This call to transfer was not run: /);
      return true;
    });
  }
  assert.deepEqual(channel.pending, []);
  assert.deepEqual(channel.resolved(100), []);
  // The longest input that can be shown is asked, whole.
  const running = guarded.execute(longest, { toolCallId: "c" });
  const asked = await asksFirst(channel, running);
  assert.ok("question" in asked);
  assert.ok(asked.question.endsWith(`\n\nInput:\n${JSON.stringify(longest, null, 2)}`));
  await channel.answer(asked.id, { decision: "approve" });
  await running;
  assert.deepEqual(runs, [longest]);
  channel.close();
});

Deno.test({
  name: "approvals on Deno KV: a re-run with another input under the same id is asked afresh",
  timeout: 10_000,
}, async () => {
  const kv = await Deno.openKv(":memory:");
  const { transfer, runs } = transferTool();
  const channel = new DenoKvQuestionChannel(kv, { pollMs: 10 });
  const guarded = requireApproval(transfer, channel);
  const ctx = { toolCallId: "call_kv", sessionId: "s" };
  const first = guarded.execute({ to: "alice", amount: 1000 }, ctx);
  const question = await nextQuestion(channel);
  assert.equal(await channel.answer(question.id, { decision: "approve" }), true);
  await first;
  const second = guarded.execute({ to: "alice\u200B\u2060", amount: 1000 }, ctx);
  const again = await nextQuestion(channel);
  assert.notEqual(again.id, question.id);
  assert.match(again.question, /"to": "alice⟨U\+200B⟩⟨U\+2060⟩"/);
  await channel.answer(again.id, "Not this one");
  await assert.rejects(second, /denied this call to transfer: Not this one/);
  assert.deepEqual(runs, [{ amount: 1000, to: "alice" }]);
  await channel.close();
  kv.close();
});
