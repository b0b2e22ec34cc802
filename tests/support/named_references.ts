// The HTML standard's named character references, read from the trie the `entities` package
// ships (no network): the reference src/html/named_references.ts is written from by
// `deno run -A tests/support/named_references.ts` (then `deno fmt`), and that
// tests/html_decode_test.ts checks src/html/decode.ts against.
import { determineBranch, htmlDecodeTree as tree } from "entities/decode";

/** One named reference: its name (without `;`), what it stands for, and whether `;` may go. */
export interface NamedReference {
  name: string;
  value: string;
  legacy: boolean;
}

/** Every named reference, by name (the trie layout: entities' bin-trie-flags.js). */
export function namedReferences(): NamedReference[] {
  const found: NamedReference[] = [];
  const stack: [number, string][] = [[0, ""]];
  while (stack.length > 0) {
    const [node, name] = stack.pop()!;
    const header = tree[node];
    const jump = header & 0x7f;
    const count = (header & 0x1f80) >> 7;
    if ((header & 0xe000) === 0 && jump !== 0) {
      // A node without a value: one branch, or a jump table.
      if (count === 0) stack.push([node + 1, name + String.fromCharCode(jump)]);
      for (let slot = 0; slot < count; slot++) {
        const stored = tree[node + 1 + slot];
        if (stored) {
          stack.push([(node + count + stored) & 0xffff, name + String.fromCharCode(jump + slot)]);
        }
      }
      continue;
    }
    if ((header & 0xe000) === 0x2000) {
      // A run of characters, the first in the header, the others two to a word.
      let run = String.fromCharCode(jump);
      for (let k = 1; k < count; k++) {
        run += String.fromCharCode(
          (tree[node + 1 + ((k - 1) >> 1)] >> (((k - 1) & 1) << 3)) & 0xff,
        );
      }
      stack.push([node + 1 + (count >> 1), name + run]);
      continue;
    }
    const size = header >>> 14;
    if (size > 0) {
      const value = size === 1
        ? String.fromCharCode(header & 0x1fff)
        : String.fromCharCode(...tree.subarray(node + 1, node + size));
      found.push({ name, value, legacy: (header & 0x2000) === 0 });
      if (size === 1) continue;
    }
    for (let char = 1; char < 128; char++) {
      const next = determineBranch(tree, header, node + (size || 1), char);
      if (next >= 0) stack.push([next, name + String.fromCharCode(char)]);
    }
  }
  return found.sort((a, b) => a.name < b.name ? -1 : 1);
}

/**
 * The table as src/html/named_references.ts writes it: the references grouped by value, the
 * values in code point order, each as the base-36 distance of its first code point from the
 * previous value's (and `+` its second code point, if any), `:`, then its names, separated by
 * `,` (`!` after a name whose `;` may go), `;` between groups: about half the gzipped size of
 * entities' trie, which also cost each cold start a decoding pass at import.
 */
export function encodeNamedReferences(references: NamedReference[]): string {
  const groups = new Map<string, string[]>();
  for (const { name, value, legacy } of references) {
    const names = groups.get(value) ?? [];
    names.push(legacy ? `${name}!` : name);
    groups.set(value, names);
  }
  const points = (value: string) => [...value].map((char) => char.codePointAt(0)!);
  const values = [...groups.keys()].sort((a, b) => {
    const [x, y] = [points(a), points(b)];
    return x[0] - y[0] || (x[1] ?? -1) - (y[1] ?? -1);
  });
  let previous = 0;
  return values.map((value) => {
    const [first, second] = points(value);
    const head = (first - previous).toString(36) +
      (second === undefined ? "" : `+${second.toString(36)}`);
    previous = first;
    return `${head}:${groups.get(value)!.join(",")}`;
  }).join(";");
}

if (import.meta.main) {
  const table = encodeNamedReferences(namedReferences());
  const lines = table.match(/.{1,96}/g) ?? [];
  await Deno.writeTextFile(
    new URL("../../src/html/named_references.ts", import.meta.url),
    `// The HTML standard's named character references (\`&amp;\`, \`&NotEqualTilde;\`…). Written by
// \`deno run -A tests/support/named_references.ts\` from the \`entities\` package's table;
// src/html/decode.ts reads it on first use, and tests/html_decode_test.ts keeps decode() equal to
// that package's decoder.

/**
 * Grouped by value: each value's first code point as its base-36 distance from the previous
 * value's (\`+\` a second code point), \`:\`, its names (\`,\` between them, \`!\`: the \`;\` may
 * go), \`;\` between values; line breaks mean nothing.
 */
export const NAMED_REFERENCES = \`
${lines.join("\n")}
\`;

/** The longest name whose \`;\` may go (\`middot\`, \`plusmn\`…). */
export const LONGEST_LEGACY_NAME = ${
      Math.max(...namedReferences().filter((r) => r.legacy).map((r) => r.name.length))
    };
`,
  );
}
