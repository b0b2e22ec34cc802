import { clipLine, quoteText, showUrl } from "../fence.ts";
import { ToolError } from "../errors.ts";
import { isDelegatedTopLevelDomain } from "./top_level_domains.ts";

/**
 * Looks up the addresses a host name resolves to (IPv4 and IPv6, as text). `HttpReader` calls
 * it on every hop to refuse names that point into private networks. The Deno subpath
 * `@outpost/agent-tools/deno` provides one built on Deno's DNS resolver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, type ResolveHost } from "@outpost/agent-tools/fetch";
 * const fixed: ResolveHost = (hostname) =>
 *   Promise.resolve(hostname === "intranet.test" ? ["10.0.0.9"] : ["93.184.215.14"]);
 * const reader = new HttpReader({ resolveHost: fixed });
 * // Refused before any connection: the name points into a private network.
 * await assert.rejects(reader.read("http://intranet.test/"), /private or local/);
 * ```
 */
export type ResolveHost = (hostname: string, signal?: AbortSignal) => Promise<string[]>;

/**
 * Whether `host` is a private or local destination that `HttpReader` refuses by default: an IP
 * literal in any notation (dotted, decimal, octal, hex, short forms, bracketed or not; IPv6
 * that embeds an IPv4 address — mapped, compatible, SIIT-translated, NAT64, 6to4, Teredo — is
 * judged by that address) in a range that is not globally reachable: loopback, private
 * (RFC 1918, RFC 4193), CGNAT, link-local, unspecified, documentation, benchmarking, multicast,
 * broadcast, every other such range of IANA's IPv4 and IPv6 special-purpose registries, and all
 * IPv6 outside global unicast (`2000::/3`); `localhost` and `*.localhost`; names under
 * `.internal`, `.local`, `.localdomain` and `.home.arpa`; names under a top-level domain that
 * is not delegated (`kubernetes.default`, `*.svc`, `*.lan`; `.test` and `.example` count as
 * ordinary names, as RFC 6761 asks); and single-label names such as `metadata`. Those resolve
 * only through local resolvers and search domains, which can also complete other multi-label
 * names: give `HttpReader` a `resolveHost` to check where a name really points.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPrivateHost } from "@outpost/agent-tools/fetch";
 * assert.equal(isPrivateHost("0x7f.1"), true); // 127.0.0.1
 * assert.equal(isPrivateHost("[::ffff:169.254.169.254]"), true);
 * assert.equal(isPrivateHost("203.0.113.7"), true); // documentation
 * assert.equal(isPrivateHost("kubernetes.default.svc"), true);
 * assert.equal(isPrivateHost("example.com"), false);
 * ```
 */
export function isPrivateHost(host: string): boolean {
  // Trailing dots go; the look-behind starts a match only at a run's first dot, since `\.+$`
  // alone rescans a long run of inner dots from each of them (quadratic).
  const name = host.trim().toLowerCase().replace(/(?<!\.)\.+$/, "");
  if (name.startsWith("[") || name.includes(":")) {
    const groups = parseIPv6(name.replace(/^\[|\]$/g, ""));
    return groups === undefined || isPrivateIPv6(groups);
  }
  const v4 = parseIPv4(name);
  if (v4 === null) return true; // numeric like an address, yet not one: refuse rather than guess
  if (v4 !== undefined) return isPrivateIPv4(v4);
  return isLocalName(name);
}

/** The guard's hint; it names no tool, since the tool's name is the operator's to choose. */
const PUBLIC_ONLY = "Only public internet pages can be read; pick a public URL.";

/**
 * Refuses `url` when its host is private or local, or when `resolveHost` says the name points
 * at such an address. Throws a {@linkcode ToolError} the model can read.
 */
export async function guardUrl(
  url: URL,
  resolveHost: ResolveHost | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  await checkedAddresses(url, resolveHost, signal);
}

/**
 * The addresses `url`'s host may be reached at, every one of them checked: the host itself when
 * it is an IP literal, else what `resolveHost` answers (nothing without a resolver). Throws a
 * {@linkcode ToolError} when the host, or any address it resolves to, is one that `refuses`
 * (default: private and local ones).
 */
export async function checkedAddresses(
  url: URL,
  resolveHost: ResolveHost | undefined,
  signal: AbortSignal | undefined,
  refuses: (host: string) => boolean = isPrivateHost,
): Promise<string[]> {
  const host = url.hostname;
  const shown = clipLine(host, 260);
  // The origin, not the whole URL: after a redirect, the path and query are the site's words,
  // and this is printed outside the fence.
  if (refuses(host)) {
    throw new ToolError(
      `Refused to fetch ${
        showUrl(url.origin, 300)
      }: ${shown} is a private or local network address.`,
      { hint: PUBLIC_ONLY, code: "private_address" },
    );
  }
  if (isIpLiteral(host)) return [host.replace(/^\[|\]$/g, "")];
  if (!resolveHost) return [];
  let addresses: string[];
  try {
    addresses = await resolveHost(host, signal);
  } catch (cause) {
    signal?.throwIfAborted();
    throw new ToolError(`Could not resolve the host ${shown}.`, {
      hint: "Check the URL for typos; the site may not exist.",
      code: "unreachable",
      cause,
    });
  }
  if (addresses.length === 0) {
    throw new ToolError(`The host ${shown} does not resolve to any address.`, {
      hint: "Check the URL for typos; the site may not exist.",
      code: "unreachable",
    });
  }
  const inside = addresses.find((address) => refuses(address));
  if (inside !== undefined) {
    throw new ToolError(
      `Refused to fetch ${showUrl(url.origin, 300)}: ${shown} resolves to ${
        quoteText(inside, 64)
      }, a private or local network address.`,
      { hint: PUBLIC_ONLY, code: "private_address" },
    );
  }
  return addresses;
}

function isIpLiteral(host: string): boolean {
  return host.startsWith("[") || parseIPv4(host) !== undefined;
}

const LOCAL_SUFFIXES = [".localhost", ".internal", ".local", ".localdomain", ".home.arpa"];
const LOCAL_NAMES = new Set(["localhost", "internal", "local", "localdomain", "home.arpa"]);

/** Reserved top-level names that applications must treat as any other (RFC 6761). */
const ORDINARY_RESERVED_TLDS = new Set(["test", "example"]);

function isLocalName(name: string): boolean {
  if (name === "" || !name.includes(".") || LOCAL_NAMES.has(name)) return true;
  if (LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return true;
  // Under a top-level domain the root zone does not delegate (`kubernetes.default`, `*.svc`,
  // `*.lan`, `*.corp`), a name resolves only through local resolvers and search domains.
  const tld = name.slice(name.lastIndexOf(".") + 1);
  return !ORDINARY_RESERVED_TLDS.has(tld) && !isDelegatedTopLevelDomain(tld);
}

/**
 * Parses an IPv4 address the way the URL standard does: one to four parts, each decimal, octal
 * (leading 0) or hex (0x). Returns the address as an unsigned 32-bit number, `undefined` when
 * the last part is not numeric (a host name), or `null` when it looks numeric but is invalid.
 */
function parseIPv4(host: string): number | undefined | null {
  if (!/^(?:0x[\da-f]*|\d+)$/i.test(host.slice(host.lastIndexOf(".") + 1))) return undefined;
  // At most five parts are cut: a host of many thousand labels costs no array of them.
  const parts = host.split(".", 5);
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === undefined) return null;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  let address = last;
  numbers.forEach((n, i) => (address += n * 256 ** (3 - i)));
  return address;
}

function parseIPv4Part(part: string): number | undefined {
  if (part === "") return undefined;
  if (/^0x[\da-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(?:0|[1-9]\d*)$/.test(part)) return Number(part);
  return undefined;
}

/** Parses an IPv6 address (with `::` and an optional dotted IPv4 tail) into eight groups. */
function parseIPv6(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, ""); // a zone id names an interface, not an address
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]);
  const tail = halves.length === 2 ? parseGroups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseGroups(text: string): number[] | undefined {
  if (text === "") return [];
  const groups: number[] = [];
  const parts = text.split(":");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (i === parts.length - 1 && part.includes(".")) {
      if (!/^\d{1,3}(?:\.\d{1,3}){3}$/.test(part)) return undefined;
      const bytes = part.split(".").map(Number);
      if (bytes.some((b) => b > 255)) return undefined;
      groups.push(bytes[0] * 256 + bytes[1], bytes[2] * 256 + bytes[3]);
    } else {
      if (!/^[\da-f]{1,4}$/i.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

// [network, prefix length] of every IPv4 range we refuse: every range of IANA's special-purpose
// registry that is not globally reachable (RFC 6890 and its updates), multicast and broadcast.
const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // "this network", including 0.0.0.0
  [0x0a000000, 8], // RFC 1918
  [0x64400000, 10], // CGNAT (RFC 6598)
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, including 169.254.169.254 (cloud metadata)
  [0xac100000, 12], // RFC 1918
  [0xc0000000, 24], // IETF protocol assignments, its two anycast addresses (.9, .10) included
  [0xc0000200, 24], // documentation (TEST-NET-1)
  [0xc0586300, 24], // 6to4 relay anycast (deprecated): relays that would tunnel elsewhere
  [0xc0a80000, 16], // RFC 1918
  [0xc6120000, 15], // benchmarking, used inside data centres
  [0xc6336400, 24], // documentation (TEST-NET-2)
  [0xcb007100, 24], // documentation (TEST-NET-3)
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, including 255.255.255.255 (broadcast)
];

function isPrivateIPv4(address: number): boolean {
  return PRIVATE_V4.some(([network, bits]) =>
    Math.floor(address / 2 ** (32 - bits)) === Math.floor(network / 2 ** (32 - bits))
  );
}

function isPrivateIPv6(g: number[]): boolean {
  const embedded = (high: number, low: number) => isPrivateIPv4(high * 65536 + low);
  const zeroTo = (end: number) => g.slice(0, end).every((x) => x === 0);
  if (zeroTo(6)) return (g[6] === 0 && g[7] <= 1) || embedded(g[6], g[7]); // ::, ::1, ::a.b.c.d
  if (zeroTo(5) && g[5] === 0xffff) return embedded(g[6], g[7]); // ::ffff:a.b.c.d
  if (zeroTo(4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6], g[7]); // SIIT (RFC 6145)
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    // NAT64: the well-known prefix (/96) carries an IPv4 address; the rest, the local-use
    // prefix (64:ff9b:1::/48) included, is not global.
    return g[2] !== 0 || g[3] !== 0 || g[4] !== 0 || g[5] !== 0 || embedded(g[6], g[7]);
  }
  if (g[0] === 0x2002) return embedded(g[1], g[2]); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo: the server's address in the clear, the client's with every bit inverted.
    return embedded(g[2], g[3]) || embedded(g[6] ^ 0xffff, g[7] ^ 0xffff);
  }
  // IETF protocol assignments (2001::/23, Teredo aside): benchmarking, ORCHID, anycast services.
  if (g[0] === 0x2001 && g[1] < 0x0200) return true;
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x3fff && g[1] < 0x1000) return true; // documentation (RFC 9637)
  // Only 2000::/3 is global unicast. Outside it: unique local (fc00::/7), link-local, site-local,
  // multicast, SRv6 SIDs (5f00::/16), discard and dummy prefixes (100::/64, 100:0:0:1::/64), and
  // space reserved by the IETF.
  return (g[0] & 0xe000) !== 0x2000;
}
