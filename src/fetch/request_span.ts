import { failSpan, type Tracer, type TraceSpan } from "../tracer.ts";

/** A span's kind: OpenTelemetry's `SpanKind.CLIENT`. */
const CLIENT = 2;

/**
 * Runs one outbound request of `url` (a GET unless `method` says otherwise) inside an HTTP client
 * span (OpenTelemetry's HTTP conventions: `http.request.method`, `server.address`, `server.port`,
 * `url.full`), or bare without a tracer. `url.full` leaves out the query and fragment, which can
 * carry tokens.
 */
export async function requestSpan<T>(
  tracer: Tracer | undefined,
  url: URL,
  run: (span: TraceSpan | undefined) => Promise<T>,
  method = "GET",
): Promise<T> {
  if (!tracer) return await run(undefined);
  const span = tracer.startSpan(method, {
    kind: CLIENT,
    attributes: {
      "http.request.method": method,
      "server.address": url.hostname,
      "server.port": Number(url.port) || (url.protocol === "https:" ? 443 : 80),
      "url.full": `${url.origin}${url.pathname}`,
    },
  });
  try {
    return await run(span);
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}
