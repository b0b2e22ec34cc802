import assert from "node:assert/strict";
import * as z from "zod";
import { now, runToolCalls, SetupError, tool, ToolError } from "../mod.ts";

/**
 * Tools that record when each call starts and ends. A call given `after` ends only once the call
 * tagged so has ended: the order is set by the test, never by timers racing on a busy machine.
 */
function recorder() {
  const events: string[] = [];
  const ends = new Map<string, PromiseWithResolvers<void>>();
  const ended = (tag: string) => {
    let end = ends.get(tag);
    if (!end) ends.set(tag, end = Promise.withResolvers());
    return end;
  };
  const make = (name: string, parallel: boolean) =>
    tool({
      name,
      description: `Records ${name}.`,
      parallel,
      input: z.object({ tag: z.string(), after: z.string().optional() }),
      async execute({ tag, after }) {
        events.push(`start ${tag}`);
        if (after !== undefined) await ended(after).promise;
        // A turn of the event loop, so that a call wrongly started alongside gets to start.
        await new Promise((resolve) => setTimeout(resolve, 0));
        events.push(`end ${tag}`);
        ended(tag).resolve();
        return `done ${tag}`;
      },
    });
  return { events, fast: make("fast", true), barrier: make("barrier", false) };
}

// A call that waits for a later one would never end if the calls ran one at a time.
Deno.test("calls run concurrently and results keep call order", { timeout: 60_000 }, async () => {
  const { events, fast } = recorder();
  const results = await runToolCalls([fast], [
    { id: "1", name: "fast", input: { tag: "a", after: "b" } },
    { id: "2", name: "fast", input: { tag: "b" } },
  ]);
  assert.deepEqual(results.map((r) => [r.id, r.text, r.isError]), [
    ["1", "done a", false],
    ["2", "done b", false],
  ]);
  assert.deepEqual(events, ["start a", "start b", "end b", "end a"]);
});

Deno.test("a parallel:false tool is a barrier: earlier calls finish first, later ones wait", {
  timeout: 60_000,
}, async () => {
  const { events, fast, barrier } = recorder();
  await runToolCalls([fast, barrier], [
    { id: "1", name: "fast", input: { tag: "a", after: "b" } },
    { id: "2", name: "fast", input: { tag: "b" } },
    { id: "3", name: "barrier", input: { tag: "X" } },
    { id: "4", name: "fast", input: { tag: "c" } },
    { id: "5", name: "barrier", input: { tag: "Y" } },
  ]);
  assert.deepEqual(events, [
    "start a",
    "start b",
    "end b",
    "end a",
    "start X",
    "end X",
    "start c",
    "end c",
    "start Y",
    "end Y",
  ]);
});

Deno.test("nothing escapes the batch: unknown tools, bad input, ToolErrors and crashes are error results", async () => {
  const failing = tool({
    name: "failing",
    description: "Fails.",
    input: z.object({ how: z.enum(["tool", "crash"]) }),
    execute({ how }) {
      if (how === "tool") throw new ToolError("No such page.", { hint: "Check the URL." });
      throw new RangeError("index out of range");
    },
  });
  const results = await runToolCalls([failing], [
    { id: "1", name: "missing", input: {} },
    { id: "2", name: "failing", input: { how: "neither" } },
    { id: "3", name: "failing", input: { how: "tool" } },
    { id: "4", name: "failing", input: { how: "crash" } },
  ]);
  assert.ok(results.every((r) => r.isError));
  assert.equal(results[0].text, 'Error: Unknown tool "missing".\nHint: Available tools: failing.');
  assert.match(results[1].text, /`how` must be one of "tool", "crash"/);
  assert.equal(results[2].text, "Error: No such page.\nHint: Check the URL.");
  assert.equal(results[3].text, "Error: unexpected failure: RangeError: index out of range");
  assert.ok(!results[3].text.includes(" at "));
});

Deno.test("each call gets its id as toolCallId beside the batch context", {
  timeout: 60_000,
}, async () => {
  const seen: unknown[] = [];
  const probe = tool({
    name: "probe",
    description: "Reports its context.",
    input: z.object({}),
    execute(_input, ctx) {
      seen.push({ toolCallId: ctx.toolCallId, sessionId: ctx.sessionId });
      return "ok";
    },
  });
  await runToolCalls([probe], [{ id: "c1", name: "probe", input: {} }], { sessionId: "s" });
  assert.deepEqual(seen, [{ toolCallId: "c1", sessionId: "s" }]);
});

Deno.test("two tools with one name are a set-up mistake, not a silent pick", {
  timeout: 60_000,
}, async () => {
  const { fast } = recorder();
  const clash = tool({
    name: "now",
    description: "Another now.",
    input: z.object({}),
    execute: () => "",
  });
  await assert.rejects(
    runToolCalls([now, fast, clash], [{ id: "1", name: "fast", input: { tag: "a" } }]),
    (error: Error) => error instanceof SetupError && error.message.includes('"now"'),
  );
});
