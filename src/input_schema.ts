import type { StandardSchemaV1 } from "@standard-schema/spec";

/**
 * A validator in the Standard Schema v1 shape (`@standard-schema/spec`), which zod schemas
 * satisfy. Tools expose their input schema through it so that our public types name no
 * validation library, and SDKs that accept Standard Schema (the Vercel AI SDK among them) take
 * it as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type InputSchema, now } from "@outpost/agent-tools";
 * const schema: InputSchema = now.inputSchema;
 * const result = await schema["~standard"].validate({ tz: "UTC" });
 * assert.equal(result.issues, undefined);
 * ```
 */
// A plain alias (no type arguments) keeps `deno doc --lint` from calling the npm type private.
export type InputSchema = StandardSchemaV1;
