import { SetupError } from "../errors.ts";
import { checkOption, nonEmptyString } from "../option_checks.ts";
import { describeValue } from "../validation.ts";
import { COUNTRIES } from "./countries.ts";

/**
 * Where the user roughly is, so the provider localizes results. Every field is optional.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ApproximateLocation, nativeWebSearch } from "@outpost/agent-tools/hosted";
 * const where: ApproximateLocation = { city: "Lyon", country: "fr", timezone: "Europe/Paris" };
 * // Validated and made canonical: the country upper-case.
 * assert.equal(nativeWebSearch({ userLocation: where }).userLocation?.country, "FR");
 * ```
 */
export interface ApproximateLocation {
  /** Free-text city, e.g. `San Francisco`. */
  city?: string;
  /** Free-text region, e.g. `California`. */
  region?: string;
  /** ISO 3166-1 alpha-2 country code, e.g. `US` (any case; sent upper-case). */
  country?: string;
  /** IANA time zone, e.g. `America/Los_Angeles` (sent in canonical form). */
  timezone?: string;
}

/**
 * The user location object both providers take (`type: "approximate"`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch, type UserLocationParam } from "@outpost/agent-tools/hosted";
 * const location: UserLocationParam = { type: "approximate", country: "GB" };
 * const tool = nativeWebSearch({ userLocation: { country: "GB" } }).toAnthropic();
 * assert.deepEqual(tool.user_location, location);
 * ```
 */
export interface UserLocationParam extends ApproximateLocation {
  /** Always `"approximate"`. */
  type: "approximate";
}

const LOCATION_KEYS = ["city", "region", "country", "timezone"] as const;

/** Checks a `userLocation` option and returns it in canonical form. */
export function parseLocation(value: unknown): ApproximateLocation {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SetupError(`userLocation must be an object, not ${describeValue(value)}.`);
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) =>
    !(LOCATION_KEYS as readonly string[]).includes(key)
  );
  if (unknown.length > 0) {
    throw new SetupError(`Unknown userLocation field \`${unknown[0]}\`.`, {
      hint: "Known fields: city, region, country, timezone.",
    });
  }
  const location: ApproximateLocation = {};
  for (const key of LOCATION_KEYS) {
    const field = record[key];
    if (field === undefined) continue;
    location[key] = checkOption(`userLocation.${key}`, field, nonEmptyString).trim();
  }
  if (location.country !== undefined) {
    const country = location.country.toUpperCase();
    if (!COUNTRIES.has(country)) {
      throw new SetupError(
        `userLocation.country ${
          JSON.stringify(location.country)
        } is not an ISO 3166-1 alpha-2 code.`,
        { hint: "Use a two-letter code such as US, GB or DE." },
      );
    }
    location.country = country;
  }
  if (location.timezone !== undefined) location.timezone = canonicalZone(location.timezone);
  return location;
}

function canonicalZone(zone: string): string {
  // Intl also accepts UTC offsets such as "+05:00", which are not IANA zone names.
  if (!/^[+-]/.test(zone)) {
    try {
      return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
    } catch {
      // Reported below.
    }
  }
  throw new SetupError(`userLocation.timezone ${JSON.stringify(zone)} is not an IANA time zone.`, {
    hint: "Use a name such as Europe/Paris or America/New_York.",
  });
}
