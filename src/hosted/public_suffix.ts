import { parse } from "tldts";

/**
 * Whether a lower-case host is itself an ICANN public suffix (`com`, `co.uk`, `foo.ck`), which a
 * domain rule may not name. The only use of the public suffix list, kept apart so that bundles
 * that match rules without it (the Worker's) leave the list out.
 */
export function isPublicSuffix(host: string): boolean {
  const parsed = parse(host);
  return parsed.isIcann === true && parsed.publicSuffix === host;
}
