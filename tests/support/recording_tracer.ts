import { AsyncLocalStorage } from "node:async_hooks";
import type { Tracer, TraceSpan } from "../../mod.ts";

/** A span as the recording tracer keeps it. */
export interface RecordedSpan {
  name: string;
  kind: number | undefined;
  attributes: Record<string, string | number | boolean>;
  status?: { code: number; message?: string };
  exceptions: (Error | string)[];
  parent?: RecordedSpan;
  ended: boolean;
}

/**
 * A tracer that records its spans and carries the active one across `await` as OpenTelemetry's
 * context managers do (AsyncLocalStorage), so that parent and child are as a real tracer has them.
 */
export function recordingTracer(): Tracer & { spans: RecordedSpan[] } {
  const active = new AsyncLocalStorage<RecordedSpan>();
  const spans: RecordedSpan[] = [];
  const start = (
    name: string,
    options: { kind?: number; attributes?: Record<string, string | number | boolean> } = {},
  ): [RecordedSpan, TraceSpan] => {
    const record: RecordedSpan = {
      name,
      kind: options.kind,
      attributes: { ...options.attributes },
      exceptions: [],
      parent: active.getStore(),
      ended: false,
    };
    spans.push(record);
    const span: TraceSpan = {
      setAttribute(key, value) {
        record.attributes[key] = value;
        return span;
      },
      setStatus(status) {
        record.status = status;
        return span;
      },
      recordException(exception) {
        record.exceptions.push(exception);
      },
      end() {
        record.ended = true;
      },
    };
    return [record, span];
  };
  return {
    spans,
    startSpan: (name, options) => start(name, options)[1],
    startActiveSpan(name, options, fn) {
      const [record, span] = start(name, options);
      return active.run(record, () => fn(span)) as ReturnType<typeof fn>;
    },
  };
}
