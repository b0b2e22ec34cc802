// OpenAI Agents JS: our tools as its function tools in a real Runner loop against a scripted
// Model, and requireApproval as its run interruptions (approve, reject, a changed input).
import assert from "node:assert/strict";
import {
  Agent,
  type FunctionTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  setTracingDisabled,
  Usage,
} from "@openai/agents";
import { recordOpenAIAgentsDecisions, toOpenAIAgentsTools } from "../src/openai_agents/mod.ts";
import { guardedDeploy } from "./support/guarded_deploy.ts";
import { now } from "../src/time/mod.ts";

// The framework exports traces to OpenAI unless told not to; these tests reach no one.
setTracingDisabled(true);

// Our tools are the framework's own FunctionTool: checked here by the compiler.
const _typed: FunctionTool[] = toOpenAIAgentsTools([now]);

/** A Model that answers with the next of `steps` (a tool call or a final text), noting requests. */
class ScriptedModel implements Model {
  requests: ModelRequest[] = [];
  constructor(private steps: ({ call: string; input: unknown; id: string } | string)[]) {}
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.steps.shift();
    if (step === undefined) throw new Error("The model was called more often than scripted.");
    const output: ModelResponse["output"] = typeof step === "string"
      ? [{
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: step }],
      }]
      : [{
        type: "function_call",
        callId: step.id,
        name: step.call,
        arguments: JSON.stringify(step.input),
        status: "completed",
      }];
    return Promise.resolve({ usage: new Usage(), output });
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("Not scripted.");
  }
}

/** The outputs of function calls the model was shown in its `index`th request. */
function shownOutputs(model: ScriptedModel, index: number): string[] {
  const input = model.requests[index].input;
  if (typeof input === "string") return [];
  return input.flatMap((item) => {
    if (item.type !== "function_call_result") return [];
    const output = item.output;
    return [typeof output === "string" ? output : "text" in output ? String(output.text) : ""];
  });
}

const runner = new Runner({ tracingDisabled: true });

Deno.test(
  "OpenAI Agents: a tool call runs and its result, errors included, goes back to the model",
  {
    timeout: 60_000,
  },
  async () => {
    const model = new ScriptedModel([
      { call: "now", input: { tz: "UTC" }, id: "call_1" },
      { call: "now", input: { tz: "Mars/Olympus" }, id: "call_2" },
      "It is late.",
    ]);
    const agent = new Agent({
      name: "clock",
      instructions: "Tell the time.",
      model,
      tools: toOpenAIAgentsTools([now]),
    });
    const result = await runner.run(agent, "What time is it?");
    assert.equal(result.finalOutput, "It is late.");
    const [first] = shownOutputs(model, 1);
    assert.match(first, /Z|\+00:00/);
    const [, second] = shownOutputs(model, 2);
    assert.match(second, /^Error: Unknown time zone/);
    // The model was offered the strict schema, as the framework defaults to.
    const offered = model.requests[0].tools.find((t) => t.name === "now") as { strict?: boolean };
    assert.equal(offered.strict, true);
  },
);

Deno.test(
  "OpenAI Agents: an approval interrupts the run, is recorded on the channel, and the resumed run executes",
  {
    timeout: 60_000,
  },
  async () => {
    const { ran, channel, guarded } = guardedDeploy();
    const model = new ScriptedModel([
      { call: "deploy", input: { service: "api" }, id: "call_1" },
      "Deployed.",
    ]);
    const agent = new Agent({
      name: "ops",
      instructions: "Deploy.",
      model,
      tools: toOpenAIAgentsTools([guarded], { decidedBy: "alice" }),
    });
    const first = await runner.run(agent, "Deploy the API.");
    assert.equal(first.interruptions.length, 1);
    assert.deepEqual(ran, []);
    const [pending] = await channel.pending;
    assert.equal(pending.toolCallId, "call_1");
    assert.match(pending.question, /"service": "api"/);
    // The state survives a restart as text, as an app keeps it while a person decides.
    const state = await RunState.fromString(agent, first.state.toString());
    state.approve(state.getInterruptions()[0]);
    const resumed = await runner.run(agent, state);
    assert.equal(resumed.finalOutput, "Deployed.");
    assert.deepEqual(ran, ["api"]);
    assert.deepEqual(shownOutputs(model, 1), ["Deployed api."]);
    const record = await channel.get(pending.id);
    assert.deepEqual(
      record?.status === "answered" && [record.decision, record.by],
      ["approve", "alice"],
    );
  },
);

Deno.test("OpenAI Agents: a rejection is recorded with its message and the tool does not run", {
  timeout: 60_000,
}, async () => {
  const { ran, channel, guarded } = guardedDeploy();
  const model = new ScriptedModel([
    { call: "deploy", input: { service: "api" }, id: "call_1" },
    "Not deployed.",
  ]);
  const tools = toOpenAIAgentsTools([guarded]);
  const agent = new Agent({ name: "ops", model, tools });
  const first = await runner.run(agent, "Deploy the API.");
  const [pending] = await channel.pending;
  first.state.reject(first.interruptions[0], { message: "Frozen this week" });
  assert.equal(await recordOpenAIAgentsDecisions(tools, first.state), 1);
  const resumed = await runner.run(agent, first.state);
  assert.equal(resumed.finalOutput, "Not deployed.");
  assert.deepEqual(ran, []);
  const record = await channel.get(pending.id);
  assert.deepEqual(
    record?.status === "answered" && [record.decision, record.reason, record.by],
    ["deny", "Frozen this week", "openai-agents"],
  );
});

Deno.test(
  "OpenAI Agents: an approval of one input never runs another stored in the resumed state",
  {
    timeout: 60_000,
  },
  async () => {
    const { ran, channel, guarded } = guardedDeploy();
    const model = new ScriptedModel([
      { call: "deploy", input: { service: "api" }, id: "call_1" },
      "Done.",
    ]);
    const agent = new Agent({ name: "ops", model, tools: toOpenAIAgentsTools([guarded]) });
    const first = await runner.run(agent, "Deploy the API.");
    // The stored state says call_1 was for billing: the person approves what they are shown.
    const stored = first.state.toString().replaceAll(
      '\\"service\\":\\"api\\"',
      '\\"service\\":\\"billing\\"',
    );
    assert.notEqual(stored, first.state.toString());
    const state = await RunState.fromString(agent, stored);
    state.approve(state.getInterruptions()[0]);
    await runner.run(agent, state);
    assert.deepEqual(ran, []);
    const [refused] = shownOutputs(model, 1);
    assert.match(refused, /not run: no approval of this input is on record/);
    // The question asked of the API stays as it was, undecided by the altered approval.
    assert.equal((await channel.pending).length, 1);
  },
);
