import type { HumanQuestion, QuestionChannel } from "../human/question_channel.ts";

/** One change to the set of pending questions, as a Server-Sent Event carries it. */
type QuestionEvent =
  | { type: "asked"; at: number; id: string; data: HumanQuestion }
  | {
    type: "answered";
    at: number;
    id: string;
    data: { id: string; answer: string; resolvedAt: string };
  }
  | {
    type: "cancelled";
    at: number;
    id: string;
    data: { id: string; reason: string; resolvedAt: string };
  };

const CURSOR_PREFIX = "q:";
/** More ids than any console shows; bounds what a forged `Last-Event-ID` can make us look up. */
const MAX_CURSOR_IDS = 1000;
const KEEP_ALIVE_MS = 15_000;
const RETRY_MS = 2_000;
const encoder = new TextEncoder();

/**
 * The event id is a cursor: the ids of the questions pending once the event is applied. A client
 * that reconnects with it as `Last-Event-ID` gets exactly the changes from that state to the
 * channel's current one, so the stream needs no server-side log and survives restarts, several
 * instances and durable channels alike. A question asked and resolved while the client was away
 * is not replayed: it never was pending from the client's point of view.
 */
function encodeCursor(ids: readonly string[]): string {
  return CURSOR_PREFIX + ids.map(encodeURIComponent).join(",");
}

function decodeCursor(lastEventId: string | null): string[] {
  if (!lastEventId?.startsWith(CURSOR_PREFIX)) return [];
  const body = lastEventId.slice(CURSOR_PREFIX.length);
  if (body === "") return [];
  const ids: string[] = [];
  for (const part of body.split(",").slice(0, MAX_CURSOR_IDS)) {
    try {
      ids.push(decodeURIComponent(part));
    } catch {
      return [];
    }
  }
  return ids;
}

/**
 * Streams the changes of a {@linkcode QuestionChannel}'s pending questions as Server-Sent
 * Events (`asked`, `answered`, `cancelled`). It relies only on `pending` and `get(id)`, so it
 * works with every channel; it polls, and `nudge()` makes every open stream look at once.
 */
export class QuestionEvents {
  readonly #channel: QuestionChannel;
  readonly #pollIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #wakers = new Set<() => void>();
  readonly #closed = new AbortController();

  constructor(
    channel: QuestionChannel,
    pollIntervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.#channel = channel;
    this.#pollIntervalMs = pollIntervalMs;
    this.#onError = onError;
  }

  /** Makes every open stream poll now, e.g. after an answer given through this app. */
  nudge(): void {
    for (const wake of this.#wakers) wake();
  }

  /** Ends every open stream and refuses new ones; clients reconnect elsewhere. */
  close(): void {
    this.#closed.abort();
    this.nudge();
  }

  /** The event stream for one client, resuming from `lastEventId` when it has one. */
  stream(lastEventId: string | null, signal: AbortSignal): ReadableStream<Uint8Array> {
    let known = decodeCursor(lastEventId);
    let stopped = false;
    let wake = () => {};
    const stop = () => {
      stopped = true;
      wake();
    };
    const closed = this.#closed.signal;
    const sleep = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#pollIntervalMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        wake = done;
        this.#wakers.add(done);
      }).finally(() => this.#wakers.delete(wake));

    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        signal.addEventListener("abort", stop, { once: true });
        closed.addEventListener("abort", stop, { once: true });
        const run = async () => {
          controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
          let lastWrite = Date.now();
          while (!stopped && !closed.aborted) {
            const events = await this.#changes(known);
            if (stopped) break;
            for (const event of events) {
              known = event.type === "asked"
                ? [...known, event.id]
                : known.filter((id) => id !== event.id);
              controller.enqueue(encoder.encode(
                `id: ${encodeCursor(known)}\nevent: ${event.type}\ndata: ${
                  JSON.stringify(event.data)
                }\n\n`,
              ));
            }
            if (events.length > 0) {
              lastWrite = Date.now();
            } else if (Date.now() - lastWrite >= KEEP_ALIVE_MS) {
              // Proxies drop connections that stay silent; a comment keeps this one open.
              controller.enqueue(encoder.encode(": keep-alive\n\n"));
              lastWrite = Date.now();
            }
            await sleep();
          }
        };
        run()
          .catch((error) => {
            if (!stopped) this.#onError(error);
          })
          .finally(() => {
            signal.removeEventListener("abort", stop);
            closed.removeEventListener("abort", stop);
            try {
              controller.close();
            } catch {
              // The client cancelled the stream first.
            }
          });
      },
      cancel: stop,
    });
  }

  /** What changed between the `known` pending ids and the channel's pending questions now. */
  async #changes(known: readonly string[]): Promise<QuestionEvent[]> {
    const pending = await this.#channel.pending;
    const pendingIds = new Set(pending.map((q) => q.id));
    const knownIds = new Set(known);
    const events: QuestionEvent[] = [];
    for (const id of known) {
      if (pendingIds.has(id)) continue;
      const record = await this.#channel.get(id);
      if (record?.status === "pending") continue;
      if (record?.status === "answered") {
        const { answer, resolvedAt } = record;
        events.push({
          type: "answered",
          at: Date.parse(resolvedAt),
          id,
          data: { id, answer, resolvedAt },
        });
      } else {
        const resolvedAt = record?.resolvedAt ?? new Date().toISOString();
        const reason = record?.reason ?? "The channel no longer knows this question.";
        events.push({
          type: "cancelled",
          at: Date.parse(resolvedAt),
          id,
          data: { id, reason, resolvedAt },
        });
      }
    }
    for (const question of pending) {
      if (knownIds.has(question.id)) continue;
      events.push({
        type: "asked",
        at: Date.parse(question.askedAt),
        id: question.id,
        data: question,
      });
    }
    return events.sort((a, b) => (a.at || 0) - (b.at || 0));
  }
}
