// zod/mini: a program that uses `now` alone bundles no classic zod.
import * as z from "zod/mini";
// Named: `z.core.describe` would bring all of zod's core, every locale included.
import { describe } from "zod/v4/core";
import { quoteValue } from "../fence.ts";
import { InvalidInputError, SetupError } from "../errors.ts";
import { presetTool, type Tool } from "../tool.ts";
import { FAMILY_SCHEMAS } from "../family_schemas.ts";

const WALL_CLOCK: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  weekday: "long",
};

interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  weekday: string;
}

/** A zone as `now` reads it: its formatter, its IANA name, and its last reading. */
interface Zone {
  formatter: Intl.DateTimeFormat;
  /** The IANA name `Intl` resolved it to (`resolvedOptions()` costs as much as a call). */
  timeZone: string;
  /**
   * The offset in the last minute it was asked for. Zones change their offset only on a minute's
   * boundary, so one reading of the wall clock (the slow part) serves a whole minute of calls.
   */
  offset?: Offset;
}

/**
 * Zones by name (`""` for the runtime's), each made once: making a formatter costs more than
 * the rest of a `now` call. Names come from the model, so only a few are kept.
 */
const zones = new Map<string, Zone>();
const MAX_ZONES = 32;

/** Returns the zone `timeZone` names, or `undefined` when `Intl` does not know it. */
function zoneFor(timeZone: string | undefined): Zone | undefined {
  const key = timeZone ?? "";
  let zone = zones.get(key);
  if (zone) return zone;
  try {
    const formatter = new Intl.DateTimeFormat("en-US", { ...WALL_CLOCK, timeZone });
    zone = { formatter, timeZone: formatter.resolvedOptions().timeZone };
  } catch {
    return undefined;
  }
  if (zones.size >= MAX_ZONES) zones.delete(zones.keys().next().value!);
  zones.set(key, zone);
  return zone;
}

function wallClock(formatter: Intl.DateTimeFormat, date: Date): WallClock {
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(date)) {
    parts[part.type] = part.value;
  }
  return parts as unknown as WallClock;
}

/** A zone's UTC offset as `+hh:mm`, and the UTC minute it was read in. */
interface Offset {
  minute: number;
  offsetMs: number;
  text: string;
}

/** The offset of `zone` at `ms` (since the epoch), a whole second. */
function offsetAt(zone: Zone, ms: number): Offset {
  const minute = Math.floor(ms / 60_000);
  if (zone.offset?.minute === minute) return zone.offset;
  const clock = wallClock(zone.formatter, new Date(ms));
  const asUtc = Date.UTC(
    Number(clock.year),
    Number(clock.month) - 1,
    Number(clock.day),
    Number(clock.hour),
    Number(clock.minute),
    Number(clock.second),
  );
  const offsetMinutes = Math.round((asUtc - ms) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return zone.offset = {
    minute,
    offsetMs: offsetMinutes * 60_000,
    text: `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
  };
}

/**
 * The time `ms` (since the epoch) in `zone`: ISO-8601 with a numeric offset (`+00:00`, never
 * `Z`) as the wall clock reads there (`iso`), and the offset (`text`).
 */
function timeIn(zone: Zone, ms: number): { iso: string; text: string } {
  const secondMs = Math.floor(ms / 1000) * 1000;
  const { offsetMs, text } = offsetAt(zone, secondMs);
  // The wall clock is UTC moved by the offset: `YYYY-MM-DDTHH:MM:SS` of that instant, read with
  // the UTC getters (toISOString costs four times as much).
  const wall = new Date(secondMs + offsetMs);
  return {
    iso: `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${
      pad(wall.getUTCHours())
    }:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}${text}`,
    text,
  };
}

/** `value` (0 to 99) in two digits. */
function pad(value: number): string {
  return (value < 10 ? "0" : "") + value;
}

/**
 * A ready tool named `now` that tells the model the current wall-clock time as ISO-8601 with a
 * numeric UTC offset, in the zone it asks for (an IANA name) or the runtime's own zone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now } from "@outpost/agent-tools/time";
 * const time = await now.execute({ tz: "Asia/Shanghai" }); // e.g. "2026-11-30T01:20:22+08:00"
 * assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);
 * ```
 */
export const now: Tool = presetTool({
  name: "now",
  title: "Current time",
  annotations: { readOnlyHint: true, openWorldHint: false },
  outputSchema: {
    type: "object",
    properties: {
      time: { type: "string", format: "date-time", description: "The text result." },
      timeZone: { type: "string", description: "The IANA zone it is read in." },
      utcOffset: { type: "string", description: "The zone's offset then, `+hh:mm`." },
    },
    required: ["time", "timeZone", "utcOffset"],
    additionalProperties: false,
  },
  description:
    "Returns the current date and time as ISO-8601 with a numeric UTC offset. Pass `tz`, an IANA time zone name such as `Europe/Paris`, for another zone; without it the server's zone is used.",
  input: z.object({
    tz: z.optional(z.string().check(z.minLength(1))).check(
      describe(
        "IANA time zone name, e.g. `America/New_York`. Omit for the server's zone.",
      ),
    ),
  }),
  execute({ tz }) {
    const zone = zoneFor(tz);
    if (!zone) {
      throw new InvalidInputError(`Unknown time zone ${quoteValue(tz, 80)}.`, {
        hint: "Use an IANA time zone name like `Asia/Shanghai`, or omit `tz`.",
      });
    }
    const { iso, text } = timeIn(zone, Date.now());
    return { text: iso, structured: { time: iso, timeZone: zone.timeZone, utcOffset: text } };
  },
}, FAMILY_SCHEMAS.now);

/**
 * Returns a function that states today's date, e.g. `Today's date is 2026-11-29 (Sunday).`, for
 * a system prompt. It reads the clock on every call, so a long-lived agent never goes stale.
 * Not a tool. Throws {@linkcode SetupError} at once for an unknown zone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentDate } from "@outpost/agent-tools/time";
 * const today = currentDate("Europe/Berlin");
 * const system = `You are a helpful agent. ${today()}`;
 * assert.match(system, /Today's date is \d{4}-\d{2}-\d{2} \(\w+day\)\./);
 * ```
 */
export function currentDate(tz?: string): () => string {
  const zone = zoneFor(tz);
  if (!zone) {
    throw new SetupError(`Unknown time zone ${quoteValue(tz, 80)}.`, {
      hint: "Use an IANA time zone name like `Asia/Shanghai`, or omit it for the runtime's zone.",
    });
  }
  return () => {
    const clock = wallClock(zone.formatter, new Date());
    return `Today's date is ${clock.year}-${clock.month}-${clock.day} (${clock.weekday}).`;
  };
}
