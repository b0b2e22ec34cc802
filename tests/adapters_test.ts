import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { asSchema, type ToolSet } from "ai";
import * as z from "zod";
import {
  anthropicToolCalls,
  anthropicToolResults,
  now,
  openAIChatToolCalls,
  openAIChatToolMessages,
  openAIResponsesToolCalls,
  openAIResponsesToolOutputs,
  runToolCalls,
  toAISDKTools,
  toAnthropicTools,
  tool,
  ToolError,
  toOpenAIChatTools,
  toOpenAIResponsesTools,
} from "../mod.ts";

const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string(), loud: z.boolean().optional() }),
  execute({ text, loud }) {
    if (text === "fail") throw new ToolError("Told to fail.", { hint: "Say something else." });
    return loud ? text.toUpperCase() : text;
  },
});
const tools = [echo, now];

Deno.test("definitions are assignable to the SDKs' own parameter types", () => {
  const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = toOpenAIChatTools(tools);
  const responses: OpenAI.Responses.Tool[] = toOpenAIResponsesTools(tools);
  const anthropic: Anthropic.Messages.ToolUnion[] = toAnthropicTools(tools);
  const aiSdk: ToolSet = toAISDKTools(tools);
  const chatBody: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
    model: "gpt-5",
    messages: [{ role: "user", content: "hi" }],
    tools: chat,
  };
  const responsesBody: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
    model: "gpt-5",
    input: "hi",
    tools: responses,
  };
  const anthropicBody: Anthropic.Messages.MessageCreateParamsNonStreaming = {
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
    tools: anthropic,
  };
  assert.equal(chatBody.tools?.length, 2);
  assert.equal(responsesBody.tools?.length, 2);
  assert.equal(anthropicBody.tools?.length, 2);
  assert.deepEqual(Object.keys(aiSdk), ["echo", "now"]);
  assert.deepEqual(chat[0], {
    type: "function",
    function: {
      name: "echo",
      description: "Echoes its text.",
      parameters: echo.parameters,
      strict: true,
    },
  });
  assert.deepEqual(anthropic[1], {
    name: "now",
    description: now.description,
    input_schema: now.parameters,
  });
});

Deno.test("Anthropic round trip: a recorded tool_use response becomes tool_result blocks", async () => {
  const recorded: Anthropic.Messages.Message = {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    stop_reason: "tool_use",
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: {
      input_tokens: 10,
      output_tokens: 20,
      cache_creation: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      server_tool_use: null,
      service_tier: "standard",
      inference_geo: null,
    },
    content: [
      { type: "text", text: "Let me check.", citations: null },
      {
        type: "tool_use",
        id: "toolu_1",
        name: "echo",
        input: { text: "hi", loud: true },
        caller: { type: "direct" },
      },
      {
        type: "tool_use",
        id: "toolu_2",
        name: "echo",
        input: { text: "fail" },
        caller: { type: "direct" },
      },
    ],
  } as Anthropic.Messages.Message;
  const calls = anthropicToolCalls(recorded);
  assert.deepEqual(calls.map((c) => c.id), ["toolu_1", "toolu_2"]);
  const blocks: Anthropic.Messages.ToolResultBlockParam[] = anthropicToolResults(
    await runToolCalls(tools, calls),
  );
  const next: Anthropic.Messages.MessageParam = { role: "user", content: blocks };
  assert.deepEqual(next.content, [
    { type: "tool_result", tool_use_id: "toolu_1", content: "HI", is_error: false },
    {
      type: "tool_result",
      tool_use_id: "toolu_2",
      content: "Error: Told to fail.\nHint: Say something else.",
      is_error: true,
    },
  ]);
  assert.deepEqual(anthropicToolCalls(recorded.content), calls);
});

Deno.test("OpenAI Responses round trip: function_call items become function_call_output items", async () => {
  const output = [
    { type: "reasoning", id: "rs_1", summary: [] },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "call_a",
      name: "echo",
      arguments: '{"text":"hey","loud":null}',
      status: "completed",
    },
    { type: "function_call", id: "fc_2", call_id: "call_b", name: "echo", arguments: "{not json" },
  ] as OpenAI.Responses.ResponseOutputItem[];
  const calls = openAIResponsesToolCalls({ output });
  assert.deepEqual(calls[0], { id: "call_a", name: "echo", input: { text: "hey", loud: null } });
  const items: OpenAI.Responses.ResponseInputItem[] = openAIResponsesToolOutputs(
    await runToolCalls(tools, calls),
  );
  assert.deepEqual(items[0], { type: "function_call_output", call_id: "call_a", output: "hey" });
  assert.equal(
    (items[1] as { output: string }).output,
    "Error: Invalid input for echo: the input must be a JSON object.\nHint: Fix the arguments named above and call the tool again.",
  );
  assert.deepEqual(openAIResponsesToolCalls(output), calls);
});

Deno.test("OpenAI Chat round trip: tool_calls become tool messages", async () => {
  const completion = {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-5",
    choices: [{
      index: 0,
      finish_reason: "tool_calls",
      logprobs: null,
      message: {
        role: "assistant",
        content: null,
        refusal: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "echo", arguments: '{"text":"yo"}' },
          },
          { id: "call_2", type: "function", function: { name: "nope", arguments: "{}" } },
        ],
      },
    }],
  } as OpenAI.Chat.Completions.ChatCompletion;
  const calls = openAIChatToolCalls(completion);
  assert.deepEqual(openAIChatToolCalls(completion.choices[0].message), calls);
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = openAIChatToolMessages(
    await runToolCalls(tools, calls),
  );
  assert.deepEqual(messages[0], { role: "tool", tool_call_id: "call_1", content: "yo" });
  assert.deepEqual(messages[1], {
    role: "tool",
    tool_call_id: "call_2",
    content: 'Error: Unknown tool "nope".\nHint: Available tools: echo, now.',
  });
});

Deno.test("AI SDK tools validate once, accept strict-mode nulls and carry hints in thrown errors", async () => {
  const set = toAISDKTools(tools);
  const schema = asSchema(set.echo.inputSchema);
  assert.deepEqual(await schema.jsonSchema, echo.parameters);
  // The SDK validates with the schema before calling execute: a strict-mode null must pass.
  assert.deepEqual(await schema.validate?.({ text: "a", loud: null }), {
    success: true,
    value: { text: "a", loud: null },
  });
  assert.equal(await set.echo.execute({ text: "a", loud: null }, { toolCallId: "n" }), "a");
  const doubled = tool({
    name: "double",
    description: "Doubles a number given as text.",
    input: z.object({ n: z.string().transform((text) => Number(text) * 2) }),
    execute: ({ n }) => String(n),
  });
  assert.equal(
    await toAISDKTools([doubled]).double.execute({ n: "21" }, { toolCallId: "d" }),
    "42",
  );
  assert.equal(await set.echo.execute({ text: "a", loud: true }, { toolCallId: "x" }), "A");
  await assert.rejects(
    set.echo.execute({ text: "fail" }, { toolCallId: "y" }),
    (e: Error) => e.message === "Error: Told to fail.\nHint: Say something else.",
  );
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(set.now.execute({}, { toolCallId: "z", abortSignal: controller.signal }));
});
