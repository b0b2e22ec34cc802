import type { Tracer } from "../../../src/tracer.ts";
import { VERSION } from "../../../src/version.ts";

/**
 * Deno's built-in OpenTelemetry tracer when it is on (`OTEL_DENO=true`), else `undefined`, so
 * that calls then start no spans at all. It is the provider Deno registers with
 * `@opentelemetry/api`: our spans share their traces with `Deno.serve`'s and `fetch`'s, and with
 * the spans of any code that uses the API, without the package being loaded here.
 */
export function denoTracer(): Tracer | undefined {
  if (Deno.env.get("OTEL_DENO") !== "true") return undefined;
  return Deno.telemetry.tracerProvider.getTracer("outpost", VERSION);
}
