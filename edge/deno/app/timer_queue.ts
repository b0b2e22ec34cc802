// Timers for the connection guard, which sets and cancels one per request (the idle clock) and
// one per connection (the header clock): a `setTimeout` and its `clearTimeout` cost about 10 µs in
// Deno, as much as half of what a bare `Deno.serve` spends on a whole request.

import { type Clock, systemClock } from "../../../src/clock.ts";

interface Entry {
  at: number;
  callback: () => void;
}

/** The runtime's timers on a monotonic time, which keeps each queue in order. */
const monotonic: Clock = { now: () => performance.now(), setTimer: systemClock.setTimer };

/**
 * Timers kept in one queue per delay behind a single timer of `clock`. A queue's deadlines come
 * in order (each is the time it was set plus the same delay), so setting a timer is an insertion
 * at the end and cancelling one a deletion, with no runtime timer touched. The runtime timer is
 * moved only to an earlier deadline; one that fires with nothing due sets itself for the next
 * deadline. Each callback runs at its deadline, as with `setTimeout`.
 */
export function queuedTimers(clock: Clock = monotonic): Clock {
  const queues = new Map<number, Set<Entry>>();
  let armed: { at: number; cancel: () => void } | undefined;
  /** Timers set and neither fired nor cancelled: with none, no runtime timer holds the process. */
  let pending = 0;

  function arm(): void {
    let earliest = Infinity;
    for (const queue of queues.values()) {
      const head = queue.values().next().value;
      if (head && head.at < earliest) earliest = head.at;
    }
    armed?.cancel();
    armed = earliest === Infinity
      ? undefined
      : { at: earliest, cancel: clock.setTimer(fire, earliest - clock.now()) };
  }

  function fire(): void {
    armed = undefined;
    const now = clock.now();
    for (const [delay, queue] of queues) {
      for (const entry of queue) {
        if (entry.at > now) break;
        queue.delete(entry);
        pending--;
        entry.callback();
      }
      if (queue.size === 0) queues.delete(delay);
    }
    if (!armed) arm();
  }

  return {
    now: () => clock.now(),
    setTimer(callback, ms) {
      const entry = { at: clock.now() + ms, callback };
      let queue = queues.get(ms);
      if (!queue) queues.set(ms, queue = new Set());
      queue.add(entry);
      pending++;
      if (!armed || entry.at < armed.at) arm();
      return () => {
        if (!queue.delete(entry)) return;
        // A queue of a delay set once (the idle timer's remainder) goes with its last timer.
        if (queue.size === 0 && queues.get(ms) === queue) queues.delete(ms);
        if (--pending > 0) return;
        armed?.cancel();
        armed = undefined;
      };
    },
  };
}
