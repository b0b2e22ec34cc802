import assert from "node:assert/strict";
import { ToolError, webFetch } from "../mod.ts";
import { HttpReader, isPrivateHost, type ResolveHost } from "../src/fetch/mod.ts";
import { icannTopLevelDomains } from "./support/root_zone.ts";

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

// IANA's special-purpose address registries (IPv4 and IPv6, as of 2025), every range that is
// not globally reachable, written out here rather than taken from the guard. Ranges whose
// addresses carry another (mapped, NAT64, 6to4, Teredo) are judged by that address instead.
const NOT_GLOBAL_V4 = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8", // private use
  "100.64.0.0/10", // shared address space (CGNAT)
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local
  "172.16.0.0/12", // private use
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.88.99.0/24", // 6to4 relay anycast (deprecated)
  "192.168.0.0/16", // private use
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, and the limited broadcast address
];
const NOT_GLOBAL_V6 = [
  "::/128", // unspecified
  "::1/128", // loopback
  "64:ff9b:1::/48", // IPv4/IPv6 translation, local use
  "100::/64", // discard-only
  "100:0:0:1::/64", // dummy prefix
  "2001:1::/32", // IETF protocol assignments (2001::/23), after Teredo's 2001::/32
  "2001:2::/31",
  "2001:4::/30",
  "2001:8::/29",
  "2001:10::/28", // ORCHID
  "2001:20::/27", // ORCHIDv2, drone remote ID
  "2001:40::/26",
  "2001:80::/25",
  "2001:100::/24",
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation
  "5f00::/16", // segment routing (SRv6) SIDs
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10", // site-local (deprecated)
  "ff00::/8", // multicast
  // Outside 2000::/3, the only global unicast space, all is reserved by the IETF.
  "1::/16",
  "200::/7",
  "400::/6",
  "800::/5",
  "1000::/4",
  "4000::/3",
  "6000::/3",
  "8000::/3",
  "a000::/3",
  "c000::/3",
  "e000::/4",
  "f000::/5",
  "f800::/6",
  "fe00::/9",
];

/** Deterministic "random" numbers (mulberry32), so a failure names the same addresses again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A range as [first, last] on `bits`-bit numbers. */
function span(cidr: string, bits: number, parse: (text: string) => bigint): [bigint, bigint] {
  const [network, length] = cidr.split("/");
  const size = 1n << BigInt(bits - Number(length));
  const first = parse(network);
  return [first, first + size - 1n];
}

const v4Number = (text: string) =>
  text.split(".").reduce((value, part) => value * 256n + BigInt(part), 0n);
const v4Text = (value: bigint) =>
  [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join(".");
function v6Number(text: string): bigint {
  const [head, tail = ""] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const all = text.includes("::")
    ? [
      ...groups(head),
      ...Array(8 - groups(head).length - groups(tail).length).fill("0"),
      ...groups(tail),
    ]
    : groups(head);
  return all.reduce((value, group) => value * 65536n + BigInt(parseInt(group, 16)), 0n);
}
const v6Text = (value: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16))
    .join(":");

/**
 * First, last and five random addresses of every range, and the neighbours just outside each
 * that fall in none of the ranges.
 */
function samples(ranges: string[], bits: number, parse: (text: string) => bigint) {
  const spans = ranges.map((cidr) => span(cidr, bits, parse));
  const next = random(18);
  const inside: [string, bigint][] = [];
  const outside: bigint[] = [];
  spans.forEach(([first, last], i) => {
    inside.push([ranges[i], first], [ranges[i], last]);
    const size = Number(last - first + 1n);
    for (let n = 0; n < 5; n++) {
      const offset = BigInt(Math.floor(next() * 2 ** 52)) * (last - first + 1n) / 2n ** 52n;
      if (size > 2) inside.push([ranges[i], first + offset]);
    }
    for (const neighbour of [first - 1n, last + 1n]) {
      if (neighbour < 0n || neighbour >= 1n << BigInt(bits)) continue;
      if (spans.some(([a, b]) => neighbour >= a && neighbour <= b)) continue;
      outside.push(neighbour);
    }
  });
  return { inside, outside };
}

/** An IPv4 address in every IPv6 form that carries it, each judged by that address. */
function carriers(v4: bigint): string[] {
  const hex = (value: bigint) => v6Text(value).split(":").slice(6).join(":");
  const high = hex(v4);
  const inverted = hex(v4 ^ 0xffffffffn);
  return [
    `::ffff:${v4Text(v4)}`, // mapped
    `::ffff:0:${v4Text(v4)}`, // SIIT
    `64:ff9b::${v4Text(v4)}`, // NAT64, well-known prefix
    `2002:${high}::1`, // 6to4
    `2001:0:${high}::f7f7:f7f7`, // Teredo server, with a public client (8.8.8.8)
    `2001:0:4136:e378:8000:63bf:${inverted}`, // Teredo client, with a public server
  ];
}

/** Which of `hosts` the guard lets through, by literal URL and by a resolver's answer. */
async function passing(hosts: string[]): Promise<string[]> {
  const passed: string[] = [];
  for (const host of hosts) {
    const literal = host.includes(":") ? `[${host}]` : host;
    for (const url of [`http://${literal}/`, "http://name.example/"]) {
      const { urls, fetch } = recordingFetch();
      const reader = new HttpReader({ fetch, resolveHost: () => Promise.resolve([host]) });
      const before = urls.length;
      try {
        await reader.read(url);
      } catch (error) {
        assert.ok(error instanceof ToolError && /private or local/.test(error.message), url);
      }
      if (urls.length > before) passed.push(`${url === "http://name.example/" ? "→ " : ""}${host}`);
    }
  }
  return passed;
}

Deno.test({
  name: "every IPv4 range that is not globally reachable is refused whole, in every IPv6 form",
  timeout: 60_000,
  async fn() {
    const { inside, outside } = samples(NOT_GLOBAL_V4, 32, v4Number);
    const refused = inside.flatMap(([, v4]) => [v4Text(v4), ...carriers(v4)]);
    assert.deepEqual(await passing(refused), []);
    // Just outside each range, in every form, the guard lets the request through.
    const allowed = outside.flatMap((v4) => [v4Text(v4), ...carriers(v4)]);
    assert.ok(outside.length >= 20);
    assert.deepEqual(await passing(allowed), allowed.flatMap((host) => [host, `→ ${host}`]));
  },
});

Deno.test({
  name: "every IPv6 range that is not globally reachable is refused whole",
  timeout: 60_000,
  async fn() {
    const { inside, outside } = samples(NOT_GLOBAL_V6, 128, v6Number);
    assert.deepEqual(await passing(inside.map(([, v6]) => v6Text(v6))), []);
    // Neighbours in global unicast (2000::/3) pass, but for Teredo's, whose address decides.
    const allowed = outside.map(v6Text).filter((host) =>
      /^[23][\da-f]{3}:/.test(host) && !host.startsWith("2001:0:")
    );
    assert.deepEqual(allowed.toSorted(), [
      "2000:0:0:0:0:0:0:0",
      "2001:200:0:0:0:0:0:0",
      "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
      "2001:db9:0:0:0:0:0:0",
      "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
      "3fff:1000:0:0:0:0:0:0",
      "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    ]);
    assert.deepEqual(await passing(allowed), allowed.flatMap((host) => [host, `→ ${host}`]));
  },
});

Deno.test("names that only a local resolver or search domain can answer are refused", async () => {
  const local = [
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "redis.prod.svc.cluster.local",
    "db.staging.svc",
    "node-1.cluster.local",
    "metadata.google.internal",
    "db.internal",
    "printer.local",
    "app.localhost",
    "router.home.arpa",
    "host.localdomain",
    "nas.lan",
    "wiki.corp",
    "nas.home",
    "files.intranet",
    "vault.service.consul",
    "box.private",
    "a.b.c.zz",
    "KUBERNETES.DEFAULT.SVC.",
  ];
  const { urls, fetch } = recordingFetch();
  const reader = new HttpReader({ fetch });
  const passed: string[] = [];
  for (const name of local) {
    await reader.read(`http://${name}/`).then(() => passed.push(name), (error) => {
      assert.ok(error instanceof ToolError && /private or local/.test(error.message), name);
    });
  }
  assert.deepEqual(passed, []);
  // Names under delegated top-level domains pass (`.test` and `.example` too, per RFC 6761).
  for (
    const name of [
      "example.com",
      "www.example.co.uk",
      "пример.рф",
      "shop.prod",
      "a.test",
      "b.example",
    ]
  ) {
    assert.equal((await reader.read(`http://${name}/`)).text, "public", name);
  }
  assert.equal(urls.length, 6);
});

Deno.test("the guard's top-level domains are the Public Suffix List's, each one passing", () => {
  const listed = icannTopLevelDomains();
  assert.ok(listed.length > 1400, `${listed.length} top-level domains`);
  const refused = listed.filter((tld) => isPrivateHost(`www.shop.${tld}`));
  assert.deepEqual(refused, []);
  // And nothing else: a label one letter off each of a sample is refused.
  const sample = listed.filter((_, i) => i % 50 === 0);
  const known = new Set(listed);
  const near = sample.map((tld) => `${tld}q`).filter((tld) => !known.has(tld));
  assert.deepEqual(near.filter((tld) => !isPrivateHost(`www.shop.${tld}`)), []);
});

Deno.test("an internationalized top-level domain counts in the form a request reaches, and only through a host name", () => {
  // Unicode, the ASCII form, and a decomposed spelling (the URL parser composes it).
  for (
    const host of [
      "www.пример.рф",
      "www.xn--p1ai",
      "shop.vermögensberater",
      "a.vermo\u0308gensberater",
    ]
  ) {
    assert.equal(isPrivateHost(host), false, host);
  }
  assert.equal(isPrivateHost("shop.ko\u0308ln"), true); // `.köln` is not a top-level domain
  // A label the URL parser would read as something else is no top-level domain, even when that
  // something is one: user info, a path, a percent escape, a dot of another script.
  for (
    const host of ["shop.a@рф", "shop.рф/x", "shop.%D1%80%D1%84", "shop.a\u3002рф", "shop.ｃｏｍ"]
  ) {
    assert.equal(isPrivateHost(host), true, host);
  }
});
