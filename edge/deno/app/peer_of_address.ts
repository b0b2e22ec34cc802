// Who a connection counts for in the front's caps on half-open connections.

/**
 * The peer a connection from `addr` counts for: an IPv4 address (also IPv4-mapped IPv6) as it is,
 * an IPv6 address by its /64, which one subscriber usually holds whole.
 */
export function peerOfAddress(addr: Deno.NetAddr): string {
  const host = addr.hostname.replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
  if (!host.includes(":")) return host;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (mapped) return mapped[1];
  const [head, tail] = host.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`;
}
