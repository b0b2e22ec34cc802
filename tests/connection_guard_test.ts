import assert from "node:assert/strict";
import { guardedServe, type GuardedServer } from "../edge/deno/connection_guard.ts";
import { waitFor } from "./support/wait.ts";

const encoder = new TextEncoder();

function serve(
  limits: { headerTimeoutMs?: number; idleTimeoutMs?: number; maxHalfOpen?: number },
  handler: (request: Request) => Response | Promise<Response> = () => new Response("ok"),
): GuardedServer {
  return guardedServe({ hostname: "127.0.0.1", port: 0, ...limits }, handler);
}

function connect(server: GuardedServer): Promise<Deno.Conn> {
  return Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
}

/** Reads until the server closes the connection; what it sent, as text. */
async function readToEnd(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
  } catch {
    // A reset is a close too.
  }
  conn.close();
  return text;
}

/** Reads one whole response with a Content-Length body off a kept-alive connection. */
async function readResponse(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length - end - 4 >= length) return text;
    }
    const n = await conn.read(buffer);
    if (n === null) throw new Error(`closed after ${JSON.stringify(text)}`);
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
}

const GET = "GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";

Deno.test(
  "a client dribbling its headers is cut off after headerTimeoutMs",
  { timeout: 10_000 },
  async () => {
    const server = serve({ headerTimeoutMs: 200 });
    try {
      const conn = await connect(server);
      await conn.write(encoder.encode("GET / HTTP/1.1\r\n"));
      const dribble = setInterval(
        () => conn.write(encoder.encode("x-a: b\r\n")).catch(() => {}),
        30,
      );
      const sent = await readToEnd(conn);
      clearInterval(dribble);
      assert.equal(sent, "");
      // A silent connection is cut off the same way.
      assert.equal(await readToEnd(await connect(server)), "");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "a kept-alive connection is closed once idle, and works until then",
  { timeout: 10_000 },
  async () => {
    const server = serve({ idleTimeoutMs: 200, headerTimeoutMs: 5_000 });
    try {
      const conn = await connect(server);
      for (let i = 0; i < 3; i++) {
        await conn.write(encoder.encode(GET));
        assert.match(await readResponse(conn), /^HTTP\/1\.1 200/);
      }
      assert.equal(await readToEnd(conn), "");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test(
  "a long call and a quiet event stream outlive both timeouts",
  { timeout: 10_000 },
  async () => {
    const server = serve({ idleTimeoutMs: 100, headerTimeoutMs: 100 }, async (request) => {
      if (new URL(request.url).pathname === "/slow") {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return new Response("finally");
      }
      const encoder = new TextEncoder();
      let timer: ReturnType<typeof setTimeout>;
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(encoder.encode("data: first\n\n"));
            timer = setTimeout(() => {
              controller.enqueue(encoder.encode("data: second\n\n"));
              controller.close();
            }, 600);
          },
          cancel: () => clearTimeout(timer),
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    });
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      assert.equal(await (await fetch(`${base}/slow`)).text(), "finally");
      assert.equal(await (await fetch(`${base}/events`)).text(), "data: first\n\ndata: second\n\n");
    } finally {
      await server.shutdown();
    }
  },
);

Deno.test("connections beyond maxHalfOpen are closed at once; served ones do not count", {
  timeout: 10_000,
}, async () => {
  const server = serve({ maxHalfOpen: 3, headerTimeoutMs: 5_000 });
  try {
    // A served, kept-alive connection is not half-open.
    const served = await connect(server);
    await served.write(encoder.encode(GET));
    assert.match(await readResponse(served), /^HTTP\/1\.1 200/);
    const silent = await Promise.all([1, 2, 3].map(() => connect(server)));
    const extra = await connect(server);
    assert.equal(await readToEnd(extra), "");
    // The slots free up when a half-open connection goes.
    silent.pop()!.close();
    await waitFor(async () => {
      const conn = await connect(server);
      await conn.write(
        encoder.encode("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"),
      );
      return /^HTTP\/1\.1 200/.test(await readToEnd(conn));
    }, "a free slot");
    for (const conn of silent) conn.close();
    served.close();
  } finally {
    await server.shutdown();
  }
});
