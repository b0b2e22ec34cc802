/** One Server-Sent Event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Reads Server-Sent Events from a fetch response, one `next()` per event. An MCP answer sent as
 * JSON (its responses alone, all there at once) reads as the same events: a message each.
 */
export function sseEvents(
  response: Response,
): { next(): Promise<SseEvent>; close(): Promise<void> } {
  if (response.headers.get("content-type") === "application/json") {
    const messages = response.json().then((body) => [body].flat() as Record<string, unknown>[]);
    return {
      async next() {
        const message = (await messages).shift();
        if (!message) throw new Error("the JSON answer has no more messages");
        return { event: "message", data: message };
      },
      close: async () => void await messages,
    };
  }
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

/**
 * Every JSON-RPC message of an MCP answer read whole: a JSON answer's one message or array, or an
 * SSE answer's events in order.
 */
export async function mcpMessages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if (response.headers.get("content-type") === "application/json") return [JSON.parse(text)].flat();
  return text.split("\n\n").filter(Boolean).map((event) => {
    const data = event.split("\n").find((line) => line.startsWith("data: "));
    return JSON.parse(data!.slice("data: ".length));
  });
}
