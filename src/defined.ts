/**
 * `record` without the keys whose value is `undefined`: the object as JSON would carry it, for
 * records whose optional fields are left out rather than set to `undefined`.
 */
export function defined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
