import assert from "node:assert/strict";
import { HttpReader, isPrivateHost, type ResolveHost, ToolError, webFetch } from "../mod.ts";

/** A fetch that records what it was asked for and answers itself: it never connects. */
function recordingFetch(answer: (url: string) => Response = () => new Response("public")) {
  const urls: string[] = [];
  const fetch = (input: string | URL | Request): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    urls.push(url);
    return Promise.resolve(answer(url));
  };
  return { urls, fetch: fetch as typeof globalThis.fetch };
}

const PRIVATE_URLS = [
  "http://127.0.0.1/",
  "http://127.1/",
  "http://2130706433/",
  "http://0x7f000001/",
  "http://0177.0.0.1/",
  "http://0x7f.0.0.1/",
  "http://017700000001/",
  "http://0/",
  "http://0.0.0.0:8080/",
  "http://10.0.0.1/",
  "http://172.16.5.4/",
  "http://172.31.255.255/",
  "http://192.168.1.1/",
  "http://100.64.0.1/",
  "http://100.127.255.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://0xa9fea9fe/",
  "http://224.0.0.1/",
  "http://255.255.255.255/",
  "http://[::1]/",
  "http://[::]/",
  "http://[0:0:0:0:0:0:0:1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:a9fe:a9fe]/",
  "http://[::127.0.0.1]/",
  "http://[64:ff9b::10.0.0.1]/",
  "http://[64:ff9b:1::a00:1]/",
  "http://[64:ff9b:1::808:808]/",
  "http://[2002:c0a8:0101::]/",
  "http://[::ffff:0:127.0.0.1]/",
  "http://[::ffff:0:a00:1]/",
  "http://[::ffff:0:a9fe:a9fe]/",
  "http://[2001:0:a00:1::1]/",
  "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
  "http://[2001:0:4136:e378::f5ff:fffe]/",
  "http://[2002:7f00:1::]/",
  "http://[2002:a9fe:a9fe:1:2:3:4:5]/",
  "http://[64:ff9b::7f00:1]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://[3fff::1]/",
  "http://[2001:2::1]/",
  "http://[2001:10::1]/",
  "http://[fc00::1]/",
  "http://[fd12:3456:789a::1]/",
  "http://[fe80::1]/",
  "http://[fec0::1]/",
  "http://[ff02::1]/",
  "http://localhost/",
  "http://LOCALHOST./",
  "http://api.localhost/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://metadata/",
  "http://printer.local/",
  "http://router.home.arpa/",
];

Deno.test("private and local addresses in every notation are refused before any request", {
  timeout: 60_000,
}, async () => {
  const { urls, fetch } = recordingFetch();
  const reader = new HttpReader({ fetch });
  for (const url of PRIVATE_URLS) {
    await assert.rejects(
      reader.read(url),
      (error: Error) => error instanceof ToolError && /private or local/.test(error.message),
      url,
    );
  }
  assert.deepEqual(urls, []);
});

Deno.test("public addresses and names pass the guard", { timeout: 60_000 }, async () => {
  const { urls, fetch } = recordingFetch();
  const reader = new HttpReader({ fetch });
  for (
    const url of ["http://93.184.215.14/", "https://example.com/a", "http://[2606:4700::1111]/"]
  ) {
    assert.equal((await reader.read(url)).text, "public");
  }
  assert.deepEqual(urls, [
    "http://93.184.215.14/",
    "https://example.com/a",
    "http://[2606:4700::1111]/",
  ]);
});

Deno.test("a redirect into a private network is refused at that hop", {
  timeout: 60_000,
}, async () => {
  for (
    const location of [
      "http://127.0.0.1:8080/admin",
      "http://[::ffff:10.0.0.1]/",
      "http://localhost/",
    ]
  ) {
    const { urls, fetch } = recordingFetch(() =>
      new Response(null, { status: 302, headers: { location } })
    );
    await assert.rejects(
      new HttpReader({ fetch }).read("https://public.example/"),
      (error: Error) => error instanceof ToolError && /private or local/.test(error.message),
    );
    assert.deepEqual(urls, ["https://public.example/"]);
  }
});

Deno.test("with a resolver, names that resolve into private ranges are refused", {
  timeout: 60_000,
}, async () => {
  const { urls, fetch } = recordingFetch();
  const resolveHost: ResolveHost = (host) =>
    Promise.resolve(host === "rebind.example" ? ["93.184.215.14", "10.1.2.3"] : ["93.184.215.14"]);
  const reader = new HttpReader({ fetch, resolveHost });
  await assert.rejects(
    reader.read("https://rebind.example/"),
    (error: Error) => error instanceof ToolError && /resolves to 10\.1\.2\.3/.test(error.message),
  );
  assert.equal((await reader.read("https://fine.example/")).text, "public");
  assert.deepEqual(urls, ["https://fine.example/"]);
});

Deno.test("a resolver failure is an unreachable host, not a crash", {
  timeout: 60_000,
}, async () => {
  const { urls, fetch } = recordingFetch();
  const reader = new HttpReader({
    fetch,
    resolveHost: () => Promise.reject(new Error("NXDOMAIN")),
  });
  await assert.rejects(
    reader.read("https://nowhere.example/"),
    (error: Error) => error instanceof ToolError && /Could not resolve/.test(error.message),
  );
  assert.deepEqual(urls, []);
});

Deno.test("allowPrivateNetwork turns the guard off", { timeout: 60_000 }, async () => {
  const { urls, fetch } = recordingFetch();
  const page = await new HttpReader({ fetch, allowPrivateNetwork: true }).read("http://10.0.0.7/");
  assert.equal(page.text, "public");
  assert.deepEqual(urls, ["http://10.0.0.7/"]);
});

Deno.test("the web_fetch tool reports a refused address to the model", {
  timeout: 60_000,
}, async () => {
  const { fetch } = recordingFetch();
  const tool = webFetch(new HttpReader({ fetch }));
  await assert.rejects(
    tool.execute({ url: "http://169.254.169.254/latest/meta-data/" }),
    (error: ToolError) => /private or local/.test(error.message) && /public/.test(error.hint ?? ""),
  );
});

Deno.test("isPrivateHost classifies hosts", () => {
  for (
    const host of [
      "127.0.0.1",
      "0x7f.1",
      "[::1]",
      "::ffff:192.168.0.1",
      "localhost",
      "10.0.0.1.",
      "1.2.3.999",
      "intranet",
    ]
  ) {
    assert.equal(isPrivateHost(host), true, host);
  }
  for (
    const host of [
      "8.8.8.8",
      "example.com",
      "2001:4860:4860::8888",
      "[2606:4700::1111]",
      "172.32.0.1",
      "100.128.0.1",
      "[64:ff9b::808:808]",
      "11.0.0.1",
      "::ffff:0:808:808",
      "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
      "2002:808:808::1",
    ]
  ) {
    assert.equal(isPrivateHost(host), false, host);
  }
});

Deno.test("a name that resolves to no address is refused before any request", {
  timeout: 60_000,
}, async () => {
  const { urls, fetch } = recordingFetch();
  const reader = new HttpReader({ fetch, resolveHost: () => Promise.resolve([]) });
  await assert.rejects(
    reader.read("https://empty.example/"),
    (error: Error) =>
      error instanceof ToolError && /does not resolve to any address/.test(error.message),
  );
  assert.deepEqual(urls, []);
});

Deno.test("a resolver that fails after the caller aborted rejects with the caller's reason", {
  timeout: 60_000,
}, async () => {
  const { urls, fetch } = recordingFetch();
  let asked!: () => void;
  const resolving = new Promise<void>((resolve) => (asked = resolve));
  const reader = new HttpReader({
    fetch,
    resolveHost: (_host, signal) =>
      new Promise((_resolve, reject) => {
        asked();
        signal?.addEventListener("abort", () => reject(new Error("lookup cancelled")));
      }),
  });
  const controller = new AbortController();
  const reading = reader.read("https://slow-dns.example/", { signal: controller.signal });
  await resolving;
  controller.abort(new Error("caller gave up"));
  await assert.rejects(reading, (error) => error === controller.signal.reason);
  assert.deepEqual(urls, []);
});
