// Preloaded (`deno run --preload`) into a real entry point by tests/no_proxy_test.ts. It answers
// every DNS lookup itself, as a rebinding name does: a name's first A lookup gets a public address
// (the guard's), every later one 127.0.0.1 (the connection's); no lookup reaches the network.
//
// A client that goes around its proxy would resolve names with the system's resolver, which asks
// DNS. So before answering, it checks that every HTTP client made with a proxy goes through it:
// none may be created while NO_PROXY or no_proxy is set (Deno would honour them), and a probe
// sent through each to `http://localhost:<REBINDING_PROBE_PORT>/probe` (a test server that
// records it) must not arrive. When either fails, lookups fail instead of answering.

const probePort = Deno.env.get("REBINDING_PROBE_PORT");
const problems: string[] = [];
const probes: Promise<void>[] = [];

const createHttpClient = Deno.createHttpClient;
Deno.createHttpClient = (options: Deno.CreateHttpClientOptions) => {
  const exempt = ["NO_PROXY", "no_proxy"].filter((name) => Deno.env.get(name) !== undefined);
  if (options.proxy && exempt.length > 0) {
    problems.push(`a proxied client was created with ${exempt.join(" and ")} set`);
  }
  const client = createHttpClient(options);
  if (options.proxy) {
    probes.push(
      fetch(`http://localhost:${probePort}/probe`, { client }).then(
        async (response) => {
          await response.body?.cancel();
          problems.push("the probe went around the proxy");
        },
        () => {}, // refused by the proxy, as it should be
      ),
    );
  }
  return client;
};

const lookups = new Map<string, number>();
Deno.resolveDns = (async (name: string, type: Deno.RecordType) => {
  await Promise.all(probes);
  if (problems.length > 0) throw new Error(`rebinding_dns: ${problems.join("; ")}`);
  if (type !== "A") return [];
  const count = (lookups.get(name) ?? 0) + 1;
  lookups.set(name, count);
  return [count === 1 ? "93.184.215.14" : "127.0.0.1"];
}) as typeof Deno.resolveDns;
