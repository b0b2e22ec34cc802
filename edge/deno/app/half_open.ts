// The accounting of connections that have not delivered a whole request yet: who they count
// for (their peer) and the table that finds the oldest of them to make room.

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

/** Half-open connections, oldest first, those that have sent nothing kept apart. */
export class HalfOpen<T> {
  readonly #silent = new Set<T>();
  readonly #started = new Set<T>();

  get size(): number {
    return this.#silent.size + this.#started.size;
  }

  add(item: T, started: boolean): void {
    (started ? this.#started : this.#silent).add(item);
  }

  /** `item` has sent its first byte. */
  started(item: T): void {
    if (this.#silent.delete(item)) this.#started.add(item);
  }

  delete(item: T): void {
    if (!this.#silent.delete(item)) this.#started.delete(item);
  }

  oldestSilent(): T | undefined {
    return this.#silent.values().next().value;
  }

  /** Those that have sent nothing, oldest first. */
  silent(): IterableIterator<T> {
    return this.#silent.values();
  }

  oldestStarted(): T | undefined {
    return this.#started.values().next().value;
  }
}
