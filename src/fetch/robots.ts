import { type Clock, systemClock } from "../clock.ts";
import { ToolError } from "../errors.ts";
import type { PageReader } from "./page.ts";
import type { Tracer } from "../tracer.ts";

// robots.txt as RFC 9309 reads it: groups of rules for user-agent tokens, the longest matching
// rule decides (allow wins a tie), `*` and `$` in paths; a missing file allows everything, and
// one that cannot be read (5xx, no connection) disallows everything until it can be.

/** The product token our requests carry and robots.txt groups are matched against. */
export const ROBOTS_TOKEN = "outpost-agent-tools";

/** One `Allow` or `Disallow` line. */
interface Rule {
  allow: boolean;
  /**
   * Its line number in the file, for messages: the pattern itself is the site's words, which
   * are not repeated outside the fence.
   */
  line: number;
  /** The pattern normalised for matching: percent-encoded, `%xx` in upper case. */
  path: string;
}

/** The rules that apply to us, and which group they came from (`*` or our token). */
export interface RobotsRules {
  group: string;
  rules: Rule[];
}

/** What robots.txt says about one path. */
export type RobotsVerdict = { allowed: true } | {
  allowed: false;
  /** The line number of the deciding `Disallow` rule. */
  line: number;
  group: string;
};

/** The rules of a robots.txt for `token`: its own groups, else the `*` groups, else none. */
export function parseRobots(text: string, token = ROBOTS_TOKEN): RobotsRules {
  const ours: Rule[] = [];
  const anyone: Rule[] = [];
  // Whom the current group's rules are for: kept as flags, not a list of agents to search per
  // rule, which a file of many agents and many rules would make quadratic.
  let forUs = false;
  let forAnyone = false;
  let inRules = false;
  // A group of ours without rules still beats `*`: it allows everything.
  let named = false;
  for (const [key, value, line] of fields(text)) {
    if (key === "user-agent") {
      if (inRules) forUs = forAnyone = false;
      inRules = false;
      // The token is the leading letters, `_` and `-`: `outpost-agent-tools/1.0` names us too.
      const agent = value === "*" ? "*" : (/^[a-z_-]+/i.exec(value)?.[0] ?? "").toLowerCase();
      forUs ||= agent === token;
      forAnyone ||= agent === "*";
      named ||= agent === token;
      continue;
    }
    if (key !== "allow" && key !== "disallow") continue;
    inRules = true;
    // An empty Disallow allows everything, which is no rule at all.
    if (value === "" || !(forUs || forAnyone)) continue;
    const rule = { allow: key === "allow", line, path: normalise(value) };
    if (forUs) ours.push(rule);
    if (forAnyone) anyone.push(rule);
  }
  return ours.length > 0 || named ? { group: token, rules: ours } : { group: "*", rules: anyone };
}

/**
 * The `key: value` lines of a robots.txt with their line numbers, keys lower-cased, comments
 * dropped. A line without a
 * colon before its comment is passed over without being copied, so a file of blank lines costs
 * no allocation per line; and each character is searched for from where the last search found
 * it, never again from the start of each line, so the scan is linear whatever the file holds.
 */
function* fields(text: string): Generator<[key: string, value: string, line: number]> {
  const found = new Map<string, number>();
  const next = (char: string, from: number): number => {
    let at = found.get(char) ?? -1;
    if (at < from) {
      at = text.indexOf(char, from);
      found.set(char, at < 0 ? text.length : at);
    }
    return found.get(char)!;
  };
  for (let start = 0, line = 1; start < text.length; line++) {
    const end = Math.min(next("\n", start), next("\r", start));
    const stop = Math.min(next("#", start), end);
    const colon = next(":", start);
    if (colon < stop) {
      const key = text.slice(start, colon).trim().toLowerCase();
      yield [key, text.slice(colon + 1, stop).trim(), line];
    }
    start = end + (text.startsWith("\r\n", end) ? 2 : 1);
  }
}

/** What `rules` say about `url`'s path and query. */
export function robotsVerdict(rules: RobotsRules, url: URL): RobotsVerdict {
  const target = normalise(url.pathname + url.search);
  if (target === "/robots.txt") return { allowed: true };
  let best: Rule | undefined;
  for (const rule of rules.rules) {
    if (!matches(rule.path, target)) continue;
    if (
      !best || rule.path.length > best.path.length ||
      (rule.path.length === best.path.length && rule.allow)
    ) {
      best = rule;
    }
  }
  if (!best || best.allow) return { allowed: true };
  return { allowed: false, line: best.line, group: rules.group };
}

/** A path as robots.txt matching compares it: non-ASCII percent-encoded, `%xx` upper-cased. */
function normalise(path: string): string {
  return path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))
    .replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

/**
 * Whether `pattern` (with `*` for any run of characters and a final `$` for the end) matches
 * the start of `path`. With `*` the only wildcard, taking each literal piece at its leftmost
 * place is exact, so this is a few `indexOf` calls, never a backtracking search.
 */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split("*");
  const last = pieces.length - 1;
  if (!path.startsWith(pieces[0])) return false;
  if (last === 0) return !anchored || path.length === pieces[0].length;
  let at = pieces[0].length;
  for (let k = 1; k < last; k++) {
    const found = path.indexOf(pieces[k], at);
    if (found < 0) return false;
    at = found + pieces[k].length;
  }
  return anchored
    ? path.length - pieces[last].length >= at && path.endsWith(pieces[last])
    : path.indexOf(pieces[last], at) >= 0;
}

/** How long a robots.txt that was read is trusted. */
const FRESH_MS = 60 * 60 * 1000;
/** How long an unreadable one keeps everything disallowed before it is tried again. */
const RETRY_MS = 60 * 1000;
/** Origins whose robots.txt is kept at once. */
const MAX_ORIGINS = 256;

/**
 * Reads, caches and applies robots.txt per origin. `reader` fetches the file; it must be held
 * to the same address guard as the pages, with its own small size and time bounds.
 */
export class RobotsGate {
  readonly #reader: PageReader;
  readonly #clock: Clock;
  readonly #origins = new Map<string, { until: number; rules: RobotsRules | ToolError }>();

  constructor(reader: PageReader, clock: Clock = systemClock) {
    this.#reader = reader;
    this.#clock = clock;
  }

  /**
   * Resolves when robots.txt lets us read `url`, to the bytes read fetching it (0 when it was
   * known: the access log counts them with the page's); otherwise throws a `ToolError` naming the
   * rule. `tracer` gets the fetch's client span.
   */
  async check(
    url: URL,
    signal: AbortSignal | undefined,
    tracer: Tracer | undefined,
  ): Promise<number> {
    const read = { bytes: 0 };
    const rules = await this.#rules(url, signal, tracer, read);
    if (rules instanceof ToolError) throw rules;
    const verdict = robotsVerdict(rules, url);
    if (verdict.allowed) return read.bytes;
    // The rule is named by its line, never quoted: its words are the site's, and this message
    // is printed outside the fence. The group is `*` or our own token.
    throw new ToolError(
      `${url.host}'s robots.txt does not allow ${ROBOTS_TOKEN} to read this page: ` +
        `the Disallow rule on line ${verdict.line}, in the group for ${
          JSON.stringify(verdict.group)
        }.`,
      {
        hint: "The site asks automated agents not to read it; find the content elsewhere.",
        code: "policy_refused",
      },
    );
  }

  async #rules(
    url: URL,
    signal: AbortSignal | undefined,
    tracer: Tracer | undefined,
    read: { bytes: number },
  ): Promise<RobotsRules | ToolError> {
    const origin = url.origin;
    const known = this.#origins.get(origin);
    if (known && known.until > this.#clock.now()) return known.rules;
    const rules = await this.#load(origin, signal, tracer, read);
    this.#origins.delete(origin);
    if (this.#origins.size >= MAX_ORIGINS) {
      this.#origins.delete(this.#origins.keys().next().value!);
    }
    const fresh = rules instanceof ToolError ? RETRY_MS : FRESH_MS;
    this.#origins.set(origin, { until: this.#clock.now() + fresh, rules });
    return rules;
  }

  async #load(
    origin: string,
    signal: AbortSignal | undefined,
    tracer: Tracer | undefined,
    read: { bytes: number },
  ): Promise<RobotsRules | ToolError> {
    const where = `${origin}/robots.txt`;
    let page;
    try {
      page = await this.#reader.read(where, { signal, ...(tracer ? { tracer } : {}) });
      read.bytes = page.bytesRead ?? 0;
    } catch (error) {
      if (signal?.aborted || !(error instanceof ToolError)) throw error;
      return unreadable(new URL(origin).host, error.message);
    }
    if (page.status >= 500) return unreadable(new URL(origin).host, `HTTP ${page.status}`);
    // 4xx: there is no robots.txt, which allows everything.
    if (page.status >= 400) return { group: "*", rules: [] };
    // A file cut at the size cap ends in a partial line, which could be a shortened rule.
    return parseRobots(
      page.sizeCapped ? page.text.slice(0, page.text.lastIndexOf("\n") + 1) : page.text,
    );
  }
}

function unreadable(host: string, why: string): ToolError {
  return new ToolError(
    `${host}'s robots.txt could not be read (${why}); until it can, the site counts as ` +
      "disallowing every page.",
    { hint: "Try again in a minute, or find the content elsewhere.", code: "policy_refused" },
  );
}
