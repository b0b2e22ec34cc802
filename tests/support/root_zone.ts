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
  // ASCII forms only (internationalized ones as `xn--`), front-coded: each name is the length of
  // the prefix it shares with the previous one (a capital, A for 0 to J for 9), then the rest.
  // The Unicode forms, escaped in an ASCII bundle, and the plain list cost the Worker 2.3 KB
  // more, gzipped.
  const names = icannTopLevelDomains().filter((name) => /^[a-z\d-]+$/.test(name)).sort();
  let coded = "";
  let previous = "";
  for (const name of names) {
    let shared = 0;
    while (shared < 9 && name[shared] !== undefined && name[shared] === previous[shared]) shared++;
    coded += String.fromCharCode(65 + shared) + name.slice(shared);
    previous = name;
  }
  const lines = coded.match(/.{1,96}/g) ?? [];
  const source =
    `// The top-level domains the root zone delegates, as the Public Suffix List's ICANN section
// lists them (through tldts), in ASCII form and front-coded. Written by
// \`deno run -A tests/support/root_zone.ts\`; tests/address_guard_test.ts keeps it equal to the list.
const NAMES = \`
${lines.join("\n")}
\`;

let delegated: ReadonlySet<string> | undefined;

/** Whether \`label\` (lower case) is a top-level domain of the public DNS, in either form. */
export function isDelegatedTopLevelDomain(label: string): boolean {
  // Built on first use: no work at import, where a Worker's cold start pays for it.
  delegated ??= decodeNames(NAMES);
  return delegated.has(/^[a-z\\d-]*$/.test(label) ? label : internationalForm(label));
}

/**
 * The names of a front-coded list: each one's prefix shared with the previous (A: none, B: one
 * character… J: nine), then its rest.
 */
function decodeNames(coded: string): Set<string> {
  const names = new Set<string>();
  let name = "";
  for (const [, shared, rest] of coded.replace(/\\s/g, "").matchAll(/([A-J])([^A-J]*)/g)) {
    name = name.slice(0, shared.charCodeAt(0) - 65) + rest;
    names.add(name);
  }
  return names;
}

/**
 * A Unicode label's \`xn--\` form, as the URL standard's host parser writes it (what a request
 * to it would reach), or "" when it has none: another form of an internationalized top-level
 * domain is that domain, and an ASCII one it maps to (\`ｃｏｍ\`) stays unknown, as before.
 */
function internationalForm(label: string): string {
  // ASCII punctuation would make the URL mean something else (\`a@b\`, \`a/b\`, \`%61\`).
  if (/[^a-z\\d\\-\\P{ASCII}]/u.test(label)) return "";
  try {
    const host = new URL(\`http://\${label}/\`).hostname;
    return host.startsWith("xn--") && !host.includes(".") ? host : "";
  } catch {
    return "";
  }
}
`;
  await Deno.writeTextFile(
    new URL("../../src/fetch/top_level_domains.ts", import.meta.url),
    source,
  );
}
