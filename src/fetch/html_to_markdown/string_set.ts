/**
 * A set of strings that seldom hashes a whole string. V8 hashes each new string used as a `Set`
 * or `Map` key in full, which for the link targets of a page cost more than the rest of the
 * link's handling; here a string is filed under a number made of its length and a few of its
 * characters, and only the strings filed under a number taken already go to a `Set`.
 *
 * @module
 */

/** Strings, looked up by value. */
export class StringSet {
  /** The first string added under each number, and the others, which a `Set` keeps linear. */
  private readonly first = new Map<number, string>();
  private readonly rest = new Set<string>();

  /** Whether `value` is in the set. */
  has(value: string): boolean {
    const first = this.first.get(key(value));
    return first === value || (first !== undefined && this.rest.has(value));
  }

  /** Adds `value` (which must not be in the set yet). */
  add(value: string): void {
    const k = key(value);
    if (this.first.has(k)) this.rest.add(value);
    else this.first.set(k, value);
  }
}

/** A small integer from `value`'s length, its last two characters and its middle one. */
function key(value: string): number {
  const n = value.length;
  const k = ((n * 31 + value.charCodeAt(n - 1)) * 31 + value.charCodeAt(n - 2)) * 31 +
    value.charCodeAt(n >> 1);
  return k & 0x3fffffff; // a small integer: V8 hashes it at once
}
