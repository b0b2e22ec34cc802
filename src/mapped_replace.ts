// Replacing matches in a text while keeping a map back to the original, for patterns that run
// on a normalized form of third-party text but must report or rewrite the text as written.

/** Text after replacements, and where each of its code units came from. */
export interface MappedText {
  text: string;
  /** Start, in the original, of what produced code unit `index` (or the end, past the last). */
  start(index: number): number;
  /** End, in the original, of what produced code unit `index`. */
  end(index: number): number;
}

/**
 * `text` with every match of the global `pattern` (which has no capture groups) replaced by
 * `replace(match)`, in one pass.
 * Only replacements that change the length are recorded; a lookup is a binary search over them.
 */
export function replaceMapped(
  text: string,
  pattern: RegExp,
  replace: (match: string) => string,
): MappedText {
  // Where a match was replaced by a different number of code units, four numbers: its output
  // and original offsets and lengths. Everywhere else the two texts line up one to one. A typed
  // array, as hostile text makes millions of these and a collector need not scan numbers.
  let edits = new Int32Array(64);
  let count = 0;
  let shift = 0;
  const out = text.replace(pattern, (match: string, offset: number) => {
    const replaced = replace(match);
    if (replaced.length !== match.length) {
      if (count + 4 > edits.length) {
        const grown = new Int32Array(edits.length * 2);
        grown.set(edits);
        edits = grown;
      }
      edits[count++] = offset + shift;
      edits[count++] = offset;
      edits[count++] = match.length;
      edits[count++] = replaced.length;
      shift += replaced.length - match.length;
    }
    return replaced;
  });
  const locate = (index: number, edge: 0 | 1): number => {
    let low = 0;
    let high = count / 4;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (edits[mid * 4] <= index) low = mid + 1;
      else high = mid;
    }
    if (low === 0) return index + edge;
    const [at, from, size, length] = edits.subarray(low * 4 - 4, low * 4);
    if (index < at + length) return from + edge * size;
    return from + size + index - at - length + edge;
  };
  return { text: out, start: (i) => locate(i, 0), end: (i) => locate(i, 1) };
}
