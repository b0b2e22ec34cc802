/**
 * The packages only the tests use, named here rather than in deno.json's `imports`: Deno
 * installs every package of the import map, and of the lockfile it runs with, before it runs
 * anything, so a newcomer's first `deno task start` would fetch a browser driver and three
 * model SDKs it never loads. `dev.lock` pins their versions (`deno.lock` pins only what the
 * service and the published modules load); the test task and CI run with `--lock=dev.lock`.
 *
 * @module
 */
export { chromium } from "npm:playwright-core@^1.65.1";
export { default as fc } from "npm:fast-check@^4.11.0";
export { asSchema, type ToolSet } from "npm:ai@^7.0.173";
export type { default as Anthropic } from "npm:@anthropic-ai/sdk@^1.14.0";
export type { default as OpenAI } from "npm:openai@^7.59.0";
