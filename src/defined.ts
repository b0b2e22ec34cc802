/**
 * `record` without the keys whose value is `undefined`: the object as JSON would carry it, for
 * records whose optional fields are left out rather than set to `undefined`.
 */
export function defined<T extends object>(record: T): T {
  // A loop, not `Object.fromEntries` over a filter: this runs for every logged call.
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) copy[key] = value;
  return copy as T;
}
