/**
 * Overhead of the HTTP front per request, in process (no sockets): `deno task bench`, or this
 * file alone with `deno run -A bench/http.ts` (`deno bench bench/http.ts` for Deno's own
 * statistics). The tool itself is trivial, so the numbers are routing, auth, body parsing and
 * JSON, and the ratio to a direct `execute` is the front's cost.
 */
import * as z from "zod";
import { tool } from "../mod.ts";
import { MemoryQuestionChannel } from "../src/human/mod.ts";
import { createApp } from "../src/http/mod.ts";
import { type BenchSummary, measure, perCall } from "./measure.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const channel = new MemoryQuestionChannel();
const app = createApp({
  tools: [echo],
  channel,
  auth: { toolToken: TOOL_TOKEN, operatorToken: "operator-token-0123456789abcdef" },
});
const headers = { authorization: `Bearer ${TOOL_TOKEN}` };
const body = JSON.stringify({ text: "hello" });

const CASES: [string, () => Promise<unknown>][] = [
  ["direct execute (no HTTP)", () => echo.execute({ text: "hello" })],
  ["GET /tools", async () => {
    await (await app.fetch(new Request("http://bench/tools", { headers }))).arrayBuffer();
  }],
  ["POST /tools/echo", async () => {
    const request = new Request("http://bench/tools/echo", { method: "POST", headers, body });
    await (await app.fetch(request)).arrayBuffer();
  }],
  ["POST /tools/echo, wrong token (401)", async () => {
    const request = new Request("http://bench/tools/echo", {
      method: "POST",
      headers: { authorization: "Bearer wrong-token-0123456789abcd" },
      body,
    });
    await (await app.fetch(request)).arrayBuffer();
  }],
  ["POST /mcp tools/call echo", async () => {
    const request = new Request("http://bench/mcp", {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "hello" } },
      }),
    });
    await (await app.fetch(request)).arrayBuffer();
  }],
];

for (const [name, operation] of CASES) Deno.bench(name, async () => void await operation());

/** Times every case; the summary gives each per call and what the JSON and MCP routes add. */
export async function run(): Promise<BenchSummary> {
  const timings = new Map<string, number>();
  const rows: [string, string][] = [];
  for (const [name, operation] of CASES) {
    const timing = await measure(operation);
    timings.set(name, timing.medianUs);
    rows.push([name, perCall(timing)]);
  }
  const direct = timings.get("direct execute (no HTTP)")!;
  for (const route of ["POST /tools/echo", "POST /mcp tools/call echo"]) {
    const overhead = timings.get(route)! - direct;
    rows.push([`${route}, over a direct execute`, `+${overhead.toFixed(1)} µs per call`]);
  }
  return { rows };
}

if (import.meta.main) {
  for (const [label, value] of (await run()).rows) console.log(`${label}: ${value}`);
}
