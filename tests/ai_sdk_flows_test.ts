// The AI SDK's own flows, through a real streamText / generateText loop on the SDK's mock
// model: progress as preliminary tool results, and requireApproval as the SDK's approval flow.
import assert from "node:assert/strict";
import { isStepCount, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import * as z from "zod";
import { tool } from "../mod.ts";
import { toAISDKTools } from "../src/ai_sdk/mod.ts";

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
