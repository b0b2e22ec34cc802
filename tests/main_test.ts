import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { localServer } from "./support/local_server.ts";
import { makePdf } from "./support/pdf.ts";
import { holdSilent } from "./support/peers.ts";
import { searchApis } from "./support/search_apis.ts";
import { inheritedEnv } from "./support/inherited_env.ts";
import { waitFor } from "./support/wait.ts";
import { start, startArgs, within } from "./support/service_process.ts";

const root = new URL("../", import.meta.url);
const TOOL_TOKEN = "tool-token-0123456789abcdef";
const OPERATOR_TOKEN = "operator-token-0123456789abcdef";

/** The child's environment with both tokens set, and `extra`. */
function tokenEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...inheritedEnv(),
    OUTPOST_TOOL_TOKEN: TOOL_TOKEN,
    OUTPOST_OPERATOR_TOKEN: OPERATOR_TOKEN,
    ...extra,
  };
}

async function withDataDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "outpost-main-" });
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function tokenIn(output: string, label: string): string {
  const match = new RegExp(`${label} token:\\s+(\\S+)`).exec(output);
  assert.ok(match, `${label} token printed in:\n${output}`);
  return match[1];
}

Deno.test(
  "with no tokens configured it generates them, prints them and the URLs",
  within(1),
  async () => {
    await withDataDir(async (dir) => {
      const service = await start(["--data-dir", dir], inheritedEnv());
      try {
        assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.ok(service.output.includes(`Console:         ${service.url}/\n`));
        assert.ok(service.output.includes(`MCP:             ${service.url}/mcp\n`));
        assert.match(service.output, /Search:\s+DuckDuckGo/);
        const toolToken = tokenIn(service.output, "Tool");
        const operatorToken = tokenIn(service.output, "Operator");
        assert.notEqual(toolToken, operatorToken);

        let response = await fetch(`${service.url}/tools`, {
          headers: { authorization: `Bearer ${toolToken}` },
        });
        const { tools } = await response.json();
        assert.deepEqual(tools.map((t: { name: string }) => t.name), [
          "web_fetch",
          "web_search",
          "now",
          "ask_human",
        ]);
        response = await fetch(`${service.url}/tools/now`, {
          method: "POST",
          headers: { authorization: `Bearer ${toolToken}` },
          body: JSON.stringify({ tz: "UTC" }),
        });
        assert.match((await response.json()).text, /^\d{4}-\d{2}-\d{2}T[\d:]+\+00:00$/);
        // The SSRF guard is on: the service will not fetch its own loopback address.
        response = await fetch(`${service.url}/tools/web_fetch`, {
          method: "POST",
          headers: { authorization: `Bearer ${toolToken}` },
          body: JSON.stringify({ url: `${service.url}/` }),
        });
        assert.equal(response.status, 422);
        await response.body?.cancel();
        response = await fetch(`${service.url}/questions`, {
          headers: { authorization: `Bearer ${operatorToken}` },
        });
        assert.deepEqual(await response.json(), { questions: [] });
        response = await fetch(`${service.url}/`);
        assert.match(await response.text(), /Operator token/);

        const client = new Client({ name: "outpost-test", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${toolToken}` } },
          }),
        );
        try {
          const listed = await client.listTools();
          assert.deepEqual(listed.tools.map((t) => [t.name, t.annotations?.readOnlyHint]), [
            ["web_fetch", true],
            ["web_search", true],
            ["now", true],
            ["ask_human", false],
          ]);
          const result = await client.callTool({ name: "now", arguments: { tz: "UTC" } });
          const [content] = result.content as { type: string; text: string }[];
          assert.equal(result.isError, undefined);
          assert.match(content.text, /^\d{4}-\d{2}-\d{2}T[\d:]+\+00:00$/);
        } finally {
          await client.close();
        }
        await Deno.stat(`${dir}/outpost.sqlite3`);
      } finally {
        await service.stop();
      }
    });
  },
);

Deno.test("tokens from the environment and flags are used and not printed", within(1), async () => {
  await withDataDir(async (dir) => {
    const service = await start(
      ["--data-dir", dir, "--operator-token", OPERATOR_TOKEN],
      { ...inheritedEnv(), OUTPOST_TOOL_TOKEN: TOOL_TOKEN },
    );
    try {
      assert.doesNotMatch(service.output, /token/i);
      let response = await fetch(`${service.url}/tools`, {
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      response = await fetch(`${service.url}/questions`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    } finally {
      await service.stop();
    }
  });
});

/** Runs the service to its exit, for the command lines it refuses. */
async function refused(args: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...await startArgs(), ...args],
    cwd: root,
    env: { NO_COLOR: "1", ...inheritedEnv(), ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  return {
    code,
    stdout: new TextDecoder().decode(stdout),
    stderr: new TextDecoder().decode(stderr),
  };
}

Deno.test(
  "it refuses a non-loopback address without configured tokens, and bad flags",
  within(3),
  async () => {
    for (
      const [args, message, env] of [
        [["--host", "0.0.0.0"], /Refusing to listen on 0\.0\.0\.0 without configured tokens/],
        [["--port", "http"], /--port must be a port number/],
        [["--verbose"], /Unknown option '--verbose'/],
        [["--tools", "web_fetch,browse"], /--tools names an unknown tool, "browse"/],
        [["--tools", "now,now"], /--tools names now twice/],
        [["--max-chars", "lots"], /--max-chars must be a positive integer, not "lots"/],
        [["--fetch-timeout", "0"], /--fetch-timeout must be a positive integer, not 0\./],
        [
          ["--header-timeout", "soon"],
          /--header-timeout must be a positive number of milliseconds up to 2147483647, not "soon"/,
        ],
        [
          ["--ask-timeout", "2147483648"],
          /--ask-timeout must be a positive number of milliseconds up to 2147483647, not 2147483648/,
        ],
        [["--max-chars", "500"], /maxChars must be an integer of at least 1000, not 500/],
        [["--allow-private-network=yes"], /'--allow-private-network' does not take an argument/],
        // The variables are checked as strictly, and named when wrong.
        [[], /OUTPOST_MAX_CHARS must be a positive integer, not "1e4"/, {
          OUTPOST_MAX_CHARS: "1e4",
        }],
        [
          [],
          /OUTPOST_SHUTDOWN_GRACE_MS must be a positive number of milliseconds up to 2147483647/,
          {
            OUTPOST_SHUTDOWN_GRACE_MS: "4000000000",
          },
        ],
      ] as const
    ) {
      const result = await refused([...args, "--data-dir", "/nonexistent/never-created"], env);
      assert.equal(result.code, 2, args.join(" "));
      assert.equal(result.stdout, "");
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
    }
  },
);

Deno.test(
  "--help lists every flag with the environment variable it overrides",
  within(1),
  async () => {
    const { code, stdout } = await refused(["--help"]);
    assert.equal(code, 0);
    for (
      const [flag, variable] of [
        ["--tools", "OUTPOST_TOOLS"],
        ["--max-chars", "OUTPOST_MAX_CHARS"],
        ["--fetch-timeout", "OUTPOST_FETCH_TIMEOUT_MS"],
        ["--allow-private-network", "OUTPOST_ALLOW_PRIVATE_NETWORK"],
        ["--respect-robots", "OUTPOST_RESPECT_ROBOTS"],
        ["--ask-timeout", "OUTPOST_ASK_TIMEOUT_MS"],
        ["--tool-token", "OUTPOST_TOOL_TOKEN"],
        ["--operator-token", "OUTPOST_OPERATOR_TOKEN"],
        ["--header-timeout", "OUTPOST_HEADER_TIMEOUT_MS"],
        ["--shutdown-grace", "OUTPOST_SHUTDOWN_GRACE_MS"],
      ]
    ) {
      assert.match(stdout, new RegExp(`${flag} [^]*?env ${variable}`), flag);
    }
    for (const flag of ["--port", "--host", "--data-dir", "--help"]) {
      assert.ok(
        stdout.includes(flag),
      );
    }
  },
);

Deno.test(
  "a port already in use is named, with what to do, and no stack trace",
  within(1),
  async () => {
    using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    await withDataDir(async (dir) => {
      const { port } = taken.addr as Deno.NetAddr;
      const result = await refused(["--port", String(port), "--data-dir", dir]);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, "");
      assert.match(
        result.stderr,
        new RegExp(`^Port ${port} is already in use \\(127\\.0\\.0\\.1:${port}\\)\\.\n`),
      );
      assert.match(result.stderr, new RegExp(`deno task start --port ${port + 1}\n`));
      assert.doesNotMatch(result.stderr, /AddrInUse|error:|\n\s+at /);
    });
  },
);

Deno.test(
  "flags choose the tools, web_fetch's limits and private-network access, over the environment",
  within(2),
  async () => {
    // A page on this machine, and one that never answers, for the timeout.
    const page = `<html><head><title>Local notes</title></head><body><main><p>${
      "Plenty of words on a page served from this very machine. ".repeat(60)
    }</p></main></body></html>`;
    const hanging = Promise.withResolvers<void>();
    const fixture = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (request) => {
        if (new URL(request.url).pathname === "/slow") await hanging.promise;
        return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
      },
    );
    const site = `http://127.0.0.1:${fixture.addr.port}`;
    const call = (url: string, tool: string, input: unknown) =>
      fetch(`${url}/tools/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
        body: JSON.stringify(input),
      });
    const env = tokenEnv({
      OUTPOST_TOOLS: "web_search",
      OUTPOST_MAX_CHARS: "50000",
    });
    try {
      await withDataDir(async (dir) => {
        const service = await start([
          "--data-dir",
          dir,
          "--tools",
          "web_fetch,now",
          "--max-chars",
          "1500",
          "--fetch-timeout",
          "300",
          "--allow-private-network",
        ], env);
        let stderr = "";
        try {
          assert.match(service.output, /Tools:\s+web_fetch, now\n/);
          assert.doesNotMatch(service.output, /Search:/);
          let response = await fetch(`${service.url}/tools`, {
            headers: { authorization: `Bearer ${TOOL_TOKEN}` },
          });
          const { tools } = await response.json();
          assert.deepEqual(tools.map((t: { name: string }) => t.name), ["web_fetch", "now"]);
          assert.match(tools[0].description, /parts of up to 1500 characters/);

          response = await call(service.url, "web_fetch", { url: `${site}/notes` });
          assert.equal(response.status, 200);
          const { text } = await response.json();
          assert.match(text, /Title: Local notes/);
          assert.match(text, /offset/, "cut at --max-chars, with a notice to read on");
          assert.ok(text.length < 2500, `${text.length} characters`);

          response = await call(service.url, "web_fetch", { url: `${site}/slow` });
          assert.equal(response.status, 422);
          assert.match((await response.json()).error, /Timed out after 0\.3 s/);
        } finally {
          stderr = await service.stop();
        }
        assert.match(stderr, /Warning: web_fetch may reach loopback and private addresses/);
      });

      // The variable turns private access on; the flag's negation wins over it.
      await withDataDir(async (dir) => {
        const service = await start(["--data-dir", dir, "--no-allow-private-network"], {
          ...env,
          OUTPOST_TOOLS: "web_fetch",
          OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
        });
        let stderr = "";
        try {
          const response = await call(service.url, "web_fetch", { url: `${site}/notes` });
          assert.equal(response.status, 422);
          await response.body?.cancel();
        } finally {
          stderr = await service.stop();
        }
        assert.doesNotMatch(stderr, /Warning/);
      });
    } finally {
      hanging.resolve();
      await fixture.shutdown();
    }
  },
);

Deno.test(
  "a question survives a restart and the retried call re-attaches by its tool-call id",
  within(2),
  async () => {
    await withDataDir(async (dir) => {
      const env = tokenEnv();
      const ask = (url: string) =>
        fetch(`${url}/tools/ask_human`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${TOOL_TOKEN}`,
            "outpost-tool-call-id": "call_restart",
          },
          body: JSON.stringify({
            question: "Ship it?",
            options: [{ label: "Yes" }, { label: "No" }],
          }),
        });
      const pending = async (url: string) => {
        let questions: { id: string; toolCallId?: string }[] = [];
        await waitFor(async () => {
          const response = await fetch(`${url}/questions`, {
            headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          });
          ({ questions } = await response.json());
          return questions.length > 0;
        }, "a pending question");
        return questions;
      };

      const first = await start(["--data-dir", dir], env);
      const lost = ask(first.url).then(
        (response) => response.body?.cancel().then(() => "answered"),
        () => "dropped",
      );
      const [question] = await pending(first.url);
      assert.equal(question.toolCallId, "call_restart");
      await first.stop();
      assert.equal(await lost, "dropped");

      const second = await start(["--data-dir", dir], env);
      try {
        // The retried call re-attaches whether it arrives before or after the answer: answered
        // first, it gets the stored answer at once.
        const retried = ask(second.url);
        const questions = await pending(second.url);
        assert.deepEqual(questions.map((q: { id: string }) => q.id), [question.id]);
        const answered = await fetch(`${second.url}/questions/${question.id}/answer`, {
          method: "POST",
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          body: JSON.stringify({ answer: "Yes" }),
        });
        assert.equal(answered.status, 200);
        await answered.body?.cancel();
        const result = await retried;
        assert.equal(result.status, 200);
        assert.deepEqual(await result.json(), { text: "Yes" });
      } finally {
        await second.stop();
      }
    });
  },
);

Deno.test(
  "it reads a PDF on 127.0.0.1 as text when private addresses are allowed",
  within(1),
  async () => {
    await using pdfServer = localServer(() =>
      new Response(makePdf({ pages: [["Served by the test"]], title: "Local PDF" }).slice(), {
        headers: { "content-type": "application/pdf" },
      })
    );
    await withDataDir(async (dir) => {
      const service = await start(
        ["--data-dir", dir],
        tokenEnv({
          OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
        }),
      );
      try {
        const response = await fetch(`${service.url}/tools/web_fetch`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOOL_TOKEN}` },
          body: JSON.stringify({ url: `${pdfServer.origin}/local.pdf` }),
        });
        const { text } = await response.json();
        assert.match(text, /HTTP 200 · application\/pdf/);
        assert.match(text, /Title: Local PDF\n\n\[Page 1 of 1\]\nServed by the test/);
      } finally {
        await service.stop();
      }
    });
  },
);
Deno.test(
  "on SIGTERM a question without a tool-call id is withdrawn; answering it is a 409",
  within(2),
  async () => {
    await withDataDir(async (dir) => {
      const env = tokenEnv();
      const operator = (url: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      // A short grace: the call is aborted, and its question withdrawn, well before the default's
      // 10 s are up.
      const first = await start(["--data-dir", dir, "--shutdown-grace", "200"], env);
      const call = fetch(`${first.url}/tools/ask_human`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
        body: JSON.stringify({ question: "Anyone there?" }),
      }).then((response) => response.body?.cancel(), () => {});
      let id = "";
      await waitFor(async () => {
        const { questions } = await (await operator(first.url, "/questions")).json();
        id = questions[0]?.id ?? "";
        return id !== "";
      }, "the question");
      const stopping = Date.now();
      await first.stop();
      assert.ok(Date.now() - stopping < 10_000, "--shutdown-grace is used");
      await call;

      const second = await start(["--data-dir", dir], env);
      try {
        assert.deepEqual(await (await operator(second.url, "/questions")).json(), {
          questions: [],
        });
        const answered = await operator(second.url, `/questions/${id}/answer`, { answer: "Yes" });
        assert.equal(answered.status, 409);
        assert.match((await answered.json()).error, /was withdrawn .*nobody is waiting/);
      } finally {
        await second.stop();
      }
    });
  },
);

Deno.test(
  "a connection that never completes its headers is closed",
  within(1),
  async () => {
    await withDataDir(async (dir) => {
      // A short header timeout, which also bounds a silent connection's.
      const service = await start(["--data-dir", dir], {
        ...inheritedEnv(),
        OUTPOST_HEADER_TIMEOUT_MS: "300",
      });
      try {
        const { port } = new URL(service.url);
        const closed = async (sent: "nothing" | "a line" | "a dribble") => {
          const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
          const encoder = new TextEncoder();
          if (sent !== "nothing") await conn.write(encoder.encode("POST /tools/now HTTP/1.1\r\n"));
          const timer = sent === "a dribble"
            ? setInterval(() => conn.write(encoder.encode("x-a: b\r\n")).catch(() => {}), 50)
            : undefined;
          try {
            // The service closes it: the read ends instead of waiting forever.
            return await conn.read(new Uint8Array(1024)).catch(() => null);
          } finally {
            clearInterval(timer);
            conn.close();
          }
        };
        const opened = Date.now();
        assert.deepEqual(
          await Promise.all([closed("nothing"), closed("a line"), closed("a dribble")]),
          [null, null, null],
        );
        assert.ok(Date.now() - opened < 10_000, "OUTPOST_HEADER_TIMEOUT_MS is used");
        const response = await fetch(`${service.url}/tools`);
        assert.equal(response.status, 401);
        await response.body?.cancel();
      } finally {
        await service.stop();
      }
    });
  },
);

Deno.test(
  "a client without a token holding silent connections and reopening them locks nobody out",
  within(1),
  async () => {
    await withDataDir(async (dir) => {
      const service = await start(["--data-dir", dir], inheritedEnv());
      // As many as the service keeps half-open in all (256), from the address of the real
      // requests.
      const attack = holdSilent(Number(new URL(service.url).port), 256, "127.0.0.1");
      try {
        await waitFor(() => attack.opened >= 256, "the attacker's connections");
        for (let i = 0; i < 10; i++) {
          const response = await fetch(`${service.url}/tools`, {
            headers: { connection: "close" },
          });
          assert.equal(response.status, 401);
          await response.body?.cancel();
        }
      } finally {
        await attack.stop();
        await service.stop();
      }
    });
  },
);

Deno.test(
  "--respect-robots, or its variable, makes web_fetch honour robots.txt",
  within(3),
  async () => {
    const fixture = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) =>
        new URL(request.url).pathname === "/robots.txt"
          ? new Response("User-agent: *\nDisallow: /private\n")
          : new Response("a page"),
    );
    const site = `http://127.0.0.1:${fixture.addr.port}`;
    const env = tokenEnv({
      OUTPOST_TOOLS: "web_fetch",
    });
    const read = (url: string, path: string) =>
      fetch(`${url}/tools/web_fetch`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOOL_TOKEN}` },
        body: JSON.stringify({ url: `${site}${path}` }),
      });
    try {
      for (
        const [args, extra] of [
          [["--respect-robots"], {}],
          [[], { OUTPOST_RESPECT_ROBOTS: "true" }],
          [["--no-respect-robots"], { OUTPOST_RESPECT_ROBOTS: "true" }],
        ] as const
      ) {
        await withDataDir(async (dir) => {
          const service = await start(
            ["--data-dir", dir, "--allow-private-network", ...args],
            { ...env, ...extra },
          );
          try {
            const open = await read(service.url, "/open");
            assert.equal(open.status, 200);
            await open.body?.cancel();
            const closed = await read(service.url, "/private");
            const honoured = !args.includes("--no-respect-robots" as never);
            assert.equal(closed.status, honoured ? 422 : 200, args.join(" "));
            const body = await closed.json();
            if (honoured) {
              assert.match(body.error, /robots\.txt does not allow .*the Disallow rule on line 2,/);
            }
          } finally {
            await service.stop();
          }
        });
      }
    } finally {
      await fixture.shutdown();
    }
  },
);

Deno.test(
  "OUTPOST_SEARCH chooses the backend at start; one without its key stops the start naming it",
  within(2),
  async () => {
    await withDataDir(async (dir) => {
      await using apis = searchApis();
      const service = await start(
        ["--data-dir", dir],
        tokenEnv({
          OUTPOST_SEARCH: "searxng",
          SEARXNG_URL: apis.origin,
          OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
        }),
      );
      try {
        assert.match(service.output, /Search:\s+SearXNG\n/);
        const response = await fetch(`${service.url}/tools/web_search`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "lanterns" }),
        });
        assert.equal(response.status, 200);
        assert.match((await response.json()).text, /1\. searxng found lanterns/);
      } finally {
        await service.stop();
      }
      await assert.rejects(
        start(["--data-dir", dir], tokenEnv({ OUTPOST_SEARCH: "brave" })),
        /the service exited \(2\): [^]*OUTPOST_SEARCH=brave needs BRAVE_API_KEY, which is not set\.\nSet BRAVE_API_KEY/,
      );
    });
  },
);

Deno.test(
  "each tool call is a JSON line on stdout; with OTEL_DENO=true Deno exports its spans",
  within(1),
  async () => {
    await using site = localServer(() =>
      new Response("hello", { headers: { "content-type": "text/plain" } })
    );
    // An OTLP/HTTP collector on loopback, as Deno's built-in exporter talks to one.
    await using collector = localServer(() => Response.json({}));
    await withDataDir(async (dir) => {
      const service = await start(
        ["--data-dir", dir, "--allow-private-network"],
        tokenEnv({
          OTEL_DENO: "true",
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_DENO_CONSOLE: "ignore",
        }),
      );
      let stderr = "";
      try {
        const response = await fetch(`${service.url}/tools/web_fetch`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOOL_TOKEN}`, "outpost-tool-call-id": "c1" },
          body: JSON.stringify({ url: `${site.origin}/page?key=secret-value` }),
        });
        assert.equal(response.status, 200);
        await response.body?.cancel();
        const [line] = await service.more(/^\{"time".*\n/m);
        const entry = JSON.parse(line);
        assert.deepEqual({ ...entry, time: 0, durationMs: 0 }, {
          time: 0,
          durationMs: 0,
          tenant: "default",
          tool: "web_fetch",
          outcome: "ok",
          bytesRead: 5,
          cacheHit: false,
          host: new URL(site.origin).host,
          toolCallId: "c1",
        });
      } finally {
        stderr = await service.stop();
      }
      // Deno flushes its spans on exit; ours are those of the "outpost" scope.
      type Exported = {
        resourceSpans: {
          scopeSpans: {
            scope: { name: string };
            spans: {
              name: string;
              spanId: string;
              parentSpanId?: string;
              attributes: { key: string; value: Record<string, unknown> }[];
            }[];
          }[];
        }[];
      };
      const spans = collector.received.filter((r) => r.path === "/v1/traces")
        .flatMap((r) => (JSON.parse(r.body) as Exported).resourceSpans)
        .flatMap((resource) => resource.scopeSpans)
        .filter((scope) => scope.scope.name === "outpost")
        .flatMap((scope) => scope.spans);
      const attributes = (span: (typeof spans)[number]) =>
        Object.fromEntries(span.attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
      const call = spans.find((span) => span.name === "execute_tool web_fetch");
      const request = spans.find((span) => span.name === "GET");
      assert.ok(call && request, stderr);
      assert.equal(request.parentSpanId, call.spanId);
      assert.equal(attributes(call)["gen_ai.tool.call.id"], "c1");
      assert.equal(attributes(call)["gen_ai.operation.name"], "execute_tool");
      // Deno's own span of the same fetch has the query; ours leaves it out.
      assert.equal(attributes(request)["url.full"], `${site.origin}/page`);
    });
  },
);

Deno.test(
  "OUTPOST_RATE_LIMIT and OUTPOST_CONCURRENCY_LIMIT limit each tool token's calls, per process",
  within(1),
  async () => {
    await withDataDir(async (dir) => {
      const service = await start(
        ["--data-dir", dir, "--tools", "now"],
        tokenEnv({ OUTPOST_RATE_LIMIT: "1/h", OUTPOST_CONCURRENCY_LIMIT: "4" }),
      );
      try {
        const call = () =>
          fetch(`${service.url}/tools/now`, {
            method: "POST",
            headers: { authorization: `Bearer ${TOOL_TOKEN}` },
            body: "{}",
          });
        const first = await call();
        assert.equal(first.status, 200);
        await first.body?.cancel();
        const second = await call();
        assert.equal(second.status, 429);
        // An hour less the time since the first call, in whole seconds rounded up.
        assert.match(second.headers.get("retry-after")!, /^(3600|359\d)$/);
        assert.equal((await second.json()).code, "rate_limited");
      } finally {
        await service.stop();
      }
    });
  },
);

Deno.test(
  "an access log nobody reads holds up no call, and loses no line",
  within(1),
  async () => {
    await withDataDir(async (dir) => {
      const service = await start(["--data-dir", dir, "--tools", "now"], tokenEnv());
      try {
        // Far more lines than a pipe holds (64 KB), none of them read until every call is done:
        // a service writing its log synchronously stops answering once the pipe is full.
        const calls = 1000;
        for (let i = 0; i < calls; i++) {
          const response = await fetch(`${service.url}/tools/now`, {
            method: "POST",
            headers: { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" },
            body: "{}",
          });
          assert.equal(response.status, 200);
          await response.body?.cancel();
        }
        await service.more(new RegExp(`(?:\\{"time":[^\\n]*"tool":"now"[^\\n]*\\n){${calls}}`));
      } finally {
        await service.stop();
      }
    });
  },
);
