// The AI SDK's own flows, through a real streamText / generateText loop on the SDK's mock
// model: progress as preliminary tool results, and requireApproval as the SDK's approval flow.
import assert from "node:assert/strict";
import { generateText, isStepCount, type ModelMessage, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import * as z from "zod";
import { tool } from "../mod.ts";
import { recordAISDKApprovals, toAISDKTools } from "../src/ai_sdk/mod.ts";
import { guardedDeploy } from "./support/guarded_deploy.ts";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A streaming mock model: `calls` in its first step, then "Done.". */
function streamingModel(calls: { name: string; input: unknown }[]) {
  let step = 0;
  return new MockLanguageModelV4({
    doStream: () => {
      step++;
      const stream = step === 1
        ? convertArrayToReadableStream([
          ...calls.map((call, index) => ({
            type: "tool-call" as const,
            toolCallId: `call_${index}`,
            toolName: call.name,
            input: JSON.stringify(call.input),
          })),
          {
            type: "finish" as const,
            finishReason: { unified: "tool-calls" as const, raw: "" },
            usage,
          },
        ])
        : convertArrayToReadableStream([
          { type: "text-start" as const, id: "t" },
          { type: "text-delta" as const, id: "t", delta: "Done." },
          { type: "text-end" as const, id: "t" },
          { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "" }, usage },
        ]);
      return Promise.resolve({ stream });
    },
  });
}

Deno.test("AI SDK streamText: a tool's progress arrives as preliminary results before its end", {
  timeout: 60_000,
}, async () => {
  // The tool ends only once the caller has seen its progress: progress that came only with the
  // result would leave it waiting until the test's timeout.
  const seen = Promise.withResolvers<void>();
  const slow = tool({
    name: "slow",
    description: "Works in two halves.",
    input: z.object({}),
    async execute(_input, ctx) {
      ctx?.reportProgress?.({ message: "Halfway there" });
      await seen.promise;
      return "All done";
    },
  });
  const result = streamText({
    model: streamingModel([{ name: "slow", input: {} }]),
    tools: toAISDKTools([slow]),
    prompt: "Go.",
    stopWhen: isStepCount(2),
  });
  const outputs: { output: unknown; preliminary: boolean }[] = [];
  for await (const part of result.fullStream) {
    if (part.type !== "tool-result") continue;
    outputs.push({ output: part.output, preliminary: part.preliminary ?? false });
    if (part.output === "Halfway there") seen.resolve();
  }
  assert.deepEqual(outputs.at(0), { output: "Halfway there", preliminary: true });
  assert.deepEqual(outputs.at(-1), { output: "All done", preliminary: false });
  assert.equal(await result.text, "Done.");
});

/** A mock model that answers each generate call with the next of `steps`, recording prompts. */
function scriptedModel(steps: ({ call: string; input: unknown; id: string } | string)[]) {
  const prompts: unknown[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: (options) => {
      prompts.push(options.prompt);
      const step = steps.shift();
      if (step === undefined) throw new Error("The model was called more often than scripted.");
      return Promise.resolve(
        typeof step === "string"
          ? {
            content: [{ type: "text" as const, text: step }],
            finishReason: { unified: "stop" as const, raw: "stop" },
            usage,
            warnings: [],
          }
          : {
            content: [{
              type: "tool-call" as const,
              toolCallId: step.id,
              toolName: step.call,
              input: JSON.stringify(step.input),
            }],
            finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
            usage,
            warnings: [],
          },
      );
    },
  });
  return { model, prompts };
}

/** A deploy tool guarded by requireApproval, with the SDK's approval flow, and what it ran. */
function guardedDeployTools() {
  const { ran, channel, guarded } = guardedDeploy();
  return { ran, channel, tools: toAISDKTools([guarded], { approvals: "sdk" }) };
}

/** The approval request the SDK ended a step with, and the messages to resume from. */
function approvalRequest(result: { content: unknown[]; response: { messages: ModelMessage[] } }) {
  const request = result.content.find((part) =>
    (part as { type: string }).type === "tool-approval-request"
  ) as { approvalId: string; toolCall: { toolCallId: string; input: unknown } } | undefined;
  assert.ok(request, "the step ends with an approval request");
  return { request, messages: result.response.messages };
}

/** The tool results the model was shown in the prompt of its `index`th call. */
function toolOutputs(prompts: unknown[], index: number): unknown[] {
  return (prompts[index] as { role: string; content: { type: string; output?: unknown }[] }[])
    .filter((message) => message.role === "tool")
    .flatMap((message) => message.content.filter((p) => p.type === "tool-result"))
    .map((part) => part.output);
}

Deno.test(
  "AI SDK approvals: requested through the SDK, approved in its messages, recorded on the channel, run",
  {
    timeout: 60_000,
  },
  async () => {
    const { ran, channel, tools } = guardedDeployTools();
    const { model, prompts } = scriptedModel([
      { call: "deploy", input: { service: "api" }, id: "call_1" },
      "Deployed it.",
    ]);
    const first = await generateText({ model, tools, prompt: "Deploy the API." });
    const { request, messages } = approvalRequest(first);
    assert.equal(request.toolCall.toolCallId, "call_1");
    assert.deepEqual(ran, []);
    // The channel records the question while the app's user decides.
    const [pending] = await channel.pending;
    assert.equal(pending.kind, "approval");
    assert.equal(pending.toolCallId, "call_1");
    assert.match(pending.question, /"service": "api"/);

    const resumed = await generateText({
      model,
      tools,
      messages: [...messages, {
        role: "tool",
        content: [{
          type: "tool-approval-response",
          approvalId: request.approvalId,
          approved: true,
        }],
      }],
    });
    assert.equal(resumed.text, "Deployed it.");
    assert.deepEqual(ran, ["api"]);
    assert.deepEqual(toolOutputs(prompts, 1), [{ type: "text", value: "Deployed api." }]);
    const record = await channel.get(pending.id);
    assert.equal(record?.status, "answered");
    assert.equal(record?.status === "answered" && record.decision, "approve");
    assert.equal(
      record?.status === "answered" && record.by,
      `ai-sdk approval ${request.approvalId}`,
    );
  },
);

Deno.test(
  "AI SDK approvals: a denial in the SDK's messages is recorded with who denied it, and the tool does not run",
  {
    timeout: 60_000,
  },
  async () => {
    const { ran, channel, tools } = guardedDeployTools();
    const { model, prompts } = scriptedModel([
      { call: "deploy", input: { service: "api" }, id: "call_1" },
      "I will not deploy.",
    ]);
    const { request, messages } = approvalRequest(
      await generateText({ model, tools, prompt: "Deploy the API." }),
    );
    const [pending] = await channel.pending;
    const resume: ModelMessage[] = [...messages, {
      role: "tool",
      content: [{
        type: "tool-approval-response",
        approvalId: request.approvalId,
        approved: false,
        reason: "Frozen this week",
      }],
    }];
    assert.equal(await recordAISDKApprovals(tools, resume, { by: "alice" }), 1);
    const resumed = await generateText({ model, tools, messages: resume });
    assert.equal(resumed.text, "I will not deploy.");
    assert.deepEqual(ran, []);
    assert.deepEqual(toolOutputs(prompts, 1), [{
      type: "execution-denied",
      reason: "Frozen this week",
    }]);
    const record = await channel.get(pending.id);
    assert.deepEqual(
      record?.status === "answered" && [record.decision, record.reason, record.by],
      ["deny", "Frozen this week", "alice"],
    );
    assert.deepEqual(await channel.pending, []);
  },
);

Deno.test(
  "AI SDK approvals: an approval of one input never runs another; a changed input is asked afresh",
  {
    timeout: 60_000,
  },
  async () => {
    const { ran, channel, tools } = guardedDeployTools();
    const { model, prompts } = scriptedModel([
      { call: "deploy", input: { service: "api" }, id: "call_1" },
      { call: "deploy", input: { service: "billing" }, id: "call_2" },
    ]);
    const { request, messages } = approvalRequest(
      await generateText({ model, tools, prompt: "Deploy the API." }),
    );
    // The history the app resumes from says call_1 was for billing: the user approved the API.
    const altered = messages.map((message) =>
      message.role !== "assistant" || typeof message.content === "string" ? message : {
        ...message,
        content: message.content.map((part) =>
          part.type === "tool-call" ? { ...part, input: { service: "billing" } } : part
        ),
      }
    );
    const resumed = await generateText({
      model,
      tools,
      messages: [...altered, {
        role: "tool",
        content: [{
          type: "tool-approval-response",
          approvalId: request.approvalId,
          approved: true,
        }],
      }],
    });
    assert.deepEqual(ran, []);
    const [refused] = toolOutputs(prompts, 1) as { type: string; value: string }[];
    assert.equal(refused.type, "error-text");
    assert.match(refused.value, /not run: no approval of this input is on record/);
    // The model calls again with the other input: the SDK asks for it, and so does the channel.
    const again = approvalRequest(resumed);
    assert.deepEqual(again.request.toolCall.input, { service: "billing" });
    const questions = (await channel.pending).map((q) => q.question);
    assert.equal(questions.length, 2);
    assert.match(questions[1], /"service": "billing"/);
  },
);
