import { MAX_HOST } from "./domain_rule.ts";
import { mentionText } from "./mention_text.ts";

// A host name standing on its own: not preceded or followed by a name character or a dot-label.
const HOST_NAME =
  /(?<![\p{L}\p{N}\p{M}_.-])(?:[\p{L}\p{N}\p{M}_-]+\.)+[\p{L}\p{N}\p{M}_-]+(?![\p{L}\p{N}\p{M}_-]|\.[\p{L}\p{N}\p{M}_-])/gu;

/** A bare mention of a host that a rule covers: as written, and the rule. */
export interface HostMention {
  written: string;
  rule: string;
}

/** Finds the bare mentions, in text, of hosts that a block list's rules cover. */
export class HostMentions {
  readonly #hosts: ReadonlySet<string>;
  /** The most labels in any rule host: no longer suffix of a name can be a rule host. */
  readonly #depth: number;
  readonly #match: (name: string) => string | undefined;

  /** `hosts` are the rules' hosts; `match` gives the rule covering a name, if any. */
  constructor(hosts: readonly string[], match: (name: string) => string | undefined) {
    this.#hosts = new Set(hosts);
    this.#depth = hosts.reduce((most, host) => Math.max(most, host.split(".").length), 0);
    this.#match = match;
  }

  /**
   * The mentions in `text`, in order. Mentions are read as a person would type them: folded,
   * invisibles dropped, defanged dots undone; each is given as written.
   */
  *in(text: string): Generator<HostMention> {
    const { folded, original } = mentionText(text);
    for (const match of folded.matchAll(HOST_NAME)) {
      const name = match[0];
      if (!this.#mayCover(name)) continue;
      const rule = this.#match(name);
      if (rule === undefined) continue;
      yield { written: original(match.index, match.index + name.length), rule };
    }
  }

  /**
   * A cheap pre-check: an ASCII name can only be covered if it is a host name and one of its
   * last few parent names (as many labels as the longest rule host) is a rule host. Non-ASCII
   * names need IDNA, so they always go to `match`, which is linear in their length.
   */
  #mayCover(name: string): boolean {
    if (/[^\p{ASCII}]/u.test(name)) return true;
    if (name.length > MAX_HOST) return false;
    const host = name.toLowerCase();
    let end = host.length;
    for (let labels = 0; labels < this.#depth && end > 0; labels++) {
      const dot = host.lastIndexOf(".", end - 1);
      if (this.#hosts.has(host.slice(dot + 1))) return true;
      end = dot;
    }
    return false;
  }
}
