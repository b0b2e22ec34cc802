import type { HumanQuestion, QuestionChannel, QuestionRecord } from "../human/question_channel.ts";
import { sha256 } from "../sha256.ts";

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

/** Options of {@linkcode QuestionEvents}. */
export interface QuestionEventsOptions {
  /** How often the shared poller reads the channel, in milliseconds. */
  pollIntervalMs: number;
  /** How many streams may be open at once; more are refused. */
  maxStreams: number;
  /** Receives a failure to read the channel, which ends every open stream. */
  onError: (error: unknown) => void;
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
  /** Whether the client's cursor could not be honoured, so it must drop what it shows. */
  reset = false;
  lastWrite = Date.now();
  stalledSince?: number;

  constructor(readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

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
  return `${DIGEST_PREFIX}${size}.${
    Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

/** The ids a list cursor names, or `undefined` when it is not one we could have sent. */
function decodeList(cursor: string): string[] | undefined {
  if (cursor.length > MAX_LIST_CURSOR) return undefined;
  const body = cursor.slice(LIST_PREFIX.length);
  if (body === "") return [];
  try {
    return body.split(",").map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/**
 * Streams the changes of a {@linkcode QuestionChannel}'s pending questions as Server-Sent
 * Events (`asked`, `answered`, `cancelled`, and `reset` when a resumed stream has to start
 * over). It relies only on `pending` and `get(id)`, so it works with every channel. One shared
 * poller reads the channel for all open streams, whatever their number; `nudge()` makes it look
 * at once.
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
  /** Hashes of the ids pending at the last poll, kept between polls. */
  #hashes = new Map<string, Uint8Array>();
  #polling = false;
  #closed = false;
  #wake = () => {};
  #woken = false;

  constructor(channel: QuestionChannel, options: QuestionEventsOptions) {
    this.#channel = channel;
    this.#options = options;
  }

  /** Makes the poller look now, e.g. after an answer given through this app. */
  nudge(): void {
    this.#woken = true;
    this.#wake();
  }

  /** Ends every open stream and refuses new ones; clients reconnect elsewhere. */
  close(): void {
    this.#closed = true;
    for (const subscriber of this.#subscribers) this.#drop(subscriber);
    this.nudge();
  }

  /**
   * The event stream for one client, resuming from `lastEventId` when it has one, or
   * `undefined` when closed or when `maxStreams` are open already.
   */
  async open(
    lastEventId: string | null,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array> | undefined> {
    let restored: [string, Uint8Array][] = [];
    let reset = false;
    if (lastEventId?.startsWith(LIST_PREFIX)) {
      const ids = decodeList(lastEventId);
      if (ids) restored = await Promise.all(ids.map(async (id) => [id, await hashId(id)]));
      else reset = true;
    } else if (lastEventId?.startsWith(DIGEST_PREFIX)) {
      // A digest names the set only if it is still the pending one; then that set is known.
      const pending = await this.#channel.pending;
      const hashed = await Promise.all(
        pending.map(async (q): Promise<[string, Uint8Array]> => [q.id, await hashId(q.id)]),
      );
      const digest = new Uint8Array(DIGEST_BYTES);
      for (const [, hash] of hashed) xorInto(digest, hash);
      if (digestCursor(hashed.length, digest) === lastEventId) restored = hashed;
      else reset = true;
    } else if (lastEventId) {
      reset = true;
    }
    if (this.#closed || this.#subscribers.size >= this.#options.maxStreams) return undefined;
    let subscriber: Subscriber;
    const drop = () => this.#drop(subscriber);
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        subscriber = new Subscriber(controller);
        for (const [id, hash] of restored) subscriber.add(id, hash);
        subscriber.reset = reset;
        controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
        signal.addEventListener("abort", drop, { once: true });
        this.#subscribers.add(subscriber);
        this.#start();
      },
      cancel: drop,
      // A plain strategy rather than ByteLengthQueuingStrategy, which some runtimes lack.
    }, { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength });
  }

  #drop(subscriber: Subscriber): void {
    if (!this.#subscribers.delete(subscriber)) return;
    try {
      subscriber.controller.close();
    } catch {
      // The client cancelled the stream first.
    }
  }

  #start(): void {
    this.nudge();
    if (this.#polling) return;
    this.#polling = true;
    this.#poll()
      .catch((error) => {
        if (this.#subscribers.size > 0) this.#options.onError(error);
        for (const subscriber of this.#subscribers) this.#drop(subscriber);
      })
      .finally(() => {
        this.#polling = false;
        // A stream may have opened as the poller stopped.
        if (this.#subscribers.size > 0 && !this.#closed) this.#start();
      });
  }

  async #poll(): Promise<void> {
    while (this.#subscribers.size > 0 && !this.#closed) {
      this.#woken = false;
      const pending = await this.#channel.pending;
      const hashes = new Map<string, Uint8Array>();
      for (const question of pending) {
        hashes.set(question.id, this.#hashes.get(question.id) ?? await hashId(question.id));
      }
      this.#hashes = hashes;
      // One `get` per resolved id per poll, however many streams ask about it.
      const records = new Map<string, Promise<QuestionRecord | undefined>>();
      const get = (id: string) => {
        let record = records.get(id);
        if (!record) records.set(id, record = Promise.resolve(this.#channel.get(id)));
        return record;
      };
      for (const subscriber of [...this.#subscribers]) {
        await this.#deliver(subscriber, pending, hashes, get);
      }
      if (this.#woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#options.pollIntervalMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.#wake = done;
      });
      this.#wake = () => {};
    }
  }

  /** Sends one subscriber what changed for it, as one chunk, unless it is not reading. */
  async #deliver(
    subscriber: Subscriber,
    pending: readonly HumanQuestion[],
    hashes: ReadonlyMap<string, Uint8Array>,
    get: (id: string) => Promise<QuestionRecord | undefined>,
  ): Promise<void> {
    const now = Date.now();
    // A full queue means the client is not reading: send nothing more (its cursor stays put,
    // so it catches up in one go later) and drop it if it stays that way.
    if ((subscriber.controller.desiredSize ?? 1) <= 0) {
      subscriber.stalledSince ??= now;
      if (now - subscriber.stalledSince >= STALLED_MS) this.#drop(subscriber);
      return;
    }
    subscriber.stalledSince = undefined;
    let text = "";
    if (subscriber.reset) {
      for (const id of [...subscriber.known.keys()]) subscriber.delete(id);
      text += "event: reset\ndata: {}\n\n";
      subscriber.reset = false;
    }
    const { events, unknown } = await changes(subscriber.known, pending, get);
    for (const id of unknown) subscriber.delete(id);
    for (const event of events) {
      if (event.type === "asked") subscriber.add(event.id, hashes.get(event.id)!);
      else subscriber.delete(event.id);
      text += `id: ${subscriber.cursor()}\nevent: ${event.type}\ndata: ${
        JSON.stringify(event.data)
      }\n\n`;
    }
    if (text === "" && now - subscriber.lastWrite >= KEEP_ALIVE_MS) {
      // Proxies drop connections that stay silent; a comment keeps this one open.
      text = ": keep-alive\n\n";
    }
    if (text === "" || !this.#subscribers.has(subscriber)) return;
    subscriber.controller.enqueue(encoder.encode(text));
    subscriber.lastWrite = now;
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
      const { answer, resolvedAt } = record;
      events.push({
        type: "answered",
        at: Date.parse(resolvedAt),
        id,
        data: { id, answer, resolvedAt },
      });
    } else if (record.status === "cancelled") {
      const { reason, resolvedAt } = record;
      events.push({
        type: "cancelled",
        at: Date.parse(resolvedAt),
        id,
        data: { id, reason, resolvedAt },
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
