/**
 * The package version, kept equal to `deno.json` by a test.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERSION } from "@outpost/agent-tools";
 * // Tag your own requests or logs with the library version in use.
 * const userAgent = `my-agent/1.0 outpost-agent-tools/${VERSION}`;
 * assert.match(userAgent, /outpost-agent-tools\/\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION = "0.1.0";

/** Where the project lives, named in our default `User-Agent`. */
const PROJECT_URL = "https://jsr.io/@outpost/agent-tools";

/**
 * Our default `User-Agent` for every request we send: a browser-compatible token, then who we are
 * and where to read about us.
 */
export const USER_AGENT =
  `Mozilla/5.0 (compatible; outpost-agent-tools/${VERSION}; +${PROJECT_URL})`;
