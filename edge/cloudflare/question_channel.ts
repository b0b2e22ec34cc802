import type { QuestionChannel } from "../../src/human/question_channel.ts";
import type {
  ApprovalDecision,
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "../../src/human/question.ts";
import { REATTACH_WINDOW_MS } from "../../src/human/question_channel.ts";
import { SetupError, ToolError } from "../../src/errors.ts";
import { questionFeed } from "../../src/human/question_feed.ts";
import { outcomeOf, withdrawalReason } from "../../src/human/question_lifecycle.ts";
import {
  answerOutcome,
  checkLength,
  MAX_QUESTION_ID_LENGTH,
  resolvedLimit,
} from "../../src/human/question_support.ts";
import {
  limitsOption,
  type QuestionLimits,
  TooManyQuestionsError,
} from "../../src/human/question_limits.ts";
import { type Clock, sleep, systemClock } from "../../src/clock.ts";
import { checkOption, integerAtLeast, positiveInteger } from "../../src/option_checks.ts";
import { ChangeWatch, MAX_FAILURES } from "./change_watch.ts";
import type { ChannelCall } from "./question_object.ts";

export { QuestionChannelObject } from "./question_object.ts";
import type {
  DurableObjectNamespaceLike,
  DurableObjectQuestionChannelOptions,
} from "./question_channel_options.ts";

const DAY = 24 * 60 * 60 * 1000;

/**
 * A durable {@linkcode QuestionChannel} on a Cloudflare Durable Object: one object of the
 * {@linkcode QuestionChannelObject} class per channel name keeps the questions in SQLite, so
 * they survive restarts and are shared by every Worker instance.
 *
 * Waiting is built for Workers, where a signal cannot reach the object and a client's hang-up is
 * not reliably reported: `ask` stores the question (or finds the one already asked under its
 * key) before it waits, then waits in slices of `waitSliceMs`, each a request that the answer
 * ends at once; a slice cut off by a restart of the object is simply waited again. Each slice
 * renews the asker's lease on the question. Aborting `signal` withdraws the question unless
 * another asker holds it; a question without a key whose asker vanished is withdrawn when its
 * lease lapses, and one with a key stays pending for a retry of the same tool call, which
 * re-attaches to it, or gets its answer at once (if it came within `reattachMs`), even after the
 * Worker or the object restarted.
 * The first answer wins. Resolved questions expire after `retainMs`, by the object's alarm.
 *
 * The channel keeps only the namespace binding and a name, never a stub or a controller, so it
 * may be built per request (as the Worker entry does) or once per isolate.
 *
 * @example
 * ```ts
 * // Not asserted: the channel needs a Durable Object binding, which only workerd provides.
 * import { askHuman } from "@outpost/agent-tools/human";
 * import {
 *   DurableObjectQuestionChannel,
 *   type DurableObjectNamespaceLike,
 * } from "@outpost/agent-tools/cloudflare";
 *
 * function tools(env: { OUTPOST_QUESTIONS: DurableObjectNamespaceLike }) {
 *   return [askHuman(new DurableObjectQuestionChannel(env.OUTPOST_QUESTIONS, "default"))];
 * }
 * ```
 */
export class DurableObjectQuestionChannel implements QuestionChannel {
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #name: string;
  readonly #sliceMs: number;
  readonly #leaseMs: number;
  readonly #retainMs: number;
  readonly #reattachMs: number;
  readonly #expireMs: number;
  readonly #limits: Required<QuestionLimits>;
  readonly #clock: Clock;
  #closedReason?: string;
  /** Wake-ups of this object's waits, called by `close()`. */
  readonly #wakers = new Set<() => void>();

  /** Uses the object named `name` in `namespace`; throws {@linkcode SetupError} for bad options. */
  constructor(
    namespace: DurableObjectNamespaceLike,
    name: string,
    options: DurableObjectQuestionChannelOptions = {},
  ) {
    if (typeof namespace?.idFromName !== "function" || typeof namespace.get !== "function") {
      throw new SetupError(
        "DurableObjectQuestionChannel needs a Durable Object namespace binding.",
        {
          hint: 'Bind QuestionChannelObject in wrangler.jsonc ("durable_objects") and pass ' +
            "env.<BINDING>.",
        },
      );
    }
    if (typeof name !== "string" || name === "") {
      throw new SetupError("DurableObjectQuestionChannel needs a channel name, e.g. 'default'.");
    }
    const {
      waitSliceMs = 30_000,
      leaseGraceMs = 30_000,
      retainMs = 7 * DAY,
      reattachMs = REATTACH_WINDOW_MS,
      expireMs = 60 * 60_000,
    } = options;
    for (const [name, value] of Object.entries({ waitSliceMs, leaseGraceMs, retainMs, expireMs })) {
      checkOption(name, value, positiveInteger);
    }
    this.#namespace = namespace;
    this.#name = name;
    this.#sliceMs = waitSliceMs;
    this.#leaseMs = waitSliceMs + leaseGraceMs;
    this.#retainMs = retainMs;
    this.#reattachMs = checkOption("reattachMs", reattachMs, integerAtLeast(0));
    this.#expireMs = expireMs;
    this.#limits = limitsOption(options.limits);
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Asks a question, or re-attaches to the same question already asked under `request.key`, and
   * waits for its outcome. Aborting `signal` withdraws the question, unless another asker holds
   * it or it was resolved first (then this resolves with that outcome), and rejects with the
   * signal's reason. Throws a {@linkcode ToolError} when the object cannot be reached: before the
   * question was stored, or while waiting (then it stays pending, and a retry with the same key
   * re-attaches to it); `TooManyQuestionsError` for a new question beyond `limits`.
   */
  async ask(
    request: QuestionRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<QuestionOutcome> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#closedReason !== undefined) return { status: "closed", reason: this.#closedReason };
    const waiter = crypto.randomUUID();
    let opened: { record: QuestionRecord } | { full: { what: string; max: number } };
    try {
      opened = await this.#call({
        op: "open",
        request,
        waiter,
        leaseMs: this.#leaseMs,
        retainMs: this.#retainMs,
        reattachMs: this.#reattachMs,
        expireMs: this.#expireMs,
        // JSON has no Infinity (it would arrive as null, a cap of 0): no cap is sent as none.
        ...Object.fromEntries(Object.entries(this.#limits).filter(([, max]) => max !== Infinity)),
      });
    } catch (error) {
      // Not retried here: without a key, a retry could ask twice.
      throw new ToolError("The question channel could not be reached; nothing was asked.", {
        hint: "Try again in a minute, or go on without the answer.",
        code: "unavailable",
        cause: error,
      });
    }
    if ("full" in opened) throw new TooManyQuestionsError(opened.full.what, opened.full.max);
    const { record } = opened;
    if (record.status !== "pending") return outcomeOf(record);
    return await this.#wait(record.question.id, waiter, signal);
  }

  /** The questions still waiting for an answer, oldest first. */
  get pending(): Promise<readonly HumanQuestion[]> {
    return this.#call<{ questions: HumanQuestion[] }>({ op: "pending" }).then((r) => r.questions);
  }

  /**
   * The questions as they are asked, in ask order, starting with those pending now; ends when
   * this channel object closes. It learns of new questions by a WebSocket the object pushes to,
   * so waiting for one costs no requests.
   */
  questions(): AsyncIterableIterator<HumanQuestion> {
    let watch: ChangeWatch | undefined;
    return questionFeed({
      after: async (seq) => {
        if (this.#closedReason !== undefined) return undefined;
        // Watch before reading, so that a question asked in between still wakes the feed.
        watch ??= new ChangeWatch(() => this.#stub());
        await watch.ready();
        const { next } = await this.#call<{
          next: { seq: number; question: HumanQuestion } | null;
        }>({ op: "after", seq });
        return next ?? undefined;
      },
      wait: (signal) => this.#untilClosed(signal, (stop) => watch!.next(stop)),
      close: () => watch?.close(),
    });
  }

  /**
   * Yields once connected to the object, then each time the channel's questions may have changed
   * (asked, answered, cancelled), as the object pushes it, and once more after a dropped
   * connection is made again (changes in between are not replayed: read `pending` again). Ends
   * when `signal` aborts or this object closes; throws when the object cannot be reached again.
   */
  async *changes(signal: AbortSignal): AsyncGenerator<void> {
    const watch = new ChangeWatch(() => this.#stub());
    try {
      await watch.ready();
      yield;
      while (await this.#untilClosed(signal, (stop) => watch.next(stop))) yield;
    } finally {
      watch.close();
    }
  }

  /** What the object knows of `id`: `undefined` for an unknown or expired id. */
  async get(id: string): Promise<QuestionRecord | undefined> {
    if (id.length > MAX_QUESTION_ID_LENGTH) return undefined;
    return (await this.#call<{ record: QuestionRecord | null }>({ op: "get", id })).record ??
      undefined;
  }

  /**
   * The most recently resolved questions the object still keeps (for `retainMs`), newest first,
   * at most `limit` (capped at 100): one request, an indexed query in the object. Throws a
   * `RangeError` for a `limit` that is not a positive whole number.
   */
  async resolved(limit: number): Promise<readonly QuestionRecord[]> {
    const call = { op: "resolved", limit: resolvedLimit(limit) } as const;
    return (await this.#call<{ records: QuestionRecord[] }>(call)).records;
  }

  /**
   * Answers the question (with a text or, for an approval, a decision) if it is still pending;
   * `true` when this call resolved it, or the question already has this very answer (a retry
   * after a lost response). Throws a `RangeError`, changing nothing, for a text or reason longer
   * than `MAX_ANSWER_LENGTH`.
   */
  answer(id: string, answer: string | ApprovalDecision): Promise<boolean> {
    return this.#resolve(id, answerOutcome(answer));
  }

  /**
   * Cancels the question if it is still pending; `true` when this call resolved it, or an
   * earlier cancel did with the same reason. Throws a `RangeError`, changing nothing, for a
   * reason longer than `MAX_ANSWER_LENGTH`.
   */
  cancel(id: string, reason = "cancelled"): Promise<boolean> {
    checkLength("reason", reason);
    return this.#resolve(id, { status: "cancelled", reason });
  }

  /**
   * Ends the waits and iterators of this channel object: its asks resolve `closed`, and the
   * stored questions stay pending for a retry to re-attach to. Idempotent.
   */
  close(reason = "channel closed"): void {
    this.#closedReason ??= reason;
    for (const wake of [...this.#wakers]) wake();
  }

  async #resolve(id: string, outcome: QuestionOutcome): Promise<boolean> {
    if (id.length > MAX_QUESTION_ID_LENGTH) return false;
    const { resolved } = await this.#call<{ resolved: boolean }>({
      op: "resolve",
      id,
      outcome,
    });
    return resolved;
  }

  /** Waits, slice after slice, until question `id` is resolved, `signal` aborts, or close. */
  async #wait(
    id: string,
    waiter: string,
    signal: AbortSignal | undefined,
  ): Promise<QuestionOutcome> {
    let failures = 0;
    for (;;) {
      if (signal?.aborted) return await this.#withdraw(id, waiter, signal);
      if (this.#closedReason !== undefined) {
        return { status: "closed", reason: this.#closedReason };
      }
      try {
        const slice = this.#call<{ record: QuestionRecord | null }>({
          op: "wait",
          id,
          waiter,
          sliceMs: this.#sliceMs,
          leaseMs: this.#leaseMs,
          expireMs: this.#expireMs,
        });
        // The slice goes on in the object if we stop listening; it ends on its own.
        slice.catch(() => {});
        const result = await this.#untilClosed(signal, () => slice);
        if (result === false) continue;
        failures = 0;
        if (!result.record) {
          return { status: "cancelled", reason: "the question is gone from the channel" };
        }
        if (result.record.status !== "pending") return outcomeOf(result.record);
      } catch (error) {
        // The object restarted, or the network between us failed: wait again, a few times.
        if (++failures >= MAX_FAILURES) {
          throw new ToolError(
            "The question channel could not be reached; the question stays pending.",
            {
              hint: "Call again with the same tool-call id to go on waiting for the answer.",
              code: "unavailable",
              cause: error,
            },
          );
        }
        const delay = 100 * 2 ** failures;
        await this.#untilClosed(signal, () => sleep(delay, { clock: this.#clock }));
      }
    }
  }

  async #withdraw(id: string, waiter: string, signal: AbortSignal): Promise<QuestionOutcome> {
    let result: { withdrawn: boolean; record: QuestionRecord | null } | undefined;
    try {
      result = await this.#call({
        op: "withdraw",
        id,
        waiter,
        reason: withdrawalReason(signal.reason),
      });
    } catch {
      // The object cannot be reached: the asker's lease lapses instead, which withdraws a
      // question without a key; one with a key waits for a retry to re-attach.
    }
    // Resolved first (by an operator, not by a withdrawal): that outcome stands.
    const record = result?.record;
    if (result && !result.withdrawn && record && record.status !== "pending") {
      return outcomeOf(record);
    }
    throw signal.reason;
  }

  /**
   * Runs `work` until it settles, or resolves `false` as soon as `signal` aborts or this object
   * closes. `work` receives a promise that settles then, to end what it waits on itself.
   */
  #untilClosed<T>(
    signal: AbortSignal | undefined,
    work: (stop: Promise<void>) => Promise<T>,
  ): Promise<T | false> {
    if (signal?.aborted || this.#closedReason !== undefined) return Promise.resolve(false);
    let wake!: () => void;
    const stop = new Promise<void>((resolve) => wake = resolve);
    const onAbort = () => wake();
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#wakers.add(wake);
    return Promise.race([work(stop), stop.then(() => false as const)]).finally(() => {
      signal?.removeEventListener("abort", onAbort);
      this.#wakers.delete(wake);
      wake();
    });
  }

  #stub() {
    return this.#namespace.get(this.#namespace.idFromName(this.#name));
  }

  async #call<T>(call: ChannelCall): Promise<T> {
    const response = await this.#stub().fetch(`https://question-channel/${call.op}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(call),
    });
    if (!response.ok) {
      throw new Error(`The question channel answered ${response.status}: ${await response.text()}`);
    }
    return await response.json() as T;
  }
}
