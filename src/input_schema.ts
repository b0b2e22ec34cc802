/**
 * A validator in the Standard Schema v1 shape, which zod schemas satisfy. Tools expose their
 * input schema through it so that our public types name no library's internals, and SDKs that
 * accept Standard Schema (the Vercel AI SDK among them) take it as it is.
 *
 * @example
 * ```ts
 * import { now, type InputSchema } from "@outpost/agent-tools";
 * const schema: InputSchema = now.inputSchema;
 * const result = await schema["~standard"].validate({ tz: "UTC" });
 * ```
 */
export interface InputSchema<Output = unknown> {
  /** The Standard Schema interface. */
  readonly "~standard": InputSchemaProps<Output>;
}

/**
 * The properties of an {@linkcode InputSchema}, as Standard Schema v1 defines them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { now, type InputSchemaProps } from "@outpost/agent-tools";
 * const props: InputSchemaProps = now.inputSchema["~standard"];
 * assert.equal(props.vendor, "zod");
 * ```
 */
export interface InputSchemaProps<Output = unknown> {
  /** The Standard Schema version. */
  readonly version: 1;
  /** The library that implements the schema. */
  readonly vendor: string;
  /** Validates a value. */
  readonly validate: (
    value: unknown,
  ) => InputSchemaResult<Output> | Promise<InputSchemaResult<Output>>;
  /** Type carriers for inference; absent at run time. */
  readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
}

/**
 * The result of {@linkcode InputSchemaProps.validate}: the value, or the issues found.
 *
 * @example
 * ```ts
 * import type { InputSchemaResult } from "@outpost/agent-tools";
 * const ok: InputSchemaResult<number> = { value: 1 };
 * ```
 */
export type InputSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
    readonly issues: ReadonlyArray<{
      readonly message: string;
      readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
    }>;
  };
