import assert from "node:assert/strict";
import { SetupError, ToolError } from "../mod.ts";
import { HttpReader } from "../src/fetch/mod.ts";
import { assertLinear } from "./support/linear_time.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { localServer } from "./support/local_server.ts";

const local = { allowPrivateNetwork: true, retryDelayMs: 1, respectRobots: true } as const;

/** A site whose /robots.txt is `robots` (or answers `status`) and whose pages say their path. */
function site(robots: string, status = 200) {
  return localServer((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/robots.txt") {
      return new Response(robots, { status, headers: { "content-type": "text/plain" } });
    }
    if (url.pathname === "/moved") {
      return new Response(null, { status: 302, headers: { location: "/private/landing" } });
    }
    return new Response(`page ${url.pathname}${url.search}`);
  });
}

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof ToolError, `expected a ToolError, got ${error}`);
  return error;
}

Deno.test("a disallowed page is refused with the rule; robots.txt is read once per origin", {
  timeout: 60_000,
}, async () => {
  await using server = site("User-agent: *\nDisallow: /private\n");
  const reader = new HttpReader(local);
  assert.equal((await reader.read(`${server.origin}/public`)).text, "page /public");
  const error = await refusal(reader.read(`${server.origin}/private/x`));
  assert.match(
    error.message,
    /^127\.0\.0\.1:\d+'s robots\.txt does not allow outpost-agent-tools to read this page: the Disallow rule on line 2, in the group for "\*"\.$/,
  );
  // After a redirect, the landing page is held to the rules too.
  assert.match(
    (await refusal(reader.read(`${server.origin}/moved`))).message,
    /the Disallow rule on line 2,/,
  );
  const robots = server.received.filter((r) => r.path === "/robots.txt");
  assert.equal(robots.length, 1);
  assert.match(robots[0].headers.get("user-agent")!, /outpost-agent-tools/);
  assert.ok(!server.received.some((r) => r.path === "/private/x"));
});

Deno.test("our own group beats *, the longest rule wins, Allow wins a tie, * and $ match", {
  timeout: 60_000,
}, async () => {
  await using server = site([
    "User-agent: *",
    "Disallow: /",
    "",
    "# ours",
    "User-agent: Outpost-Agent-Tools/1.0",
    "User-agent: someone-else",
    "Disallow: /docs/",
    "Allow: /docs/public",
    "Disallow: /*.pdf$",
    "Disallow: /search?q=*&page=",
    "Allow: /tie",
    "Disallow: /tie",
    "Disallow: /caf%c3%a9",
  ].join("\r\n"));
  const reader = new HttpReader(local);
  const allowed = ["/", "/docs", "/docs/public/a", "/a.pdf?x=1", "/search?q=a", "/tie"];
  const refused = ["/docs/secret", "/a/b.pdf", "/search?q=x&page=2", "/café"];
  for (const path of allowed) {
    assert.equal((await reader.read(`${server.origin}${path}`)).status, 200, path);
  }
  for (const path of refused) {
    const error = await refusal(reader.read(`${server.origin}${path}`));
    assert.match(error.message, /in the group for "outpost-agent-tools"/, path);
  }
});

Deno.test("no robots.txt allows everything; an unreadable one disallows the site", {
  timeout: 60_000,
}, async () => {
  await using missing = site("gone", 404);
  assert.equal((await new HttpReader(local).read(`${missing.origin}/a`)).text, "page /a");
  await using broken = site("down", 500);
  const error = await refusal(new HttpReader(local).read(`${broken.origin}/a`));
  assert.match(
    error.message,
    /robots\.txt could not be read \(HTTP 500\); until it can, the site counts as disallowing every page/,
  );
  assert.ok(!broken.received.some((r) => r.path === "/a"));
});

Deno.test("robots.txt is bounded in time and read through the same address guard", {
  timeout: 10_000,
}, async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using stalled = localServer(async (request) => {
    if (new URL(request.url).pathname === "/robots.txt") await release;
    return new Response("page");
  });
  using _release = { [Symbol.dispose]: resolve };
  // robots.txt gets at most 5 s of the reader's 30 s, on the clock the test moves.
  const clock = new FakeClock();
  const slow = new HttpReader({ ...local, clock });
  const reading = refusal(slow.read(`${stalled.origin}/a`));
  await stalled.arrived(1);
  assert.deepEqual(clock.pending, [5_000]);
  await clock.advance(5_000);
  assert.match(
    (await reading).message,
    /robots\.txt could not be read \(Timed out after 5 s/,
  );
  // An unreadable robots.txt refuses the site for a minute, then is read again.
  await assert.rejects(slow.read(`${stalled.origin}/b`), ToolError);
  assert.equal(stalled.received.length, 1);
  resolve();
  await clock.advance(60_000);
  assert.equal((await slow.read(`${stalled.origin}/b`)).text, "page");
  assert.equal(stalled.received.length, 3);

  // A public site whose robots.txt redirects to the metadata address: the guard refuses the hop.
  const requested: string[] = [];
  const fetch = (input: string | URL | Request) => {
    const url = String(input instanceof Request ? input.url : input);
    requested.push(url);
    return Promise.resolve(
      url.endsWith("/robots.txt")
        ? new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } })
        : new Response("page"),
    );
  };
  const guarded = new HttpReader({ fetch, respectRobots: true });
  const error = await refusal(guarded.read("https://pub.example/a"));
  assert.match(error.message, /robots\.txt could not be read/);
  assert.deepEqual(requested, ["https://pub.example/robots.txt"]);
});

Deno.test(
  "off by default; a hostile robots.txt is parsed in bounded time",
  { timeout: 20_000 },
  async () => {
    await using plain = site("User-agent: *\nDisallow: /");
    assert.equal(
      (await new HttpReader({ allowPrivateNetwork: true }).read(plain.origin)).status,
      200,
    );
    assert.ok(!plain.received.some((r) => r.path === "/robots.txt"));
    assert.throws(() => new HttpReader({ respectRobots: "yes" as unknown as boolean }), SetupError);

    // 800 KB of rules, cut at the 512 KB cap: the cut last rule is dropped, not read shortened.
    const stars = "User-agent: *\n" + `Disallow: /${"*a".repeat(2_000)}b\n`.repeat(200);
    await using hostile = site(stars);
    const reader = new HttpReader(local);
    assert.equal((await reader.read(`${hostile.origin}/${"a".repeat(4_000)}`)).status, 200);
    // The worst case for a backtracking matcher: a long literal after a star, nearly matching.
    const near = "User-agent: *\n" + `Disallow: /*${"a".repeat(4_000)}b\n`.repeat(120);
    await using nearly = site(near);
    assert.equal((await reader.read(`${nearly.origin}/${"a".repeat(8_000)}`)).status, 200);
  },
);

Deno.test("robots.txt parsing stays linear on hostile shapes", { timeout: 120_000 }, async () => {
  // A quadratic parser takes minutes at 4n here (100,000 newlines took 11 s). The file comes
  // from an injected fetch rather than a socket, whose buffering would blur the timing.
  let robots = "";
  const fetch = (input: string | URL | Request) =>
    Promise.resolve(new Response(String(input).endsWith("/robots.txt") ? robots : "page"));
  // Each run is a fresh reader, so that robots.txt is read and parsed again.
  const read = async (text: string) => {
    robots = text;
    return (await new HttpReader({ ...local, fetch }).read("http://127.0.0.1:9/a")).status;
  };
  const shapes: [string, (n: number) => string, number][] = [
    ["newlines", (n) => "\n".repeat(n), 100_000],
    ["blank lines of spaces", (n) => " \r\n".repeat(n), 40_000],
    [
      "many agents, then many rules",
      (n) => "User-agent: x\n".repeat(n) + "Allow: /\n".repeat(n),
      5_000,
    ],
    ["one long agent", (n) => "User-agent: " + "a-".repeat(n), 60_000],
  ];
  for (const [what, build, n] of shapes) {
    await assertLinear(`robots.txt: ${what}`, build, read, { n });
  }
});
