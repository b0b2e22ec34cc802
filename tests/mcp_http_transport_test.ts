import assert from "node:assert/strict";
import * as z from "zod";
import { tool } from "../mod.ts";
import { readMessages } from "../src/http/mcp_post_messages.ts";
import { JSON_AND_SSE, type McpPost, TOOL_TOKEN, withMcp } from "./support/mcp_http.ts";
import { sseEvents } from "./support/sse.ts";

const MAX_BODY_BYTES = 16_384;

const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** `/mcp` of an app of `echo` on 127.0.0.1, and a raw POST to it. */
function withEchoMcp(run: (post: McpPost, url: string) => Promise<void>): Promise<void> {
  return withMcp(
    { tools: [echo], limits: { maxBodyBytes: MAX_BODY_BYTES }, onError: () => {} },
    run,
  );
}

/** The JSON-RPC error of a refused request, after checking its status. */
async function refusal(response: Response, status: number) {
  assert.equal(response.status, status);
  assert.equal(response.headers.get("content-type"), "application/json");
  const body = await response.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, null);
  return body.error as { code: number; message: string };
}

function call(id: number, text: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text } },
  };
}

function initialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  };
}

Deno.test("MCP over HTTP takes POST only", { timeout: 60_000 }, async () => {
  await withEchoMcp(async (_post, url) => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${TOOL_TOKEN}`, accept: JSON_AND_SSE },
      });
      assert.equal(response.headers.get("allow"), "POST");
      const error = await refusal(response, 405);
      assert.equal(error.code, -32000);
    }
  });
});

Deno.test("MCP over HTTP needs a client that accepts both JSON and SSE", {
  timeout: 60_000,
}, async () => {
  await withEchoMcp(async (post) => {
    for (const accept of ["application/json", "text/event-stream", "*/*"]) {
      const error = await refusal(await post(call(1, "hi"), { accept }), 406);
      assert.deepEqual(error, {
        code: -32000,
        message: "Not Acceptable: Client must accept both application/json and text/event-stream",
      });
    }
  });
});

Deno.test("MCP over HTTP takes a JSON body only", { timeout: 60_000 }, async () => {
  await withEchoMcp(async (post) => {
    for (const type of ["text/plain", "application/jsonl", "application/json, text/plain"]) {
      const error = await refusal(await post(call(1, "hi"), { "content-type": type }), 415);
      assert.deepEqual(error, {
        code: -32000,
        message: "Unsupported Media Type: Content-Type must be application/json",
      });
    }
    // Parameters and case do not matter.
    const response = await post(call(1, "hi"), {
      "content-type": 'Application/JSON; charset=utf-8; note="a,b"',
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });
});

Deno.test("MCP over HTTP refuses a body over the limit", { timeout: 60_000 }, async () => {
  await withEchoMcp(async (post) => {
    const response = await post(call(1, "x".repeat(MAX_BODY_BYTES)));
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });
  // The checks of a POST hold to their own limit too, declared or not.
  const limit = `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`;
  const big = JSON.stringify(call(1, "x".repeat(MAX_BODY_BYTES)));
  const bodies: BodyInit[] = [
    big,
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    }),
  ];
  for (const body of bodies) {
    const response = await readMessages(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { accept: JSON_AND_SSE, "content-type": "application/json" },
        body,
      }),
      MAX_BODY_BYTES,
    );
    assert.ok(response instanceof Response);
    assert.deepEqual(await refusal(response, 413), { code: -32000, message: limit });
  }
});

Deno.test("MCP over HTTP answers a body that is not JSON with a parse error", {
  timeout: 60_000,
}, async () => {
  await withEchoMcp(async (post) => {
    for (const body of ["{", "", "not json"]) {
      const error = await refusal(await post(body), 400);
      assert.deepEqual(error, { code: -32700, message: "Parse error: Invalid JSON" });
    }
  });
});

Deno.test("MCP over HTTP refuses what is not a JSON-RPC message", { timeout: 60_000 }, async () => {
  await withEchoMcp(async (post) => {
    for (const body of [{ hello: 1 }, 3, [call(1, "hi"), { jsonrpc: "1.0", id: 2, method: "x" }]]) {
      const error = await refusal(await post(body), 400);
      assert.deepEqual(error, { code: -32700, message: "Parse error: Invalid JSON-RPC message" });
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => call(i, "hi"));
    assert.deepEqual(await refusal(await post(tooMany), 400), {
      code: -32600,
      message: "Invalid Request: Batch must not exceed 100 messages",
    });
    assert.deepEqual(await refusal(await post([initialize(1), initialize(2)]), 400), {
      code: -32600,
      message: "Invalid Request: Only one initialization request is allowed",
    });
  });
});

Deno.test("MCP over HTTP checks the mcp-protocol-version header", { timeout: 60_000 }, async () => {
  await withEchoMcp(async (post) => {
    const error = await refusal(
      await post(call(1, "hi"), { "mcp-protocol-version": "1999-01-01" }),
      400,
    );
    assert.equal(error.code, -32000);
    assert.match(
      error.message,
      /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-06-18/,
    );
    // Absent or supported, the call goes through; an initialize names its version in its params.
    const versions: Record<string, string>[] = [{}, { "mcp-protocol-version": "2025-06-18" }];
    for (const headers of versions) {
      const events = sseEvents(await post(call(1, "hi"), headers));
      assert.deepEqual((await events.next()).data.result, {
        content: [{ type: "text", text: "hi" }],
      });
      await events.close();
    }
    const response = await post(initialize(1), { "mcp-protocol-version": "1999-01-01" });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });
});

Deno.test("MCP over HTTP accepts notifications and responses alone with 202", {
  timeout: 60_000,
}, async () => {
  await withEchoMcp(async (post) => {
    for (
      const body of [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        [{ jsonrpc: "2.0", method: "notifications/initialized" }, {
          jsonrpc: "2.0",
          id: 7,
          result: {},
        }],
      ]
    ) {
      const response = await post(body);
      assert.equal(response.status, 202);
      assert.equal(await response.text(), "");
    }
  });
});

Deno.test(
  "MCP over HTTP answers every response of a batch, as one JSON array when all are there at once",
  {
    timeout: 60_000,
  },
  async () => {
    await withEchoMcp(async (post) => {
      const response = await post([
        call(1, "one"),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        call(2, "two"),
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
      ]);
      assert.equal(response.status, 200);
      // Answered at once, as JSON: a stream's headers (tested with the streamed answers) would
      // only cost the runtime.
      assert.equal(response.headers.get("content-type"), "application/json");
      assert.equal(response.headers.get("cache-control"), null);
      assert.equal(response.headers.get("mcp-session-id"), null);
      const messages = await response.json();
      assert.ok(Array.isArray(messages));
      // deno-lint-ignore no-explicit-any
      const byId = new Map<number, any>(messages.map((m) => [m.id, m]));
      assert.equal(messages.length, 3);
      assert.deepEqual(byId.get(1).result.content, [{ type: "text", text: "one" }]);
      assert.deepEqual(byId.get(2).result.content, [{ type: "text", text: "two" }]);
      assert.deepEqual(byId.get(3).result.tools.map((t: { name: string }) => t.name), ["echo"]);
    });
  },
);

Deno.test("MCP over HTTP answers a request whose response is all there is as JSON: one object", {
  timeout: 60_000,
}, async () => {
  await withEchoMcp(async (post) => {
    for (const body of [call(1, "hi"), [call(1, "hi")]]) {
      const response = await post(body);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json");
      assert.deepEqual(await response.json(), {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "hi" }] },
      });
    }
  });
});
