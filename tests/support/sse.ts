/** One Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/** Reads Server-Sent Events from a fetch response, one `next()` per event. */
export function sseEvents(
  response: Response,
): { next(): Promise<SseEvent>; close(): Promise<void> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
          }
          if (!fields.has("data")) continue;
          return {
            id: fields.get("id"),
            event: fields.get("event") ?? "message",
            data: JSON.parse(fields.get("data")!),
          };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the event stream ended");
        buffer += value;
      }
    },
    close: () => reader.cancel(),
  };
}
