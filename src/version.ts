/** The package version, kept equal to `deno.json` by a test. */
export const VERSION = "0.1.0";

/** Where the project lives, named in our default `User-Agent`. */
export const PROJECT_URL = "https://jsr.io/@outpost/agent-tools";
