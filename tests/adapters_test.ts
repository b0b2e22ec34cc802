import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { asSchema, generateText, isStepCount, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type * as Gemini from "@google/genai";
import { Type } from "@google/genai";
import * as z from "zod";
import { now, runToolCalls, SetupError, tool, ToolError } from "../mod.ts";
import { toAISDKTools } from "../src/ai_sdk/mod.ts";
import {
  anthropicToolCalls,
  anthropicToolResults,
  toAnthropicTools,
} from "../src/anthropic/mod.ts";
import { geminiToolCalls, geminiToolResults, toGeminiTools } from "../src/gemini/mod.ts";
import {
  openAIChatToolCalls,
  openAIChatToolMessages,
  openAIResponsesToolCalls,
  openAIResponsesToolOutputs,
  toOpenAIChatTools,
  toOpenAIResponsesTools,
} from "../src/openai/mod.ts";

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
    input_schema: now.inputJsonSchema,
  });
  const loose: OpenAI.Chat.Completions.ChatCompletionTool[] = toOpenAIChatTools(tools, {
    strict: false,
  });
  assert.deepEqual(loose[0], {
    type: "function",
    function: {
      name: "echo",
      description: "Echoes its text.",
      parameters: echo.inputJsonSchema,
      strict: false,
    },
  });
  const looseResponses: OpenAI.Responses.Tool[] = toOpenAIResponsesTools(tools, { strict: false });
  assert.equal((looseResponses[0] as { strict: boolean }).strict, false);
  const gemini: Gemini.Tool[] = toGeminiTools(tools, { types: Type });
  const geminiRequest: Gemini.GenerateContentParameters = {
    model: "gemini-2.5-flash",
    contents: "hi",
    config: { tools: gemini },
  };
  assert.equal(geminiRequest.config?.tools?.length, 1);
});

Deno.test("Anthropic round trip: a recorded tool_use response becomes tool_result blocks", {
  timeout: 60_000,
}, async () => {
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

Deno.test("OpenAI Responses round trip: function_call items become function_call_output items", {
  timeout: 60_000,
}, async () => {
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

Deno.test("OpenAI Chat round trip: tool_calls become tool messages", {
  timeout: 60_000,
}, async () => {
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

Deno.test("AI SDK tools validate once, accept strict-mode nulls and carry hints in thrown errors", {
  timeout: 60_000,
}, async () => {
  const set = toAISDKTools(tools);
  const schema = asSchema(set.echo.inputSchema);
  assert.deepEqual(await schema.jsonSchema, echo.inputJsonSchema);
  assert.deepEqual(
    await asSchema(toAISDKTools(tools, { strict: true }).echo.inputSchema).jsonSchema,
    echo.parameters,
  );
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
    (e: Error) => String(e) === "Error: Told to fail.\nHint: Say something else.",
  );
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(set.now.execute({}, { toolCallId: "z", abortSignal: controller.signal }));
});

/** A mock model that asks for `calls` in its first step and then answers, recording prompts. */
function scriptedModel(calls: { name: string; input: unknown }[]) {
  const prompts: unknown[] = [];
  const tools: unknown[] = [];
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const model = new MockLanguageModelV4({
    doGenerate: (options) => {
      prompts.push(options.prompt);
      tools.push(options.tools);
      return Promise.resolve(
        prompts.length === 1
          ? {
            content: calls.map((call, index) => ({
              type: "tool-call" as const,
              toolCallId: `call_${index}`,
              toolName: call.name,
              input: JSON.stringify(call.input),
            })),
            finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
            usage,
            warnings: [],
          }
          : {
            content: [{ type: "text" as const, text: "Done." }],
            finishReason: { unified: "stop" as const, raw: "stop" },
            usage,
            warnings: [],
          },
      );
    },
  });
  return { model, prompts, tools };
}

Deno.test("AI SDK generateText: the model sees each error once, with its hint; plain schema", {
  timeout: 60_000,
}, async () => {
  const { model, prompts, tools: sent } = scriptedModel([
    { name: "echo", input: { text: "fail" } },
    { name: "now", input: { tz: "Mars/Olympus" } },
  ]);
  const result = await generateText({
    model,
    tools: toAISDKTools(tools),
    prompt: "Go.",
    stopWhen: isStepCount(2),
  });
  assert.equal(result.text, "Done.");
  const outputs = (prompts[1] as { role: string; content: { output?: unknown }[] }[])
    .filter((message) => message.role === "tool")
    .flatMap((message) => message.content.map((part) => part.output));
  assert.deepEqual(outputs[0], {
    type: "error-text",
    value: "Error: Told to fail.\nHint: Say something else.",
  });
  const second = outputs[1] as { value: string };
  assert.match(second.value, /^Error: Unknown time zone/);
  assert.doesNotMatch(second.value, /Error: Error:/);
  const [echoTool] = sent[0] as { name: string; inputSchema: unknown; strict?: boolean }[];
  assert.equal(echoTool.name, "echo");
  assert.deepEqual(echoTool.inputSchema, echo.inputJsonSchema);
  assert.equal(echoTool.strict, false);
});

Deno.test(
  "AI SDK: a parallel: false tool waits for earlier calls of the step and holds back later ones",
  {
    timeout: 60_000,
  },
  async () => {
    const events: string[] = [];
    const starts = new Map<string, PromiseWithResolvers<void>>();
    const started = (name: string) => {
      let start = starts.get(name);
      if (!start) starts.set(name, start = Promise.withResolvers());
      return start;
    };
    // A step named here ends only once the other has started: calls that did not overlap would
    // never end (the test's timeout), and no timer decides the order on a busy machine.
    const endsAfterStart: Record<string, string> = { a: "b" };
    const step = (name: string, parallel: boolean) =>
      tool({
        name,
        description: `Step ${name}.`,
        input: z.object({}),
        parallel,
        async execute() {
          events.push(`${name} start`);
          started(name).resolve();
          if (endsAfterStart[name]) await started(endsAfterStart[name]).promise;
          // A turn of the event loop, so that a call wrongly started alongside gets to start.
          await new Promise((resolve) => setTimeout(resolve, 0));
          events.push(`${name} end`);
          return name;
        },
      });
    const set = toAISDKTools([
      step("a", true),
      step("b", true),
      step("gate", false),
      step("c", true),
    ]);
    const { model } = scriptedModel([
      { name: "a", input: {} },
      { name: "b", input: {} },
      { name: "gate", input: {} },
      { name: "c", input: {} },
    ]);
    await generateText({ model, tools: set, prompt: "Go.", stopWhen: isStepCount(2) });
    const at = (event: string) => events.indexOf(event);
    assert.ok(at("gate start") > at("a end") && at("gate start") > at("b end"), events.join(", "));
    assert.ok(at("c start") > at("gate end"), events.join(", "));
    // Parallel calls still overlap each other.
    assert.ok(at("b start") < at("a end"), events.join(", "));
    // Separate toAISDKTools calls are separate: their barriers do not meet.
    const other = toAISDKTools([step("d", false)]);
    endsAfterStart.gate = "d";
    const first = set.gate.execute({}, { toolCallId: "g" });
    const second = other.d.execute({}, { toolCallId: "d" });
    events.length = 0;
    await Promise.all([first, second]);
    assert.ok(at("d start") < at("gate end"), events.join(", "));
  },
);

Deno.test("Gemini round trip: functionCall parts become functionResponse parts", {
  timeout: 60_000,
}, async () => {
  const response: Gemini.GenerateContentResponse = {
    candidates: [{
      content: {
        role: "model",
        parts: [
          { text: "Let me check." },
          { functionCall: { id: "fc_1", name: "echo", args: { text: "hi", loud: true } } },
          { functionCall: { name: "echo", args: { text: "fail" } } },
        ],
      },
    }],
  } as Gemini.GenerateContentResponse;
  const calls = geminiToolCalls(response);
  assert.deepEqual(calls.map((c) => [c.id, c.name]), [["fc_1", "echo"], ["gemini_call_1", "echo"]]);
  assert.deepEqual(geminiToolCalls(response.candidates![0].content), calls);
  const next: Gemini.Content = {
    role: "user",
    parts: geminiToolResults(await runToolCalls(tools, calls)),
  };
  assert.deepEqual(next.parts, [
    { functionResponse: { id: "fc_1", name: "echo", response: { output: "HI" } } },
    {
      functionResponse: {
        name: "echo",
        response: { error: "Error: Told to fail.\nHint: Say something else." },
      },
    },
  ]);
});

Deno.test("Gemini schemas use the API's dialect and refuse what it cannot express", () => {
  const shaped = tool({
    name: "shaped",
    description: "Has every shape.",
    input: z.object({
      name: z.string().min(1).max(40).describe("Who."),
      mode: z.enum(["fast", "slow"]).optional(),
      fixed: z.literal("v1"),
      count: z.number().int().positive(),
      tags: z.array(z.string()).max(3),
      note: z.string().nullable(),
      email: z.email(),
    }),
    execute: () => "",
  });
  const [{ functionDeclarations: [declaration] }] = toGeminiTools([shaped]);
  assert.deepEqual(declaration.parameters, {
    type: "OBJECT",
    properties: {
      name: { type: "STRING", description: "Who.", minLength: "1", maxLength: "40" },
      mode: { type: "STRING", enum: ["fast", "slow"] },
      fixed: { type: "STRING", enum: ["v1"] },
      count: { type: "INTEGER", minimum: 1 },
      tags: { type: "ARRAY", items: { type: "STRING" }, maxItems: "3" },
      note: { type: "STRING", nullable: true },
      email: {
        type: "STRING",
        description: "Format: email.",
        pattern: declaration.parameters.properties!.email.pattern,
      },
    },
    required: ["name", "fixed", "count", "tags", "note", "email"],
    propertyOrdering: ["name", "mode", "fixed", "count", "tags", "note", "email"],
  });
  const refused = (input: z.ZodObject, field: RegExp) => {
    const t = tool({ name: "bad", description: "Bad.", input, execute: () => "" });
    assert.throws(() => toGeminiTools([t]), (error: Error) => {
      assert.ok(error instanceof SetupError);
      assert.match(error.message, field);
      return true;
    });
  };
  refused(z.object({ level: z.union([z.literal(1), z.literal(2)]) }), /`level`.*strings only/);
  refused(z.object({ ratio: z.number().gt(0) }), /`ratio`.*exclusiveMinimum/);
  refused(z.object({ step: z.number().multipleOf(5) }), /`step`.*`multipleOf`/);
  const either = tool({
    name: "either",
    description: "Either.",
    input: z.object({ both: z.union([z.string(), z.number()]) }),
    execute: () => "",
  });
  assert.deepEqual(toGeminiTools([either])[0].functionDeclarations[0].parameters.properties, {
    both: { anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
  });
});

Deno.test("AI SDK: a call waiting behind a barrier ends at once when aborted", {
  timeout: 60_000,
}, async () => {
  const release = Promise.withResolvers<void>();
  const gate = tool({
    name: "gate",
    description: "Waits.",
    input: z.object({}),
    parallel: false,
    execute: async () => {
      await release.promise;
      return "opened";
    },
  });
  const set = toAISDKTools([gate, echo]);
  const first = set.gate.execute({}, { toolCallId: "g" });
  const controller = new AbortController();
  const waiting = set.echo.execute({ text: "hi" }, {
    toolCallId: "e",
    abortSignal: controller.signal,
  });
  controller.abort(new Error("stopped"));
  await assert.rejects(waiting, /stopped/);
  release.resolve();
  assert.equal(await first, "opened");
});

/** Each provider's messages, with and without calls, as its API returns them. */
const transcripts = {
  anthropic: [
    { id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text: "Hi" }] },
    [{ type: "tool_use", id: "toolu_1", name: "now", input: {} }],
    [{ type: "thinking", thinking: "…", signature: "s" }],
  ],
  openAIResponses: [
    { id: "resp_1", object: "response", output: [] },
    { output: [{ type: "function_call", call_id: "c1", name: "now", arguments: "{}" }] },
    [{ type: "reasoning", id: "rs_1", summary: [] }],
    [{ type: "web_search_call", id: "ws_1", status: "completed" }],
  ],
  openAIChat: [
    { choices: [{ index: 0, message: { role: "assistant", content: "Done.", refusal: null } }] },
    { role: "assistant", content: null, tool_calls: [] },
    { index: 0, message: { role: "assistant", content: "Done." } },
    [{ id: "c1", type: "function", function: { name: "now", arguments: "{}" } }],
  ],
  gemini: [
    { candidates: [{ content: { role: "model", parts: [{ text: "Done." }] } }] },
    { role: "model", parts: [{ functionCall: { id: "f1", name: "now", args: {} } }] },
    [{ functionCall: { name: "now", args: {} } }],
    { promptFeedback: { blockReason: "SAFETY" } },
  ],
};
const readers = {
  anthropic: anthropicToolCalls,
  openAIResponses: openAIResponsesToolCalls,
  openAIChat: openAIChatToolCalls,
  gemini: geminiToolCalls,
};

Deno.test("each call reader takes its provider's messages and refuses every other provider's", () => {
  for (const [reader, read] of Object.entries(readers)) {
    for (const [provider, messages] of Object.entries(transcripts)) {
      for (const message of messages) {
        if (provider === reader) {
          assert.ok(Array.isArray(read(message)), `${reader} on ${JSON.stringify(message)}`);
        } else {
          assert.throws(
            () => read(message),
            (error: Error) =>
              error instanceof TypeError && / reads .*, but was handed /.test(error.message),
            `${reader} on ${provider}'s ${JSON.stringify(message)}`,
          );
        }
      }
    }
  }
});

Deno.test("call readers refuse what is no message at all, naming what they got", () => {
  for (const read of Object.values(readers)) {
    for (const value of [undefined, null, "tool_use", 42, {}, { data: [] }]) {
      assert.throws(() => read(value), TypeError);
    }
  }
  assert.throws(
    () => anthropicToolCalls({ data: [], object: "list" }),
    {
      message:
        "anthropicToolCalls reads an Anthropic message, but was handed an object with data, object.",
    },
  );
});

Deno.test('a call without an id or a name is refused, never answered as "undefined"', () => {
  const cases: [() => unknown, RegExp][] = [
    [() => anthropicToolCalls([{ type: "tool_use", name: "now", input: {} }]), /no `id`/],
    [() => anthropicToolCalls([{ type: "tool_use", id: "", name: "now", input: {} }]), /no `id`/],
    [() => anthropicToolCalls([{ type: "tool_use", id: "t1", input: {} }]), /no tool name/],
    [
      () => openAIResponsesToolCalls([{ type: "function_call", name: "now", arguments: "{}" }]),
      /no `call_id`/,
    ],
    [
      () => openAIResponsesToolCalls([{ type: "function_call", call_id: "c1", arguments: "{}" }]),
      /no tool name/,
    ],
    [
      () =>
        openAIChatToolCalls({
          role: "assistant",
          tool_calls: [{ type: "function", function: { name: "now" } }],
        }),
      /no `id`/,
    ],
    [() => geminiToolCalls([{ functionCall: { args: {} } }]), /no tool name/],
  ];
  for (const [read, message] of cases) assert.throws(read, { name: "TypeError", message });
  // A final turn written as a plain string is both providers' shape: no calls in either.
  const plain = { role: "assistant", content: "Done." };
  assert.deepEqual([anthropicToolCalls(plain), openAIChatToolCalls(plain)], [[], []]);
  // Gemini's older models send no ids: those are made up, as documented.
  assert.equal(geminiToolCalls([{ functionCall: { name: "now" } }])[0].id, "gemini_call_0");
});
