// The top-level domains of the Public Suffix List's ICANN section, read from the trie tldts
// ships (no network): the reference src/fetch/top_level_domains.ts is checked against, and
// rewritten from by `deno run -A tests/support/root_zone.ts`.
import {
  edgeChild,
  edgeLength,
  edgeStart,
  labelText,
  nodeFlags,
  rulesRoot,
} from "tldts/dist/es6/src/data/trie.js";

const ICANN = 1;

/** Every top-level domain the ICANN section lists, in the trie's order. */
export function icannTopLevelDomains(): string[] {
  const offsets: number[] = [];
  for (let edge = 0, offset = 0; edge < edgeLength.length; edge++) {
    offsets.push(offset);
    offset += edgeLength[edge];
  }
  const names: string[] = [];
  for (let edge = edgeStart[rulesRoot]; edge < edgeStart[rulesRoot + 1]; edge++) {
    if (nodeFlags[edgeChild[edge]] & ICANN) {
      names.push(labelText.slice(offsets[edge], offsets[edge] + edgeLength[edge]));
    }
  }
  return names;
}

if (import.meta.main) {
  const names = icannTopLevelDomains().sort();
  const lines: string[] = [];
  let line = "";
  for (const name of names) {
    if (line && line.length + name.length + 1 > 96) {
      lines.push(line);
      line = "";
    }
    line = line ? `${line} ${name}` : name;
  }
  lines.push(line);
  const source =
    `// The top-level domains the root zone delegates, as the Public Suffix List's ICANN section
// lists them (through tldts), in ASCII and Unicode forms. Written by
// \`deno run -A tests/support/root_zone.ts\`; tests/address_guard_test.ts keeps it equal to the list.
const NAMES = \`
${lines.join("\n")}
\`;

/** Whether \`label\` (lower case) is a top-level domain of the public DNS. */
export function isDelegatedTopLevelDomain(label: string): boolean {
  return DELEGATED.has(label);
}

const DELEGATED: ReadonlySet<string> = new Set(NAMES.trim().split(/\\s+/));
`;
  await Deno.writeTextFile(
    new URL("../../src/fetch/top_level_domains.ts", import.meta.url),
    source,
  );
}
