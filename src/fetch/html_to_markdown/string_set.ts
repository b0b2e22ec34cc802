/**
 * A set of strings that never hashes a whole string. V8 hashes each new string used as a `Set`
 * or `Map` key in full, which for the link targets of a page cost more than the rest of the
 * link's handling; here a string is filed under a number made of its length and a few of its
 * characters, and compared only with the strings filed under the same number.
 *
 * @module
 */

/** A bucket larger than this becomes a `Set`: a page of look-alike strings stays linear. */
const MAX_BUCKET = 8;

/** Strings, looked up by value. */
export class StringSet {
  private readonly buckets = new Map<number, string[] | Set<string>>();

  /** Whether `value` is in the set. */
  has(value: string): boolean {
    const bucket = this.buckets.get(key(value));
    if (bucket === undefined) return false;
    if (!Array.isArray(bucket)) return bucket.has(value);
    for (let i = 0; i < bucket.length; i++) if (bucket[i] === value) return true;
    return false;
  }

  /** Adds `value` (which must not be in the set yet). */
  add(value: string): void {
    const k = key(value);
    const bucket = this.buckets.get(k);
    if (bucket === undefined) this.buckets.set(k, [value]);
    else if (!Array.isArray(bucket)) bucket.add(value);
    else if (bucket.length < MAX_BUCKET) bucket.push(value);
    else this.buckets.set(k, new Set([...bucket, value]));
  }
}

/** A small integer from `value`'s length, its last two characters and its middle one. */
function key(value: string): number {
  const n = value.length;
  const k = ((n * 31 + value.charCodeAt(n - 1)) * 31 + value.charCodeAt(n - 2)) * 31 +
    value.charCodeAt(n >> 1);
  return k & 0x3fffffff; // a small integer: V8 hashes it at once
}
