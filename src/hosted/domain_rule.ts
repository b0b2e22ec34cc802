import { SetupError } from "../errors.ts";
import { describeValue as describe } from "../validation.ts";

/**
 * One validated domain rule: a host that covers itself and its subdomains, optionally narrowed
 * to a path prefix on whole segments. `text` is the canonical form sent to providers.
 */
export interface DomainRule {
  /** The canonical rule: lower-case host, then the normalized path if any. */
  readonly text: string;
  /** The lower-case ASCII host. */
  readonly host: string;
  /**
   * The path prefix as each of {@linkcode readingsOf} reads it: `exact` for allow mode,
   * `loose` (ignoring case) for block mode, which errs toward blocking. Absent without a path.
   */
  readonly paths?: readonly { readonly exact: RegExp; readonly loose: RegExp }[];
}

/** A URL or bare host resolved as a browser would: canonical host and path readings. */
export interface UrlTarget {
  /** Lower-case, IDNA-encoded host without trailing dots. */
  readonly host: string;
  /** Whether the host is an IP literal, which no domain rule covers. */
  readonly ip: boolean;
  /** The path as each of {@linkcode readingsOf} reads it, in the same order. */
  readonly paths: readonly string[];
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCHEME_PREFIX = /^[a-z][a-z0-9+.-]*:/i;
// `name:` starts a scheme unless a dotted host name is followed by a port (`example.com:8080/x`).
// The first run stops at the first dot, so a failed match never backtracks over the name twice.
const HOST_AND_PORT = /^[^:/?#\\.]*\.[^:/?#\\]*:\d*(?:[/?#\\]|$)/;
/** DNS names are at most 253 characters; a longer one is no web host. */
export const MAX_HOST = 253;
// A host name as the public suffix library validates one once a URL parser has canonicalized it:
// labels of at most 63 letters, digits, `-` and `_`, none starting or ending with `-`, after at
// most one leading dot.
const LABEL = "(?!-)[a-z0-9_-]{1,63}(?<!-)";
const HOST_NAME = new RegExp(`^\\.?(?:${LABEL}\\.)*${LABEL}$`);
// A host that ends in a number is an IPv4 address to a URL parser, or no host at all.
// https://url.spec.whatwg.org/#ends-in-a-number-checker
const ENDS_IN_NUMBER = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/;
const HOSTED_PROTOCOLS = new Set(["http:", "https:", "ws:", "wss:", "ftp:"]);
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
// Stands for the rule's `*` while the path readings transform it; no reading can produce it.
const WILDCARD = "\uffff";

/**
 * What lenient servers do to a path beyond what a browser sends, each on its own or with the
 * others: take encoded `/` and `\` as separators, decode every other escape, drop `;params`
 * from segments (Tomcat, Jetty), merge empty segments (nginx `merge_slashes`).
 */
const LENIENT_STEPS: readonly ((path: string) => string)[] = [
  (path) => path.replace(/%2F|%5C/g, "/"),
  (path) =>
    path.replace(
      /%(?!2F|5C)([0-9A-F]{2})/g,
      (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
    ),
  (path) => path.replace(/;[^/]*/g, ""),
  (path) => path.replace(/\/{2,}/g, "/"),
];

/**
 * Every reading of a normalized, dot-resolved path: index `mask` applies the
 * {@linkcode LENIENT_STEPS} whose bits it sets, in order, then resolves dot segments again, so
 * index 0 is the path as the browser sends it. A rule and a URL path are compared reading by
 * reading: an allow rule must match in all of them, a block rule in any.
 */
function readingsOf(path: string): string[] {
  // Without `%`, `;` or `//` no step changes anything: every reading is the path itself.
  if (!/[%;]|\/\//.test(path)) return Array(1 << LENIENT_STEPS.length).fill(path);
  let combos = [path];
  for (const step of LENIENT_STEPS) combos = combos.concat(combos.map(step));
  // Most steps change nothing; an unchanged path needs no second resolution.
  const resolved = new Map([[path, path]]);
  return combos.map((combo) => {
    let reading = resolved.get(combo);
    if (reading === undefined) resolved.set(combo, reading = resolveDots(combo));
    return reading;
  });
}

/**
 * Validates one rule (`example.com`, `docs.example.com`, `example.com/blog`, `example.com/v*`)
 * and returns it in canonical form. Throws {@linkcode SetupError} naming the rule and what is
 * wrong with it.
 */
function parseDomainRule(
  value: unknown,
  where: string,
  isPublicSuffix?: (host: string) => boolean,
): DomainRule {
  if (typeof value !== "string") {
    throw new SetupError(`${where} must be a string, not ${describe(value)}.`);
  }
  const raw = value.trim();
  const fail = (problem: string, hint: string): never => {
    throw new SetupError(`${where} (${JSON.stringify(value)}) ${problem}.`, { hint });
  };
  if (raw === "") fail("is empty", "Write a domain such as example.com.");
  if (/[^\x21-\x7e]/.test(raw)) {
    if (/[^\p{ASCII}]/u.test(raw)) {
      fail(
        "contains non-ASCII characters, which can hide look-alike (homograph) domains",
        `Write the punycode form${punycodeHint(raw)}.`,
      );
    }
    fail("contains whitespace or control characters", "Write one bare domain per rule.");
  }
  if (SCHEME.test(raw) || raw.startsWith("//")) {
    fail("has a scheme", "Write the bare domain: example.com.");
  }
  if (/[?#]/.test(raw)) fail("has a query or fragment", "Rules match hosts and path prefixes.");
  const slash = raw.indexOf("/");
  const hostPart = slash === -1 ? raw : raw.slice(0, slash);
  const pathPart = slash === -1 ? "" : raw.slice(slash);
  if (hostPart.includes("@")) fail("has userinfo", "Write only the domain, without user@.");
  if (hostPart.startsWith("[")) fail("is an IP address", "Rules name domains, not addresses.");
  if (hostPart.includes(":")) fail("has a port", "Rules cover every port; drop the :port.");
  if (hostPart.includes("*")) {
    fail(
      "has a wildcard in the domain",
      "A rule covers every subdomain: write example.com, not *.example.com.",
    );
  }
  if (hostPart === "" || hostPart.startsWith(".") || hostPart.endsWith(".")) {
    fail("has an empty label", "Write the domain without leading or trailing dots.");
  }
  if (hostPart.includes("..")) fail("has an empty label", "Remove the doubled dot.");
  const host = hostPart.toLowerCase();
  if (ENDS_IN_NUMBER.test(host) && isIpv4(host)) {
    fail("is an IP address", "Rules name domains, not addresses.");
  }
  if (host.length > MAX_HOST || ENDS_IN_NUMBER.test(host) || !HOST_NAME.test(host)) {
    fail(
      "is not a valid hostname",
      "Use letters, digits and hyphens in labels of at most 63 characters.",
    );
  }
  // A rule covers subdomains, so a suffix would cover every site registered under it.
  if (isPublicSuffix?.(host)) {
    fail(
      "is a public suffix",
      `It would cover every site under \`${host}\`: write one such as example.${host}.`,
    );
  }
  if (!host.includes(".")) {
    fail(
      "is a single label, not a registrable domain",
      "Write a full domain such as example.com.",
    );
  }
  const path = pathPart === "/" ? "" : pathPart;
  if (path !== "") {
    if (!PATH_CHARS.test(path) || BAD_ESCAPE.test(path)) {
      fail(
        "has characters a URL path cannot hold",
        "Percent-encode them, or shorten the path prefix.",
      );
    }
    if ((path.match(/\*/g) ?? []).length > 1) {
      fail("has more than one `*`", "Use at most one wildcard, in the path.");
    }
    if (path.slice(1).split("/").slice(0, -1).includes("")) {
      fail("has an empty path segment", "Remove `//`.");
    }
  }
  const normalized = normalizePercent(path);
  // Checked once escapes are decoded, so `%2e%2e` and `..%2F` count as the dot segments they are.
  if (normalized.replace(/%2F|%5C/g, "/").split("/").some((s) => s === "." || s === "..")) {
    fail("has a dot segment", "Write the path as a browser would resolve it.");
  }
  const text = host + normalized;
  if (normalized === "") return { text, host };
  const paths = readingsOf(normalized.replace("*", WILDCARD)).map((prefix) => {
    const source = "^" + escapeRegExp(prefix).replace(WILDCARD, "[^/]*") +
      (prefix.endsWith("/") ? "" : "(?:/|$)");
    return { exact: new RegExp(source), loose: new RegExp(source, "i") };
  });
  return { text, host, paths };
}

/**
 * Validates a list of rules (`where` names the option, e.g. `allowedDomains`). Duplicates are
 * dropped, keeping the first. `isPublicSuffix` refuses rules that name a public suffix; it is
 * the one check that needs the public suffix list, and matching never does.
 */
export function parseDomainRules(
  value: unknown,
  where: string,
  isPublicSuffix?: (host: string) => boolean,
): DomainRule[] {
  if (!Array.isArray(value)) {
    throw new SetupError(`${where} must be an array of domain strings, not ${describe(value)}.`);
  }
  const seen = new Set<string>();
  const rules: DomainRule[] = [];
  value.forEach((item, index) => {
    const rule = parseDomainRule(item, `${where}[${index}]`, isPublicSuffix);
    if (seen.has(rule.text)) return;
    seen.add(rule.text);
    rules.push(rule);
  });
  return rules;
}

/**
 * Resolves an absolute URL or a bare host (`example.com`, `example.com/path`) the way a browser
 * would: userinfo dropped, host lower-cased and IDNA-encoded, IPv4 shorthand expanded,
 * percent-encoding and dot segments resolved. Returns `undefined` for anything that has no
 * web host (other schemes, unparsable input, non-strings).
 */
export function resolveTarget(input: unknown): UrlTarget | undefined {
  if (typeof input !== "string") return undefined;
  const text = input.trim();
  const absolute = SCHEME_PREFIX.test(text) && !HOST_AND_PORT.test(text);
  let url: URL;
  try {
    url = new URL(absolute ? text : text.startsWith("//") ? `https:${text}` : `https://${text}`);
  } catch {
    return undefined;
  }
  if (!HOSTED_PROTOCOLS.has(url.protocol)) return undefined;
  // Only from a run's first dot: `\.+$` alone is quadratic on a long run of inner dots.
  const host = url.hostname.replace(/(?<!\.)\.+$/, "");
  if (host === "" || host.length > MAX_HOST) return undefined;
  if (host.startsWith("[")) return { host, ip: true, paths: [] };
  // A trailing dot stripped can leave a host that ends in a number without being an address.
  const ip = ENDS_IN_NUMBER.test(host);
  if (ip ? !isIpv4(host) : !HOST_NAME.test(host)) return undefined;
  const browser = normalizePercent(url.pathname);
  return { host, ip, paths: readingsOf(browser) };
}

/**
 * Whether `rule` covers `target`. Strict (allow mode) requires the path to match in every
 * reading, exactly; loose (block mode) is satisfied by any reading, ignoring case.
 */
export function covers(rule: DomainRule, target: UrlTarget, strict: boolean): boolean {
  if (target.ip) return false;
  if (target.host !== rule.host && !target.host.endsWith("." + rule.host)) return false;
  const patterns = rule.paths;
  if (!patterns) return true;
  return strict
    ? target.paths.every((path, i) => patterns[i].exact.test(path))
    : target.paths.some((path, i) => patterns[i].loose.test(path));
}

/** Whether a host that ends in a number is an IPv4 address in one of the forms URLs accept. */
function isIpv4(host: string): boolean {
  // Only numbers and dots, so that the URL parser reads all of it as the address.
  return /^[0-9a-fx.]+$/.test(host) && URL.canParse(`http://${host}`);
}

/** Decodes percent-escapes of unreserved characters and upper-cases the rest (RFC 3986 §6.2.2). */
function normalizePercent(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

function resolveDots(path: string): string {
  const out: string[] = [];
  const segments = path.split("/").slice(1);
  segments.forEach((segment, index) => {
    if (segment === "..") out.pop();
    if (segment === "." || segment === "..") {
      if (index === segments.length - 1) out.push("");
      return;
    }
    out.push(segment);
  });
  return "/" + out.join("/");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function punycodeHint(raw: string): string {
  try {
    const host = new URL(`https://${raw.split("/")[0]}`).hostname;
    return host.includes("xn--") ? `: ${host}` : " (xn--…)";
  } catch {
    return " (xn--…)";
  }
}
