import type { ResolveHost } from "../../src/fetch/mod.ts";

/**
 * A {@linkcode ResolveHost} on `Deno.resolveDns`: the host's A and AAAA records, so that
 * `HttpReader` also refuses names that point into private networks. Needs `--allow-net`.
 * Rejects when the name has neither kind of record.
 *
 * @example
 * ```ts
 * // Not asserted: it asks the system's DNS servers, which a test may not reach.
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { resolveHost } from "@outpost/agent-tools/deno";
 * const tool = webFetch(new HttpReader({ resolveHost }));
 * ```
 */
export const resolveHost: ResolveHost = async (
  hostname: string,
  signal?: AbortSignal,
): Promise<string[]> => {
  const [v4, v6] = await Promise.allSettled([
    Deno.resolveDns(hostname, "A", { signal }),
    Deno.resolveDns(hostname, "AAAA", { signal }),
  ]);
  signal?.throwIfAborted();
  const addresses = [
    ...(v4.status === "fulfilled" ? v4.value : []),
    ...(v6.status === "fulfilled" ? v6.value : []),
  ];
  if (addresses.length === 0 && v4.status === "rejected") throw v4.reason;
  return addresses;
};
