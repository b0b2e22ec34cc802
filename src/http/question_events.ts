import { type Clock, systemClock } from "../clock.ts";
import type { QuestionChannel } from "../human/question_channel.ts";
import type { HumanQuestion, QuestionRecord } from "../human/question.ts";
import { MAX_QUESTION_ID_LENGTH } from "../human/question_support.ts";
import { hex, sha256 } from "../sha256.ts";

/** One change to the set of pending questions, as a Server-Sent Event carries it. */
type QuestionEvent =
  | { type: "asked"; at: number; id: string; data: HumanQuestion }
  | {
    type: "answered";
    at: number;
    id: string;
    data: {
      id: string;
      answer: string;
      decision?: "approve" | "deny";
      reason?: string;
      by?: string;
      resolvedAt: string;
    };
  }
  | {
    type: "cancelled";
    at: number;
    id: string;
    data: { id: string; reason: string; withdrawn?: true; resolvedAt: string };
  };

/** Options of {@linkcode QuestionEvents}. */
export interface QuestionEventsOptions {
  /** How often a stream reads a channel that cannot push its changes, in milliseconds. */
  pollIntervalMs: number;
  /** How many streams may be open at once; more are refused. */
  maxStreams: number;
  /** Receives a failure to read the channel, which ends the stream that read it. */
  onError: (error: unknown) => void;
  /** How long a stream may stay silent before it gets a keep-alive comment (default 15 s). */
  keepAliveMs?: number;
  /** Times keep-alives, polls and stalled clients (default the system's clock). */
  clock?: Clock;
}

const LIST_PREFIX = "q:";
const DIGEST_PREFIX = "d:";
/** The longest id list a cursor spells out; larger sets are named by their digest instead. */
const MAX_LIST_CURSOR = 2048;
const DIGEST_BYTES = 16;
const KEEP_ALIVE_MS = 15_000;
const RETRY_MS = 2_000;
/** How much may wait unread for one client before it counts as not reading. */
const QUEUE_BYTES = 1024 * 1024;
/** A client that has not taken what it was sent for this long is dropped; it can reconnect. */
const STALLED_MS = 60_000;
const encoder = new TextEncoder();

/** What one open stream has been told: the ids it knows as pending, and their digest. */
class Subscriber {
  readonly known = new Map<string, Uint8Array>();
  readonly digest = new Uint8Array(DIGEST_BYTES);
  /** The length of the ids' list cursor (`q:` and commas included). */
  listLength = LIST_PREFIX.length;
  lastWrite: number;
  stalledSince?: number;
  /** Ends this stream's reads and waits; the stream's own, so it lives in its request only. */
  readonly stop = new AbortController();
  /** Wakes the stream's wait, to read the channel now. */
  wake = () => {};
  woken = false;

  constructor(readonly controller: ReadableStreamDefaultController<Uint8Array>, now: number) {
    this.lastWrite = now;
  }

  add(id: string, hash: Uint8Array): void {
    this.known.set(id, hash);
    xorInto(this.digest, hash);
    this.listLength += encodeURIComponent(id).length + (this.known.size > 1 ? 1 : 0);
  }

  delete(id: string): void {
    const hash = this.known.get(id);
    if (!hash) return;
    this.known.delete(id);
    xorInto(this.digest, hash);
    this.listLength -= encodeURIComponent(id).length + (this.known.size > 0 ? 1 : 0);
  }

  nudge(): void {
    this.woken = true;
    this.wake();
  }

  /**
   * The event id: a cursor naming the pending set the client knows once the event is applied.
   * Small sets are spelled out, so a resumed stream gets exactly what changed; larger ones are
   * named by their size and the XOR of their ids' hashes, which stays short and is updated in
   * constant time per event. A digest that still matches the pending set resumes silently; one
   * that does not makes the stream start over with a `reset`.
   */
  cursor(): string {
    if (this.listLength <= MAX_LIST_CURSOR) {
      return LIST_PREFIX + [...this.known.keys()].map(encodeURIComponent).join(",");
    }
    return digestCursor(this.known.size, this.digest);
  }
}

function xorInto(target: Uint8Array, hash: Uint8Array): void {
  for (let i = 0; i < DIGEST_BYTES; i++) target[i] ^= hash[i];
}

function digestCursor(size: number, digest: Uint8Array): string {
  return `${DIGEST_PREFIX}${size}.${hex(digest)}`;
}

/** The ids a list cursor names, or `undefined` when it is not one we could have sent. */
function decodeList(cursor: string): string[] | undefined {
  if (cursor.length > MAX_LIST_CURSOR) return undefined;
  const body = cursor.slice(LIST_PREFIX.length);
  if (body === "") return [];
  try {
    const ids = body.split(",").map(decodeURIComponent);
    return ids.every((id) => id !== "" && id.length <= MAX_QUESTION_ID_LENGTH) ? ids : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Streams the changes of a {@linkcode QuestionChannel}'s pending questions as Server-Sent
 * Events (`asked`, `answered`, `cancelled`, and `reset` when a resumed stream has to start
 * over). It relies only on `pending` and `get(id)`, so it works with every channel.
 *
 * Each stream is its own reader of the channel, running in the request that opened it (a
 * Workers runtime allows no I/O on behalf of another request), and a failure ends that stream
 * only. A stream waits for the channel's `changes()` where the channel offers them (every
 * channel of this package pushes them: an idle stream reads nothing), and otherwise reads the
 * channel every `pollIntervalMs`; `nudge()` makes every stream of this object look at once.
 *
 * Event ids are cursors over the pending set (see `Subscriber.cursor`), so resuming
 * with `Last-Event-ID` needs no server-side log and survives restarts, several instances and
 * durable channels alike. A question asked and resolved while the client was away is not
 * replayed: it never was pending from the client's point of view.
 */
export class QuestionEvents {
  readonly #channel: QuestionChannel;
  readonly #options: QuestionEventsOptions;
  readonly #subscribers = new Set<Subscriber>();
  readonly #keepAliveMs: number;
  readonly #clock: Clock;
  #closed = false;

  constructor(channel: QuestionChannel, options: QuestionEventsOptions) {
    this.#channel = channel;
    this.#options = options;
    this.#keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#clock = options.clock ?? systemClock;
  }

  /** Makes every open stream read the channel now, e.g. after an answer given through this app. */
  nudge(): void {
    for (const subscriber of this.#subscribers) subscriber.nudge();
  }

  /** Ends every open stream and refuses new ones; clients reconnect elsewhere. */
  close(): void {
    this.#closed = true;
    for (const subscriber of this.#subscribers) this.#drop(subscriber);
  }

  /**
   * The event stream for one client, resuming from `lastEventId` when it has one, or
   * `undefined` when closed or when `maxStreams` are open already.
   */
  open(lastEventId: string | null, signal: AbortSignal): ReadableStream<Uint8Array> | undefined {
    if (this.#closed || this.#subscribers.size >= this.#options.maxStreams) return undefined;
    let subscriber: Subscriber;
    const drop = () => this.#drop(subscriber);
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        subscriber = new Subscriber(controller, this.#clock.now());
        controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
        signal.addEventListener("abort", drop, { once: true });
        this.#subscribers.add(subscriber);
        this.#run(subscriber, lastEventId)
          .catch((error) => {
            if (!subscriber.stop.signal.aborted) this.#options.onError(error);
          })
          .finally(drop);
      },
      cancel: drop,
      // A plain strategy rather than ByteLengthQueuingStrategy, which some runtimes lack.
    }, { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength });
  }

  #drop(subscriber: Subscriber): void {
    if (!this.#subscribers.delete(subscriber)) return;
    subscriber.stop.abort();
    subscriber.wake();
    try {
      subscriber.controller.close();
    } catch {
      // The client cancelled the stream first.
    }
  }

  /** One stream's reader: restores its cursor, then delivers each change until it ends. */
  async #run(subscriber: Subscriber, lastEventId: string | null): Promise<void> {
    const { signal } = subscriber.stop;
    // Listen before the first read, so that a change in between still wakes the stream.
    const changes = this.#channel.changes?.(signal)[Symbol.asyncIterator]();
    let changed: Promise<string> | undefined;
    try {
      // The first yield says the channel is watched, so that the first read misses nothing.
      if (changes && (await changes.next()).done) return;
      let reset = !(await this.#restore(subscriber, lastEventId));
      // Whether to read the channel: always, but when a pushing channel's stream only woke to
      // keep its connection alive.
      let read = true;
      while (!signal.aborted) {
        subscriber.woken = false;
        reset = await this.#deliver(subscriber, reset, read);
        read = true;
        if (subscriber.woken) continue;
        const waits = [new Promise<string>((resolve) => subscriber.wake = () => resolve("nudge"))];
        // One read of the changes at a time, whatever else wakes the stream meanwhile.
        if (changes) {
          waits.push(
            changed ??= changes.next().then((result) => {
              changed = undefined;
              // The channel closed: its streams end.
              if (result.done) this.#drop(subscriber);
              return "change";
            }),
          );
        }
        const keepAlive = Math.max(
          0,
          subscriber.lastWrite + this.#keepAliveMs - this.#clock.now(),
        );
        const delay = changes ? keepAlive : Math.min(keepAlive, this.#options.pollIntervalMs);
        let cancelTimer = () => {};
        waits.push(
          new Promise((resolve) =>
            cancelTimer = this.#clock.setTimer(() => resolve("timer"), delay)
          ),
        );
        try {
          const woke = await Promise.race(waits);
          read = reset || !changes || woke !== "timer";
        } finally {
          cancelTimer();
          subscriber.wake = () => {};
        }
      }
    } finally {
      await changes?.return?.();
    }
  }

  /**
   * Takes over what the client's `Last-Event-ID` says it knows; `false` when the cursor cannot
   * be honoured, so that the client must drop what it shows.
   */
  async #restore(subscriber: Subscriber, lastEventId: string | null): Promise<boolean> {
    if (!lastEventId) return true;
    if (lastEventId.startsWith(LIST_PREFIX)) {
      const ids = decodeList(lastEventId);
      if (!ids) return false;
      for (const id of ids) subscriber.add(id, await hashId(id));
      return true;
    }
    if (!lastEventId.startsWith(DIGEST_PREFIX) || lastEventId.length > MAX_LIST_CURSOR) {
      return false;
    }
    // A digest names the set only if it is still the pending one; then that set is known.
    const hashed: [string, Uint8Array][] = [];
    for (const q of await this.#channel.pending) hashed.push([q.id, await hashId(q.id)]);
    const digest = new Uint8Array(DIGEST_BYTES);
    for (const [, hash] of hashed) xorInto(digest, hash);
    if (digestCursor(hashed.length, digest) !== lastEventId) return false;
    for (const [id, hash] of hashed) subscriber.add(id, hash);
    return true;
  }

  /**
   * Reads the channel and sends the subscriber what changed for it, as one chunk, unless it is
   * not reading. With `reset`, the client is first told to drop what it shows, and then gets
   * every pending question. Returns whether a reset is still owed (when nothing was sent).
   * Without `read`, it only keeps the connection alive.
   */
  async #deliver(subscriber: Subscriber, reset: boolean, read: boolean): Promise<boolean> {
    const now = this.#clock.now();
    // A full queue means the client is not reading: send nothing more (its cursor stays put,
    // so it catches up in one go later) and drop it if it stays that way.
    if ((subscriber.controller.desiredSize ?? 1) <= 0) {
      subscriber.stalledSince ??= now;
      if (now - subscriber.stalledSince >= STALLED_MS) this.#drop(subscriber);
      return reset;
    }
    subscriber.stalledSince = undefined;
    if (!read) {
      if (now - subscriber.lastWrite >= this.#keepAliveMs) {
        // Proxies drop connections that stay silent; a comment keeps this one open.
        subscriber.controller.enqueue(encoder.encode(": keep-alive\n\n"));
        subscriber.lastWrite = now;
      }
      return reset;
    }
    let text = "";
    if (reset) {
      for (const id of [...subscriber.known.keys()]) subscriber.delete(id);
      text += "event: reset\ndata: {}\n\n";
    }
    const pending = await this.#channel.pending;
    const get = (id: string) => Promise.resolve(this.#channel.get(id));
    const { events, unknown } = await changes(subscriber.known, pending, get);
    for (const id of unknown) subscriber.delete(id);
    for (const event of events) {
      if (event.type === "asked") subscriber.add(event.id, await hashId(event.id));
      else subscriber.delete(event.id);
      text += `id: ${subscriber.cursor()}\nevent: ${event.type}\ndata: ${
        JSON.stringify(event.data)
      }\n\n`;
    }
    if (text === "" && now - subscriber.lastWrite >= this.#keepAliveMs) {
      // Proxies drop connections that stay silent; a comment keeps this one open.
      text = ": keep-alive\n\n";
    }
    if (text === "" || !this.#subscribers.has(subscriber)) return false;
    subscriber.controller.enqueue(encoder.encode(text));
    subscriber.lastWrite = now;
    return false;
  }
}

async function hashId(id: string): Promise<Uint8Array> {
  return (await sha256(id)).subarray(0, DIGEST_BYTES);
}

/**
 * What changed between the `known` pending ids and the channel's pending questions now. An id
 * the channel never had (a forged cursor) or has forgotten is dropped without an event.
 */
async function changes(
  known: ReadonlyMap<string, unknown>,
  pending: readonly HumanQuestion[],
  get: (id: string) => Promise<QuestionRecord | undefined>,
): Promise<{ events: QuestionEvent[]; unknown: string[] }> {
  const pendingIds = new Set(pending.map((q) => q.id));
  const events: QuestionEvent[] = [];
  const unknown: string[] = [];
  for (const id of known.keys()) {
    if (pendingIds.has(id)) continue;
    const record = await get(id);
    if (record === undefined) {
      unknown.push(id);
    } else if (record.status === "answered") {
      // The answer, and the decision, reason and decider where the record has them.
      const { status: _, question: __, ...answered } = record;
      events.push({
        type: "answered",
        at: Date.parse(record.resolvedAt),
        id,
        data: { id, ...answered },
      });
    } else if (record.status === "cancelled") {
      const { reason, withdrawn, resolvedAt } = record;
      events.push({
        type: "cancelled",
        at: Date.parse(resolvedAt),
        id,
        data: { id, reason, ...(withdrawn ? { withdrawn } : {}), resolvedAt },
      });
    }
  }
  for (const question of pending) {
    if (known.has(question.id)) continue;
    events.push({
      type: "asked",
      at: Date.parse(question.askedAt),
      id: question.id,
      data: question,
    });
  }
  return { events: events.sort((a, b) => (a.at || 0) - (b.at || 0)), unknown };
}
