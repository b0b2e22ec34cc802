import assert from "node:assert/strict";
import { formatToolError, ToolError, webFetch, webSearch } from "../mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { TavilySearch } from "../src/search/mod.ts";
import { pdfDecoder } from "../pdf/mod.ts";
import { runCli } from "../edge/deno/app/cli.ts";
import { endless, localServer } from "./support/local_server.ts";
import { makePdf } from "./support/pdf.ts";
import { MISSING_SETTINGS, SEARCH_CHOICES, searchApis } from "./support/search_apis.ts";
import { searchBackendFetch } from "./support/search_backend.ts";

const root = new URL("../", import.meta.url);

/** A `deno task` command line from deno.json, minus `deno`, so tests run what users run. */
async function taskArgs(name: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const [deno, ...args] = (config.tasks[name] as string).split(/\s+/);
  assert.equal(deno, "deno");
  return args;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno task <task> …args` as a subprocess with only `env` (and what deno needs). */
async function task(name: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const inherited: Record<string, string> = {};
  for (const key of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) inherited[key] = value;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...await taskArgs(name), ...args],
    cwd: root,
    env: { NO_COLOR: "1", ...inherited, ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const ARTICLE = `<!doctype html><title>Field notes</title><h1>Field notes</h1>
<p>${"The quick brown fox jumps over the lazy dog. ".repeat(60)}</p>
<p><img src="/fox.png" alt="A fox"></p>`;

function site() {
  return localServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/paper.pdf") {
      return new Response(
        makePdf({ pages: [["Findings"], ["Method"]], title: "A paper" }).slice(),
        {
          headers: { "content-type": "application/pdf" },
        },
      );
    }
    if (path === "/missing") return new Response("gone", { status: 404 });
    if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n");
    return new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
}

Deno.test("deno task fetch prints exactly what web_fetch gives the model", {
  timeout: 60_000,
}, async () => {
  await using server = site();
  const url = `${server.origin}/notes`;
  const run = await task("fetch", [url, "--allow-private-network", "--images"]);
  assert.equal(run.code, 0, run.stderr);
  const expected = await webFetch(new HttpReader({ allowPrivateNetwork: true }))
    .execute({ url, images: true });
  assert.equal(run.stdout, `${expected}\n`);
  assert.match(run.stdout, /Title: Field notes/);
  assert.match(run.stdout, /Images \(1\):\n1\. http:\/\/127\.0\.0\.1:\d+\/fox\.png — A fox/);
  assert.match(run.stderr, /Warning: web_fetch may reach loopback and private addresses/);
});

Deno.test("the environment, --max-chars and --offset work as in the service", {
  timeout: 60_000,
}, async () => {
  await using server = site();
  const url = `${server.origin}/notes`;
  const env = { OUTPOST_ALLOW_PRIVATE_NETWORK: "true", OUTPOST_MAX_CHARS: "1000" };
  const first = await task("fetch", [url], env);
  assert.equal(first.code, 0, first.stderr);
  const offset = /Continue with offset=(\d+)/.exec(first.stdout)?.[1];
  assert.ok(offset, first.stdout);
  const tool = webFetch(new HttpReader({ allowPrivateNetwork: true }), { maxChars: 1000 });
  const second = await task("fetch", [url, "--offset", offset, "--max-chars", "1000"], {
    OUTPOST_ALLOW_PRIVATE_NETWORK: "1",
  });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, `${await tool.execute({ url, offset: Number(offset) })}\n`);
  assert.doesNotMatch(second.stdout, /Title:/);
});

Deno.test("deno task fetch reads a PDF as deno task start does", { timeout: 60_000 }, async () => {
  await using server = site();
  const run = await task("fetch", [`${server.origin}/paper.pdf`, "--allow-private-network"]);
  assert.equal(run.code, 0, run.stderr);
  const reader = new HttpReader({ allowPrivateNetwork: true, decoders: [pdfDecoder()] });
  assert.equal(
    run.stdout,
    `${await webFetch(reader).execute({ url: `${server.origin}/paper.pdf` })}\n`,
  );
  assert.match(run.stdout, /\[Page 1 of 2\]\nFindings\n\n\[Page 2 of 2\]\nMethod/);
});

Deno.test("a tool error exits 1 with the text the model would read", {
  timeout: 60_000,
}, async () => {
  await using server = site();
  // The guard is on by default: a loopback address is refused before any request.
  const refused = await task("fetch", [`${server.origin}/notes`]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, "");
  assert.match(refused.stderr, /^Error: .*127\.0\.0\.1.*\nHint: /);
  assert.equal(server.received.length, 0);
  // An error status is an answer, not a failure, exactly as for the model.
  const missing = await task("fetch", [`${server.origin}/missing`, "--allow-private-network"]);
  assert.equal(missing.code, 0, missing.stderr);
  assert.match(missing.stdout, /HTTP 404/);
  const invalid = await task("search", ["   "]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /^Error: Invalid input/);
  const malformed = await task("fetch", ["not a url"]);
  assert.equal(malformed.code, 1);
  assert.equal(
    malformed.stderr,
    `${
      formatToolError(
        new ToolError('Malformed URL: "not a url".', {
          hint: "Pass an absolute URL such as https://example.com/page.",
        }),
      )
    }\n`,
  );
});

Deno.test("a bad command line exits 2 and names the flag or variable", {
  timeout: 60_000,
}, async () => {
  for (
    const [args, env, message] of [
      [
        ["fetch", "http://127.0.0.1/", "--max-chars", "lots"],
        {},
        /^--max-chars must be a positive integer/,
      ],
      [["fetch", "http://127.0.0.1/"], { OUTPOST_MAX_CHARS: "-3" }, /^OUTPOST_MAX_CHARS must be/],
      [
        ["fetch", "http://127.0.0.1/"],
        { OUTPOST_ALLOW_PRIVATE_NETWORK: "maybe" },
        /^OUTPOST_ALLOW_PRIVATE_NETWORK must be true or false/,
      ],
      [["fetch"], {}, /^fetch takes one URL/],
      [["fetch", "http://127.0.0.1/", "--time-range", "d"], {}, /^--time-range is a search option/],
      [["search", "deno", "--images"], {}, /^--images is a fetch option/],
      [["search"], {}, /^search takes a query/],
      [["browse", "x"], {}, /^Unknown command "browse"/],
      [["fetch", "http://127.0.0.1/", "--verbose"], {}, /Unknown option '--verbose'/],
    ] as const
  ) {
    const lines: string[] = [];
    const code = await runCli(args, { env, stdout: () => {}, stderr: (text) => lines.push(text) });
    assert.equal(code, 2, args.join(" "));
    assert.match(lines.join("\n"), message, args.join(" "));
  }
  const help: string[] = [];
  assert.equal(await runCli(["--help"], { env: {}, stdout: (text) => help.push(text) }), 0);
  assert.match(help[0], /^Usage: deno task fetch <url>/);
});

Deno.test("search prints what web_search gives the model, Tavily when a key is set", {
  timeout: 60_000,
}, async () => {
  const body = {
    query: "edge runtimes",
    results: [{ title: "Edge", url: "https://edge.example/", content: "About edges.", score: 0.9 }],
    response_time: 0.1,
  };
  await using tavily = localServer(() => Response.json(body));
  // Every request goes to the local server: nothing leaves the machine.
  const local: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return fetch(`${tavily.origin}${url.pathname}`, init);
  };
  const out: string[] = [];
  const code = await runCli(["search", "edge", "runtimes", "--max-results", "3"], {
    env: { TAVILY_API_KEY: "tvly-test-key" },
    fetch: local,
    stdout: (text) => out.push(text),
    stderr: (text) => assert.fail(text),
  });
  assert.equal(code, 0);
  const expected = await webSearch(
    new TavilySearch({
      apiKey: "tvly-test-key",
      endpoint: `${tavily.origin}/search`,
    }),
  )
    .execute({ query: "edge runtimes", max_results: 3 });
  assert.deepEqual(out, [expected]);
  assert.equal(tavily.received.length, 2);
  assert.equal(JSON.parse(tavily.received[0].body).max_results, 3);
  assert.equal(tavily.received[0].headers.get("authorization"), "Bearer tvly-test-key");
});

Deno.test("an aborted call exits 130", { timeout: 60_000 }, async () => {
  // A body that starts and then stalls until the client gives up on it.
  await using server = localServer(() => endless("<p>Loading", new Promise(() => {})));
  const controller = new AbortController();
  const lines: string[] = [];
  const running = runCli(["fetch", `${server.origin}/slow`, "--allow-private-network"], {
    env: {},
    signal: controller.signal,
    stdout: () => {},
    stderr: (text) => lines.push(text),
  });
  await server.arrived(1);
  controller.abort();
  assert.equal(await running, 130);
  assert.equal(lines.at(-1), "Interrupted.");
});

Deno.test("--no-allow-private-network wins over the environment, as for deno task start", {
  timeout: 60_000,
}, async () => {
  await using server = site();
  const lines: string[] = [];
  const code = await runCli(["fetch", `${server.origin}/notes`, "--no-allow-private-network"], {
    env: { OUTPOST_ALLOW_PRIVATE_NETWORK: "true" },
    stdout: () => {},
    stderr: (text) => lines.push(text),
  });
  assert.equal(code, 1);
  assert.match(lines.join("\n"), /^Error: .*127\.0\.0\.1/);
  assert.equal(server.received.length, 0);
});

Deno.test("--respect-robots and OUTPOST_RESPECT_ROBOTS refuse what robots.txt disallows", {
  timeout: 60_000,
}, async () => {
  await using server = site();
  const url = `${server.origin}/private/notes`;
  const open = await task("fetch", [url, "--allow-private-network"]);
  assert.equal(open.code, 0, open.stderr);
  for (
    const run of [
      await task("fetch", [url, "--allow-private-network", "--respect-robots"]),
      await task("fetch", [url], {
        OUTPOST_ALLOW_PRIVATE_NETWORK: "true",
        OUTPOST_RESPECT_ROBOTS: "true",
      }),
    ]
  ) {
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /^Error: .*robots\.txt/m);
    assert.match(run.stderr, /the Disallow rule on line 2,/);
  }
  const search = await task("search", ["foxes", "--respect-robots"]);
  assert.equal(search.code, 2);
  assert.match(search.stderr, /--respect-robots is a fetch option/);
});

Deno.test("search uses the backend OUTPOST_SEARCH names; one without its key exits 2", {
  timeout: 60_000,
}, async () => {
  await using apis = searchApis();
  for (const choice of SEARCH_CHOICES) {
    const out: string[] = [];
    const before = apis.received.length;
    const code = await runCli(["search", "lanterns"], {
      env: choice.settings(apis.origin),
      fetch: searchBackendFetch(apis.origin),
      stdout: (text) => out.push(text),
      stderr: (text) => assert.fail(text),
    });
    assert.equal(code, 0, choice.backend);
    assert.match(out.join("\n"), choice.found, choice.backend);
    assert.ok(choice.keyed(apis.received[before]), choice.backend);
  }
  for (const [env, variable] of MISSING_SETTINGS) {
    const errors: string[] = [];
    const code = await runCli(["search", "lanterns"], {
      env,
      stdout: (text) => assert.fail(text),
      stderr: (text) => errors.push(text),
    });
    assert.equal(code, 2);
    assert.match(
      errors.join("\n"),
      new RegExp(
        `^OUTPOST_SEARCH=${env.OUTPOST_SEARCH} needs ${variable}, which is not set\\.\\nSet ${variable}`,
      ),
    );
  }
});
