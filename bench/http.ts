/**
 * Overhead of the HTTP front per request, in process (no sockets): `deno bench bench/http.ts`.
 * The tool itself is trivial, so the numbers are routing, auth, body parsing and JSON.
 */
import * as z from "zod";
import { HumanChannel, tool } from "../mod.ts";
import { createApp } from "../src/http/mod.ts";

const TOOL_TOKEN = "tool-token-0123456789abcdef";
const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const channel = new HumanChannel();
const app = createApp({
  tools: [echo],
  channel,
  auth: { toolToken: TOOL_TOKEN, operatorToken: "operator-token-0123456789abcdef" },
});
const headers = { authorization: `Bearer ${TOOL_TOKEN}` };
const body = JSON.stringify({ text: "hello" });

Deno.bench("GET /tools", async () => {
  await (await app.fetch(new Request("http://bench/tools", { headers }))).arrayBuffer();
});

Deno.bench("POST /tools/echo", async () => {
  const request = new Request("http://bench/tools/echo", { method: "POST", headers, body });
  await (await app.fetch(request)).arrayBuffer();
});

Deno.bench("POST /tools/echo, wrong token (401)", async () => {
  const request = new Request("http://bench/tools/echo", {
    method: "POST",
    headers: { authorization: "Bearer wrong-token-0123456789abcd" },
    body,
  });
  await (await app.fetch(request)).arrayBuffer();
});

Deno.bench("POST /mcp tools/call echo", async () => {
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
});
