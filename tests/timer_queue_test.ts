import assert from "node:assert/strict";
import { queuedTimers } from "../edge/deno/app/timer_queue.ts";
import { FakeClock } from "./support/fake_clock.ts";

Deno.test("queued timers fire at their deadlines, in order, on one timer of the clock", {
  timeout: 10_000,
}, async () => {
  const clock = new FakeClock(0);
  const timers = queuedTimers(clock);
  const fired: string[] = [];
  const at = (name: string) => () => fired.push(`${name}@${clock.now()}`);
  timers.setTimer(at("idle"), 30_000);
  const cancelled = timers.setTimer(at("cancelled"), 10_000);
  timers.setTimer(at("header"), 10_000);
  // A shorter delay set after a longer one still fires first.
  timers.setTimer(at("first-byte"), 2_000);
  cancelled();
  assert.equal(clock.pending.length, 1, "one timer of the clock");
  await clock.advance(5_000);
  // Set within the span: a queue's deadlines stay in order.
  timers.setTimer(at("later header"), 10_000);
  timers.setTimer(() => {
    fired.push(`nested@${clock.now()}`);
    timers.setTimer(at("set by a callback"), 1_000);
  }, 6_000);
  await clock.advance(60_000);
  assert.deepEqual(fired, [
    "first-byte@2000",
    "header@10000",
    "nested@11000",
    "set by a callback@12000",
    "later header@15000",
    "idle@30000",
  ]);
  assert.deepEqual(clock.pending, []);
});

Deno.test("cancelling every queued timer leaves no timer of the clock pending", () => {
  const clock = new FakeClock(0);
  const timers = queuedTimers(clock);
  const cancels = [timers.setTimer(() => {}, 30_000), timers.setTimer(() => {}, 10_000)];
  assert.equal(clock.pending.length, 1);
  cancels[1]();
  // Still one to wait for; the clock's timer may stay early and set itself again on firing.
  assert.equal(clock.pending.length, 1);
  cancels[0]();
  cancels[0]();
  assert.deepEqual(clock.pending, []);
});
