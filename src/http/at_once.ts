// Work that needs no I/O (`now`, a cached page) ends within the microtasks of its call. A runtime
// watches a client's connection for the request's signal, which costs it more than such a call:
// the signal is made only for work still running after those turns.

/**
 * How many microtask turns work may take to count as done at once: about three times what a
 * call that does no I/O takes (`now`, through the telemetry and the tool's checks: 10).
 */
export const AT_ONCE_TURNS = 32;

/** Awaits `work`, running `slow` first when it has not settled within {@linkcode AT_ONCE_TURNS}. */
export async function unlessAtOnce<T>(work: Promise<T>, slow: () => void): Promise<T> {
  let settled = false;
  const settle = () => void (settled = true);
  work.then(settle, settle);
  for (let turn = 0; turn < AT_ONCE_TURNS && !settled; turn++) await undefined;
  if (!settled) slow();
  return await work;
}
