/**
 * Knowing the date: the {@linkcode now} tool, {@linkcode currentDate} for a system prompt, and
 * the {@linkcode Clock} that the waiting parts of the package (retries, question timeouts) run
 * on, so tests can drive time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentDate } from "@outpost/agent-tools/time";
 * assert.match(currentDate("UTC")(), /\d{4}/);
 * ```
 *
 * @module
 */
export { currentDate, now } from "./now.ts";
export { type Clock, sleep, systemClock } from "../clock.ts";
