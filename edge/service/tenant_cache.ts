import type { UrlCache } from "../../src/fetch/url_cache.ts";
import { DEFAULT_TENANT } from "./tenants.ts";

/**
 * `cache` as one tenant sees it: its keys apart from every other tenant's, so that a page read
 * under one tenant's domain rules is never served under another's, and no tenant learns from a
 * cache hit what another read. The default tenant keeps today's keys.
 */
export function tenantCache(cache: UrlCache, tenant: string): UrlCache {
  if (tenant === DEFAULT_TENANT) return cache;
  // A URL has no line break, so no key of one tenant can be another's.
  const key = (url: string) => `tenant ${tenant}\n${url}`;
  return {
    get: (url) => cache.get(key(url)),
    set: (url, entry, ttlMs) => cache.set(key(url), entry, ttlMs),
  };
}
