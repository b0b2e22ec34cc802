/**
 * Tag and attribute names looked up where they stand in the page: no copy of the name and no
 * hashing, the two costs a `Map` keyed by the sliced name pays on every tag.
 *
 * @module
 */
import { lower } from "./text.ts";

/** A name of the table and its value. */
export interface NameEntry<T> {
  readonly name: string;
  readonly value: T;
}

/** Lowercase ASCII names, each with a value, found in the page as {@linkcode lower} finds them. */
export class NameTable<T> {
  /** Per slot (length and first letter), its entries. */
  private readonly slots: NameEntry<T>[][] = [];
  private readonly byName = new Map<string, NameEntry<T>>();

  constructor(entries: Iterable<[string, T]>) {
    for (const [name, value] of entries) {
      const entry = { name, value };
      (this.slots[slotOf(name.length, name.charCodeAt(0))] ??= []).push(entry);
      this.byName.set(name, entry);
    }
  }

  /** The entry of the name from `start` to `end` of `html`, compared in ASCII case. */
  find(html: string, start: number, end: number): NameEntry<T> | undefined {
    const first = html.charCodeAt(start);
    const entries = this.slots[slotOf(end - start, first)];
    // `lower` keeps a name's length and an ASCII first letter: no other slot can hold it.
    if (entries === undefined && first < 128) return undefined;
    if (entries !== undefined) {
      for (let k = 0; k < entries.length; k++) {
        const name = entries[k].name;
        let i = 1;
        while (i < name.length) {
          let c = html.charCodeAt(start + i);
          if (c >= 65 && c <= 90) c += 32;
          if (c !== name.charCodeAt(i)) break;
          i++;
        }
        if (i === name.length) return entries[k];
      }
    }
    for (let i = start; i < end; i++) {
      // `toLowerCase` maps a few characters beyond ASCII to ASCII letters (K, the Kelvin sign).
      if (html.charCodeAt(i) > 127) return this.byName.get(lower(html.slice(start, end)));
    }
    return undefined;
  }
}

/** The slot of names of `length` starting with `first`, letters folded; 0 holds no name. */
function slotOf(length: number, first: number): number {
  if (first >= 65 && first <= 90) first += 32;
  return length > 31 || first > 127 ? 0 : (length << 7) | first;
}
