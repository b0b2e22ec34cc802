import type { Clock } from "../clock.ts";
import {
  type HumanQuestion,
  MAX_ANSWER_LENGTH,
  type QuestionChannel,
  type QuestionOutcome,
  type QuestionRecord,
  type QuestionRequest,
} from "../human/question_channel.ts";
import { MAX_QUESTION_ID_LENGTH } from "../human/question_support.ts";
import { type QuestionLimits, TooManyQuestionsError } from "../human/question_limits.ts";
import type { ContractCase } from "./contract_case.ts";
import { FakeClock } from "./fake_clock.ts";

/**
 * What {@linkcode questionChannelContract} asks a channel's factory to build for one case: give
 * the channel `clock` (when it takes one) and the options given here; leave the rest at their
 * defaults.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import { questionChannelContract, type QuestionChannelSetup } from "@outpost/agent-tools/testing";
 * const create = ({ clock, reattachMs, limits }: QuestionChannelSetup) => {
 *   const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *   return { channel, close: () => channel.close() };
 * };
 * // Registered here by a no-op instead of Deno.test, which a test file would use:
 * assert.ok(questionChannelContract({ name: "memory", create, test: () => {} }) > 0);
 * ```
 */
export interface QuestionChannelSetup {
  /** The case's clock, which only the case moves; a channel that reads a clock reads this. */
  clock: Clock;
  /** The re-attach window the case needs, when it needs one (else the channel's default). */
  reattachMs?: number;
  /** The caps the case needs, when it needs them (else the channel's defaults). */
  limits?: QuestionLimits;
}

/**
 * The channel one case runs against, as a channel's factory builds it for
 * {@linkcode questionChannelContract}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import type { QuestionChannelFixture } from "@outpost/agent-tools/testing";
 * const channel = new MemoryQuestionChannel();
 * const fixture: QuestionChannelFixture = { channel, close: () => channel.close() };
 * assert.equal(fixture.peer, undefined); // one object, no second process: peer cases are ignored
 * await fixture.close();
 * ```
 */
export interface QuestionChannelFixture {
  /** The channel the case asks through. */
  channel: QuestionChannel;
  /**
   * A second channel object on the same store, as another process would open it, made with the
   * same setup: a durable channel gives one, and the case then answers, cancels and reads
   * through it, and checks what must hold across processes. Without it the case uses `channel`.
   */
  peer?: QuestionChannel;
  /** Closes the channels and releases the store; called once the case ends, pass or fail. */
  close(): void | Promise<void>;
}

/**
 * How to run {@linkcode questionChannelContract} against a channel.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import {
 *   questionChannelContract,
 *   type QuestionChannelContractOptions,
 * } from "@outpost/agent-tools/testing";
 * const options: QuestionChannelContractOptions = {
 *   name: "memory",
 *   create: ({ clock, reattachMs, limits }) => {
 *     const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *     return { channel, close: () => channel.close() };
 *   },
 *   test: Deno.test,
 * };
 * // Registered here by a no-op instead of Deno.test, which a test file would use:
 * assert.ok(questionChannelContract({ ...options, test: () => {} }) > 0);
 * ```
 */
export interface QuestionChannelContractOptions {
  /** Names the implementation in every case's name. */
  name: string;
  /** Builds a fresh channel, on a store of its own, for one case. */
  create(setup: QuestionChannelSetup): QuestionChannelFixture | Promise<QuestionChannelFixture>;
  /**
   * Registers one case with the test runner: `Deno.test` as it is, or an adapter to another
   * runner (`ignore` marks a case that cannot run here, `timeout` bounds it in milliseconds).
   */
  test(definition: ContractCase): unknown;
  /**
   * Whether the channel reads `setup.clock` for `askedAt`, `resolvedAt` and its windows (default
   * `true`). A channel that reads its runtime's clock instead (a Durable Object) says `false`:
   * the cases that need to move the time are then registered as ignored, saying so in their name.
   */
  readsClock?: boolean;
  /**
   * Whether `create` gives a `peer`, a second channel object on the same store (default
   * `false`): the cases of what holds across processes need one, and are ignored without it.
   */
  peer?: boolean;
  /** Each case's time limit, in milliseconds (default 60 000). */
  timeoutMs?: number;
}

/** What one case gets: the fixture's channels, the case's clock, and a way to let time pass. */
interface CaseContext {
  /** The asking channel. */
  asker: QuestionChannel;
  /** The operator's channel: the fixture's peer, or the asking channel itself. */
  operator: QuestionChannel;
  /** The peer, when the fixture has one. */
  peer?: QuestionChannel;
  clock: FakeClock;
  /** Lets at least a millisecond pass on whatever clock the channel reads. */
  tick(): Promise<void>;
}

interface Case {
  name: string;
  /** What the fixture must offer for the case to run. */
  needs?: { clock?: true; peer?: true; resolved?: true; changes?: true };
  /** The setup the case needs besides the clock. */
  setup?: Omit<QuestionChannelSetup, "clock">;
  run(context: CaseContext): Promise<void>;
}

/**
 * Registers the contract suite of {@linkcode QuestionChannel} with `options.test`: every behaviour
 * the package's channels share (the lifecycle pending → answered, cancelled or withdrawn;
 * re-attaching by key within the window; idempotent re-answers; approvals' decisions as data;
 * `questions()`, `resolved()` and `changes()`; the caps; `close()`; the answer and id limits),
 * each case on a fresh channel from `options.create`, with a {@linkcode FakeClock} instead of
 * sleeps. Someone writing a channel on another store (Redis, Postgres) runs it against theirs.
 * Returns how many cases were registered to run (ignored ones not counted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryQuestionChannel } from "@outpost/agent-tools/human";
 * import { type ContractCase, questionChannelContract } from "@outpost/agent-tools/testing";
 * const cases: ContractCase[] = [];
 * const count = questionChannelContract({
 *   name: "memory",
 *   create: ({ clock, reattachMs, limits }) => {
 *     const channel = new MemoryQuestionChannel({ clock, reattachMs, limits });
 *     return { channel, close: () => channel.close() };
 *   },
 *   test: (definition) => cases.push(definition), // or Deno.test
 * });
 * assert.ok(count > 20);
 * await cases[0].fn();
 * ```
 */
export function questionChannelContract(options: QuestionChannelContractOptions): number {
  const { name, create, test, readsClock = true, peer: hasPeer = false } = options;
  const { timeoutMs = 60_000 } = options;
  let running = 0;
  for (const contractCase of CASES) {
    const needs = contractCase.needs ?? {};
    const missing = needs.clock && !readsClock
      ? "the channel does not read the suite's clock"
      : needs.peer && !hasPeer
      ? "the fixture has no second channel object (peer)"
      : undefined;
    running += missing ? 0 : 1;
    test({
      name: `${name}: ${contractCase.name}${missing ? ` (skipped: ${missing})` : ""}`,
      ignore: missing !== undefined,
      timeout: timeoutMs,
      fn: async () => {
        const clock = new FakeClock();
        const fixture = await create({ clock, ...contractCase.setup });
        try {
          const { channel, peer } = fixture;
          check(!peer === !hasPeer, `the fixture ${peer ? "has" : "has no"} peer: say so`);
          // resolved() and changes() are optional: a channel without them is not checked there.
          if (needs.resolved && !channel.resolved) return;
          if (needs.changes && !channel.changes) return;
          await contractCase.run({
            asker: handled(channel),
            operator: handled(peer ?? channel),
            ...(peer ? { peer: handled(peer) } : {}),
            clock,
            tick: async () => {
              await clock.advance(1);
              if (readsClock) return;
              // The channel reads its runtime's clock, which only real time moves.
              const start = Date.now();
              while (Date.now() <= start + 1) await new Promise((r) => setTimeout(r, 1));
            },
          });
        } finally {
          await fixture.close();
        }
      },
    });
  }
  return running;
}

// ---------------------------------------------------------------------------------------------
// Assertions: the suite runs on any runtime and test runner, so it brings its own few.

class ContractError extends Error {
  override name = "ContractError";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ContractError(message);
}

/** Plain data as canonical JSON: keys sorted, `undefined` members left out. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : v,
  );
}

function same(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [canonical(actual), canonical(expected)];
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

/** The error `action` threw or rejected with; fails when it did neither. */
async function failure(action: () => unknown, what: string): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new ContractError(`${what}: expected an error, got none`);
}

/** Polls `condition` (real time) until it holds; fails after 30 s, naming `what`. */
async function eventually(condition: () => unknown, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new ContractError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Whether `promise` has settled, after letting pending jobs run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

// ---------------------------------------------------------------------------------------------
// Helpers on channels.

function request(question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return { question, options: [], multiSelect: false, ...extra };
}

const YES_NO = [{ label: "Yes", description: "Go ahead" }, { label: "No", description: "" }];

async function pending(channel: QuestionChannel): Promise<readonly HumanQuestion[]> {
  return await channel.pending;
}

/**
 * Waits until `channel` lists a pending question asking `text`, and returns it; fails at once
 * if `outcome`, the ask, settles first.
 */
async function asked(
  channel: QuestionChannel,
  text: string,
  outcome?: Promise<QuestionOutcome>,
): Promise<HumanQuestion> {
  let found: HumanQuestion | undefined;
  let ended: unknown;
  outcome?.then((value) => ended ??= canonical(value), (error) => ended ??= error);
  await eventually(async () => {
    if (ended !== undefined) throw new ContractError(`the ask of "${text}" ended: ${ended}`);
    found = (await pending(channel)).find((q) => q.question === text);
    return found;
  }, `the question "${text}" to be pending`);
  return found!;
}

/** `channel` with its asks' rejections marked handled: a case awaits those it checks. */
function handled(channel: QuestionChannel): QuestionChannel {
  return new Proxy(channel, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "ask") {
        return (...args: Parameters<QuestionChannel["ask"]>) => {
          const outcome = target.ask(...args);
          outcome.catch(() => {});
          return outcome;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Waits until `channel` lists exactly `count` pending questions. */
async function pendingCount(channel: QuestionChannel, count: number): Promise<void> {
  await eventually(async () => (await pending(channel)).length === count, `${count} pending`);
}

async function record(channel: QuestionChannel, id: string): Promise<QuestionRecord | undefined> {
  return await channel.get(id);
}

function isWithdrawal(record: QuestionRecord | undefined): boolean {
  return record?.status === "cancelled" && record.withdrawn === true;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// ---------------------------------------------------------------------------------------------
// The cases.

const CASES: Case[] = [
  {
    name: "an ask is pending with what it asked until an answer resolves it",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Which region?", {
        options: YES_NO,
        sessionId: "s",
        runId: "r",
        toolCallId: "t",
      }));
      const question = await asked(operator, "Which region?");
      same(question.options, YES_NO, "options");
      same(
        [question.multiSelect, question.sessionId, question.runId, question.toolCallId],
        [false, "s", "r", "t"],
        "the question's fields",
      );
      check(question.kind === undefined, "a question asked by a model has no kind");
      check(ISO.test(question.askedAt), `askedAt is ISO-8601: ${question.askedAt}`);
      check(typeof question.id === "string" && question.id !== "", "an id");
      check(question.id.length <= MAX_QUESTION_ID_LENGTH, "ids fit MAX_QUESTION_ID_LENGTH");
      same(await record(operator, question.id), { status: "pending", question }, "pending record");
      check(!(await settled(outcome)), "the ask waits");
      check(await operator.answer(question.id, "eu-west") === true, "the answer resolves it");
      same(await outcome, { status: "answered", answer: "eu-west" }, "the outcome");
      const answered = await record(operator, question.id);
      check(answered?.status === "answered", "answered record");
      same(answered.question, question, "the record keeps the question");
      check(ISO.test(answered.resolvedAt), `resolvedAt is ISO-8601: ${answered.resolvedAt}`);
      same(await pending(operator), [], "nothing pending");
    },
  },
  {
    name: "a second answer: the same is true (a retry), another is false and changes nothing",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Deploy?"));
      const { id } = await asked(operator, "Deploy?");
      check(await operator.answer(id, "yes") === true, "the first answer");
      check(await operator.answer(id, "yes") === true, "the same answer again");
      check(await operator.answer(id, "no") === false, "another answer");
      check(await operator.cancel(id) === false, "a cancel after the answer");
      same(await outcome, { status: "answered", answer: "yes" }, "the outcome");
      const answered = await record(asker, id);
      check(answered?.status === "answered" && answered.answer === "yes", "the first answer");
    },
  },
  {
    name: "of concurrent answers and cancels, exactly one wins",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Race?"));
      const { id } = await asked(operator, "Race?");
      const results = await Promise.all([
        operator.answer(id, "a"),
        asker.answer(id, "b"),
        operator.cancel(id, "c"),
      ]);
      same(results.filter(Boolean).length, 1, "winners");
      const won = await outcome;
      const stored = await record(operator, id);
      check(stored?.status === won.status, "the record is the outcome");
    },
  },
  {
    name: "many asks at once each get the answer to their own question",
    async run({ asker, operator, peer }) {
      const askers = peer ? [asker, peer] : [asker];
      const outcomes = Array.from(
        { length: 12 },
        (_, i) => askers[i % askers.length].ask(request(`question ${i}`, { sessionId: `s${i}` })),
      );
      await pendingCount(operator, 12);
      await Promise.all(
        (await pending(operator)).map((q) => operator.answer(q.id, `answer to ${q.question}`)),
      );
      same(
        await Promise.all(outcomes),
        outcomes.map((_, i) => ({ status: "answered", answer: `answer to question ${i}` })),
        "each outcome",
      );
    },
  },
  {
    name: "a key and a session of 3,000 characters each work as short ones do",
    async run({ asker, operator }) {
      const ask = request("Long?", { key: "k".repeat(3000), sessionId: "s".repeat(3000) });
      const first = asker.ask(ask);
      const question = await asked(operator, "Long?");
      same(question.sessionId, ask.sessionId, "the session");
      await operator.answer(question.id, "fine");
      same(await first, { status: "answered", answer: "fine" }, "the outcome");
      same(await asker.ask(ask), { status: "answered", answer: "fine" }, "re-attached");
    },
  },
  {
    name: "an unknown id, or one longer than MAX_QUESTION_ID_LENGTH, is unknown and refused",
    async run({ asker, operator }) {
      const ids = [crypto.randomUUID(), "x".repeat(MAX_QUESTION_ID_LENGTH + 1), "q".repeat(3000)];
      for (const channel of [asker, operator]) {
        for (const id of ids) {
          check(await record(channel, id) === undefined, `get(${id.length} chars)`);
          check(await channel.answer(id, "x") === false, `answer(${id.length} chars)`);
          check(await channel.cancel(id) === false, `cancel(${id.length} chars)`);
        }
      }
    },
  },
  {
    name: "a cancel resolves the ask; the same cancel again is true, another false; no withdrawal",
    async run({ asker, operator }) {
      const plain = asker.ask(request("Proceed?"));
      const first = await asked(operator, "Proceed?");
      check(await operator.cancel(first.id) === true, "the cancel");
      same(await plain, { status: "cancelled", reason: "cancelled" }, "the default reason");
      const reasoned = asker.ask(request("Rotate keys?"));
      const { id } = await asked(operator, "Rotate keys?");
      check(await operator.cancel(id, "withdrawn: by me") === true, "a cancel with a reason");
      check(await operator.cancel(id, "withdrawn: by me") === true, "the same cancel again");
      check(await operator.cancel(id, "other") === false, "another cancel");
      check(await operator.answer(id, "withdrawn: by me") === false, "an answer");
      same(await reasoned, { status: "cancelled", reason: "withdrawn: by me" }, "outcome");
      const cancelled = await record(operator, id);
      check(cancelled?.status === "cancelled", "cancelled record");
      check(cancelled.withdrawn === undefined, "an operator's cancel is never a withdrawal");
      check(ISO.test(cancelled.resolvedAt), "resolvedAt");
    },
  },
  {
    name: "an aborted ask withdraws its question and rejects with the signal's reason",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Wait for me?"), { signal: controller.signal });
      const question = await asked(operator, "Wait for me?");
      const reason = new Error("run stopped");
      controller.abort(reason);
      check(await failure(() => outcome, "the aborted ask") === reason, "the signal's reason");
      same(await pending(operator), [], "withdrawn from pending");
      const withdrawn = await record(operator, question.id);
      check(isWithdrawal(withdrawn), `a withdrawal as data: ${canonical(withdrawn)}`);
      check(
        withdrawn?.status === "cancelled" &&
          withdrawn.reason === "withdrawn: the asking call was aborted",
        "the reason of an abort",
      );
      check(await operator.answer(question.id, "too late") === false, "an answer is refused");
      check(await operator.cancel(question.id, withdrawn.reason) === false, "no retry of it");
    },
  },
  {
    name: "an ask that times out (a TimeoutError) is withdrawn as timed out",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Quick?"), { signal: controller.signal });
      const question = await asked(operator, "Quick?");
      const reason = new DOMException("No answer in time.", "TimeoutError");
      controller.abort(reason);
      check(await failure(() => outcome, "the timed-out ask") === reason, "the signal's reason");
      const withdrawn = await record(operator, question.id);
      check(
        isWithdrawal(withdrawn) && withdrawn?.status === "cancelled" &&
          withdrawn.reason === "withdrawn: the asking call timed out",
        `the reason of a timeout: ${canonical(withdrawn)}`,
      );
    },
  },
  {
    name: "an ask whose signal has already aborted rejects and asks nothing",
    async run({ asker, operator }) {
      const reason = new Error("never");
      const error = await failure(
        () => asker.ask(request("Never asked?"), { signal: AbortSignal.abort(reason) }),
        "the ask",
      );
      check(error === reason, "the signal's reason");
      same(await pending(operator), [], "nothing asked");
    },
  },
  {
    name: "an answer given before the ask aborts is its outcome",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const outcome = asker.ask(request("Proceed?"), { signal: controller.signal });
      const { id } = await asked(operator, "Proceed?");
      check(await operator.answer(id, "go") === true, "the answer");
      controller.abort(new DOMException("late", "TimeoutError"));
      same(await outcome, { status: "answered", answer: "go" }, "the outcome");
      check((await record(operator, id))?.status === "answered", "still answered");
    },
  },
  {
    name: "asks under one key share one question; aborting one keeps it for the other",
    async run({ asker, operator }) {
      const ask = request("Ship it?", { key: "call_1" });
      const holding = asker.ask(ask);
      const question = await asked(operator, "Ship it?");
      const controller = new AbortController();
      const leaving = asker.ask(ask, { signal: controller.signal });
      controller.abort(new Error("gave up"));
      await failure(() => leaving, "the aborted ask");
      same((await pending(operator)).map((q) => q.id), [question.id], "kept for the other ask");
      check(await operator.answer(question.id, "ship") === true, "the answer");
      same(await holding, { status: "answered", answer: "ship" }, "the other ask's outcome");
    },
  },
  {
    name: "an ask through another channel object keeps the question when one under its key aborts",
    needs: { peer: true },
    async run({ asker, peer }) {
      const ask = request("Shared?", { key: "call_2" });
      // Another process asked first and waits; this one re-attaches, then gives up.
      const holding = peer!.ask(ask);
      const question = await asked(asker, "Shared?");
      const controller = new AbortController();
      const leaving = asker.ask(ask, { signal: controller.signal });
      controller.abort(new Error("gave up"));
      await failure(() => leaving, "the aborted ask");
      same((await pending(asker)).map((q) => q.id), [question.id], "kept for the other ask");
      check(await asker.answer(question.id, "ship") === true, "the answer");
      same(await holding, { status: "answered", answer: "ship" }, "the other ask's outcome");
    },
  },
  {
    name: "a resolved question re-attaches by key: its outcome at once, nothing asked",
    async run({ asker, operator, peer }) {
      const ask = request("Run deploy?", { key: "k", kind: "approval" });
      const first = asker.ask(ask);
      const question = await asked(operator, "Run deploy?");
      check(question.kind === "approval", "the kind is copied");
      check(await operator.answer(question.id, "Approve") === true, "the answer");
      const approved = { status: "answered", answer: "Approve", decision: "approve" };
      same(await first, approved, "the outcome");
      for (const channel of peer ? [asker, peer] : [asker]) {
        same(await channel.ask(ask), approved, "the re-attached outcome");
      }
      same(await pending(operator), [], "nothing asked again");
      const cancelled = asker.ask(request("Rotate?", { key: "c" }));
      const { id } = await asked(operator, "Rotate?");
      await operator.cancel(id, "not now");
      same(await cancelled, { status: "cancelled", reason: "not now" }, "the cancel");
      same(await asker.ask(request("Rotate?", { key: "c" })), await cancelled, "a cancel stands");
      same(await pending(operator), [], "nothing asked again");
    },
  },
  {
    name: "a key re-used with another text, options, multiSelect or kind asks afresh",
    async run({ asker, operator }) {
      const base = request("Ship it?", { key: "k", options: YES_NO });
      const variants: QuestionRequest[] = [
        base,
        { ...base, question: "Ship it now?" },
        { ...base, options: [YES_NO[1], YES_NO[0]] },
        { ...base, options: [YES_NO[0], { label: "No", description: "Wait" }] },
        { ...base, options: [YES_NO[0]] },
        { ...base, multiSelect: true },
        { ...base, kind: "approval" },
      ];
      // While the first is pending: each variant is a question of its own.
      const outcomes: Promise<QuestionOutcome>[] = [];
      for (const [index, variant] of variants.entries()) {
        outcomes.push(asker.ask(variant));
        await pendingCount(operator, index + 1);
      }
      const ids = (await pending(operator)).map((q) => q.id);
      same(new Set(ids).size, variants.length, "distinct questions");
      for (const id of ids) check(await operator.answer(id, "No") === true, "each answered");
      for (const outcome of outcomes) check((await outcome).status === "answered", "answered");
      // The key points to the latest of them, which re-attaches; a new variant asks afresh.
      same(await asker.ask(variants[6]), await outcomes[6], "the latest re-attaches");
      const fresh = asker.ask({ ...base, question: "Ship it later?" });
      await pendingCount(operator, 1);
      const [latest] = await pending(operator);
      await operator.answer(latest.id, "later");
      same(await fresh, { status: "answered", answer: "later" }, "asked afresh");
    },
  },
  {
    name: "a withdrawn question's key asks afresh, and then points to the new question",
    async run({ asker, operator }) {
      const controller = new AbortController();
      const ask = request("Wait?", { key: "w" });
      const withdrawn = asker.ask(ask, { signal: controller.signal });
      const first = await asked(operator, "Wait?");
      controller.abort(new Error("timed out"));
      await failure(() => withdrawn, "the aborted ask");
      await eventually(async () => isWithdrawal(await record(operator, first.id)), "withdrawal");
      const again = asker.ask(ask);
      const second = await asked(operator, "Wait?");
      check(second.id !== first.id, "a new question");
      check(await operator.answer(second.id, "ok") === true, "the answer");
      same(await again, { status: "answered", answer: "ok" }, "the outcome");
      same(await asker.ask(ask), { status: "answered", answer: "ok" }, "the key's new question");
    },
  },
  {
    name: "the re-attach window runs on the channel's clock: to its end, then asks afresh",
    needs: { clock: true },
    setup: { reattachMs: 1_000 },
    async run({ asker, operator, clock }) {
      const ask = request("When?", { key: "k" });
      const first = asker.ask(ask);
      const question = await asked(operator, "When?");
      await operator.answer(question.id, "now");
      same(await first, { status: "answered", answer: "now" }, "the outcome");
      await clock.advance(1_000);
      same(await asker.ask(ask), { status: "answered", answer: "now" }, "at the window's end");
      await clock.advance(1);
      const later = asker.ask(ask);
      const again = await asked(operator, "When?");
      check(again.id !== question.id, "asked afresh after the window");
      await operator.answer(again.id, "later");
      same(await later, { status: "answered", answer: "later" }, "the new outcome");
    },
  },
  {
    name: "a re-attach window of 0 re-attaches only within the same millisecond",
    setup: { reattachMs: 0 },
    async run({ asker, operator, tick }) {
      const ask = request("Again?", { key: "a" });
      const first = asker.ask(ask);
      const question = await asked(operator, "Again?");
      await operator.answer(question.id, "once");
      await first;
      await tick();
      const later = asker.ask(ask);
      await eventually(async () => (await pending(operator)).length === 1, "asked afresh");
      const [again] = await pending(operator);
      check(again.id !== question.id, "a new question");
      await operator.answer(again.id, "twice");
      same(await later, { status: "answered", answer: "twice" }, "the new outcome");
    },
  },
  {
    name: "askedAt and resolvedAt are the channel clock's time",
    needs: { clock: true },
    async run({ asker, operator, clock }) {
      const outcome = asker.ask(request("When?"));
      const question = await asked(operator, "When?");
      same(question.askedAt, new Date(clock.now()).toISOString(), "askedAt");
      await clock.advance(5_000);
      await operator.answer(question.id, "now");
      await outcome;
      const answered = await record(operator, question.id);
      check(answered?.status === "answered", "answered");
      same(answered.resolvedAt, new Date(clock.now()).toISOString(), "resolvedAt");
    },
  },
  {
    name: "questions() delivers the backlog in ask order, then new questions as asked",
    async run({ asker, operator }) {
      const outcomes = [];
      for (const [index, text] of ["one?", "two?"].entries()) {
        outcomes.push(asker.ask(request(text)));
        await pendingCount(operator, index + 1);
      }
      const feed = operator.questions();
      try {
        same((await feed.next()).value?.question, "one?", "first");
        same((await feed.next()).value?.question, "two?", "second");
        const waiting = feed.next();
        outcomes.push(asker.ask(request("three?")));
        same((await waiting).value?.question, "three?", "a new question");
        same((await pending(operator)).map((q) => q.question), ["one?", "two?", "three?"], "order");
        for (const q of await pending(operator)) await operator.answer(q.id, `re: ${q.question}`);
        same(
          await Promise.all(outcomes),
          ["one?", "two?", "three?"].map((q) => ({ status: "answered", answer: `re: ${q}` })),
          "outcomes",
        );
      } finally {
        await feed.return?.();
      }
    },
  },
  {
    name: "questions() skips a question resolved before it reaches it",
    async run({ asker, operator }) {
      const outcomes = [];
      for (const [index, text] of ["a?", "b?", "c?", "d?"].entries()) {
        outcomes.push(asker.ask(request(text)));
        await pendingCount(operator, index + 1);
      }
      const [a, b, c] = await pending(operator);
      const feed = operator.questions();
      try {
        same((await feed.next()).value?.id, a.id, "first");
        await operator.cancel(b.id, "no longer needed");
        await operator.answer(c.id, "done");
        same((await feed.next()).value?.question, "d?", "the next still pending");
      } finally {
        await feed.return?.();
      }
      for (const q of await pending(operator)) await operator.cancel(q.id);
      await Promise.all(outcomes);
    },
  },
  {
    name: "each questions() iterator sees every question; return() ends a waiting next()",
    async run({ asker, operator }) {
      const left = operator.questions();
      const right = operator.questions();
      const outcome = asker.ask(request("shared?"));
      same((await left.next()).value?.question, "shared?", "left");
      same((await right.next()).value?.question, "shared?", "right");
      const waiting = left.next();
      same(await left.return!(), { value: undefined, done: true }, "return()");
      check((await waiting).done === true, "the waiting next() ends");
      check((await left.next()).done === true, "and stays ended");
      await right.return!();
      const [question] = await pending(operator);
      await operator.answer(question.id, "ok");
      await outcome;
    },
  },
  {
    name: "close(): asks resolve closed with its reason, later asks too, iterators end; idempotent",
    async run({ asker, operator }) {
      const feed = asker.questions();
      const waitingFeed = feed.next();
      const outcome = asker.ask(request("Still there?"));
      const question = await asked(operator, "Still there?");
      await waitingFeed;
      const next = feed.next();
      await asker.close("operator left");
      await asker.close("ignored");
      same(await outcome, { status: "closed", reason: "operator left" }, "the waiting ask");
      check((await next).done === true, "a waiting iterator ends");
      same(
        await asker.ask(request("Another?")),
        { status: "closed", reason: "operator left" },
        "a later ask",
      );
      const late = asker.questions();
      check((await late.next()).done === true, "questions() of a closed channel ends at once");
      // What close does to the stored question is the channel's choice (a durable one keeps it
      // for a restarted process); if it resolved it, that is a withdrawal: nobody cancelled it.
      const after = await record(operator, question.id);
      if (after && after.status !== "pending") {
        check(isWithdrawal(after), `closing is no operator's cancel: ${canonical(after)}`);
        check(
          await operator.cancel(question.id, after.status === "cancelled" ? after.reason : "") ===
            false,
          "no retry of it",
        );
      } else if (after) {
        await operator.cancel(question.id);
      }
    },
  },
  {
    name: "after close(), a keyed question stays for a retry through another channel object",
    needs: { peer: true },
    async run({ asker, peer }) {
      const ask = request("Retried later?", { key: "call-7" });
      const closed = asker.ask(ask);
      const question = await asked(peer!, "Retried later?");
      await asker.close("restarting");
      same(await closed, { status: "closed", reason: "restarting" }, "the closed ask");
      same((await pending(peer!)).map((q) => q.id), [question.id], "still pending");
      const retried = peer!.ask(ask);
      same((await pending(peer!)).map((q) => q.id), [question.id], "re-attached, not asked");
      check(await peer!.answer(question.id, "here") === true, "the answer");
      same(await retried, { status: "answered", answer: "here" }, "the retry's outcome");
    },
  },
  {
    name: "texts and reasons over MAX_ANSWER_LENGTH are refused and change nothing",
    async run({ asker, operator }) {
      const outcome = asker.ask(request("Paste the log?", { kind: "approval" }));
      const question = await asked(operator, "Paste the log?");
      const tooLong = "x".repeat(MAX_ANSWER_LENGTH + 1);
      const refusals = [
        () => operator.answer(question.id, tooLong),
        () => operator.cancel(question.id, tooLong),
        () => operator.answer(question.id, { decision: "deny", reason: tooLong }),
        () => operator.answer(crypto.randomUUID(), tooLong),
      ];
      for (const refusal of refusals) {
        const error = await failure(refusal, "a too long text");
        check(error instanceof RangeError, `a RangeError: ${error}`);
        check(/MAX_ANSWER_LENGTH/.test(error.message), "the message names the limit");
      }
      for (const malformed of [{ decision: "maybe" }, { decision: "deny", reason: 1 }, null]) {
        const error = await failure(() => operator.answer(question.id, malformed as never), "bad");
        check(error instanceof TypeError, `a TypeError for ${canonical(malformed)}: ${error}`);
      }
      same((await pending(operator)).map((q) => q.id), [question.id], "still pending");
      const longest = "€".repeat(MAX_ANSWER_LENGTH);
      check(
        await operator.answer(question.id, { decision: "deny", reason: longest }) === true,
        "MAX_ANSWER_LENGTH itself is taken",
      );
      same(
        await outcome,
        { status: "answered", answer: "Deny", decision: "deny", reason: longest },
        "the outcome",
      );
    },
  },
  {
    name: "an approval's text answer is read once as its decision; the record carries it as data",
    async run({ asker, operator }) {
      const cases: [string, QuestionOutcome][] = [
        [" approve ", { status: "answered", answer: "Approve", decision: "approve" }],
        ["DENY", { status: "answered", answer: "Deny", decision: "deny" }],
        ["not today", {
          status: "answered",
          answer: "Deny",
          decision: "deny",
          reason: "not today",
        }],
      ];
      for (const [index, [text, expected]] of cases.entries()) {
        const outcome = asker.ask(request(`Approve ${index}?`, { kind: "approval" }));
        const { id } = await asked(operator, `Approve ${index}?`);
        check(await operator.answer(id, text) === true, `the answer ${text}`);
        same(await outcome, expected, `the outcome of ${JSON.stringify(text)}`);
        const stored = await record(operator, id);
        same(
          stored && { ...stored, question: undefined, resolvedAt: undefined },
          expected,
          "the record",
        );
        // The same decision again, as text or as data, is a retry; the other one is not.
        check(await operator.answer(id, text) === true, "the same text again");
        const decision = (expected as { decision: "approve" | "deny" }).decision;
        const reason = (expected as { reason?: string }).reason;
        check(
          await operator.answer(id, { decision, ...(reason ? { reason } : {}) }) === true,
          "the same decision as data",
        );
        const other = decision === "approve" ? "deny" : "approve";
        check(await operator.answer(id, { decision: other }) === false, "the other decision");
      }
    },
  },
  {
    name: "an approval and a question under one key are different questions",
    async run({ asker, operator }) {
      const plain = asker.ask(request("Ship it?", { key: "k" }));
      await pendingCount(operator, 1);
      const approval = asker.ask(request("Ship it?", { key: "k", kind: "approval" }));
      await pendingCount(operator, 2);
      const [first, second] = await pending(operator);
      same([first.kind, second.kind], [undefined, "approval"], "kinds");
      await operator.answer(first.id, "a");
      await operator.answer(second.id, "b");
      same(
        await Promise.all([plain, approval]),
        [
          { status: "answered", answer: "a" },
          { status: "answered", answer: "Deny", decision: "deny", reason: "b" },
        ],
        "outcomes",
      );
    },
  },
  {
    name: "resolved() lists answered, cancelled and withdrawn questions, newest first",
    needs: { resolved: true },
    async run({ asker, operator, tick }) {
      const history = operator.resolved!.bind(operator);
      same(await history(10), [], "no history yet");
      const outcomes = [];
      for (const [index, text] of ["a?", "b?", "c?"].entries()) {
        outcomes.push(asker.ask(request(text, { key: `call_${index}` })));
        await pendingCount(operator, index + 1);
      }
      const [a, b, c] = await pending(operator);
      await operator.answer(a.id, "ay");
      await tick();
      await operator.cancel(b.id, "not today");
      await tick();
      const aborter = new AbortController();
      const withdrawn = asker.ask(request("d?"), { signal: aborter.signal });
      await asked(operator, "d?");
      aborter.abort();
      await failure(() => withdrawn, "the aborted ask");
      await eventually(async () => (await history(10)).length === 3, "three resolved");
      const list = await history(10);
      same(list.map((r) => r.question.question), ["d?", "b?", "a?"], "newest first");
      same(
        list.map((r) => r.status === "cancelled" && r.withdrawn ? "withdrawn" : r.status),
        ["withdrawn", "cancelled", "answered"],
        "statuses",
      );
      check(list.every((r) => r.status !== "pending" && ISO.test(r.resolvedAt)), "resolvedAt");
      same((await history(1)).map((r) => r.question.id), [list[0].question.id], "limit 1");
      check(!list.some((r) => r.question.id === c.id), "a pending question is no history");
      if (asker.resolved) same(await asker.resolved(10), list, "the same through the asker");
      await operator.cancel(c.id);
      await Promise.all(outcomes);
    },
  },
  {
    name: "resolved() lists at most 100 however large the limit, and refuses a bad limit",
    needs: { resolved: true },
    setup: { limits: { maxPending: Infinity, maxPendingPerSession: Infinity } },
    async run({ asker, operator }) {
      // In batches, so that a channel reached by requests is not asked 101 times in a row.
      for (let batch = 0; batch < 101; batch += 20) {
        const size = Math.min(20, 101 - batch);
        const outcomes = Array.from(
          { length: size },
          (_, i) => asker.ask(request(`q${batch + i}?`)),
        );
        await pendingCount(operator, size);
        await Promise.all((await pending(operator)).map((q) => operator.answer(q.id, "ok")));
        await Promise.all(outcomes);
      }
      same((await operator.resolved!(1000)).length, 100, "at most 100");
      for (const bad of [0, -1, 1.5, NaN]) {
        const error = await failure(() => operator.resolved!(bad), `resolved(${bad})`);
        check(error instanceof RangeError, `a RangeError for ${bad}: ${error}`);
      }
    },
  },
  {
    name: "changes() yields once watching, after an ask and an answer, and ends when aborted",
    needs: { changes: true },
    async run({ asker, operator }) {
      const stop = new AbortController();
      const changes = operator.changes!(stop.signal)[Symbol.asyncIterator]();
      check((await changes.next()).done === false, "watching");
      const outcome = asker.ask(request("Changed?"));
      check((await changes.next()).done === false, "asked");
      const question = await asked(operator, "Changed?");
      // A yield carries no detail: read again until the answer shows.
      const answering = operator.answer(question.id, "yes");
      await eventually(async () => {
        check((await changes.next()).done === false, "answered");
        return (await record(operator, question.id))?.status === "answered";
      }, "a yield after the answer");
      await answering;
      await outcome;
      const next = changes.next();
      stop.abort();
      check((await next).done === true, "ends when aborted");
    },
  },
  {
    name: "changes() ends when the channel closes",
    needs: { changes: true },
    async run({ asker }) {
      const changes = asker.changes!(new AbortController().signal)[Symbol.asyncIterator]();
      check((await changes.next()).done === false, "watching");
      const next = changes.next();
      await asker.close();
      // A yield may come first (the close is a change); then it ends.
      if (!(await next).done) check((await changes.next()).done === true, "ended");
    },
  },
  {
    name: "caps: beyond maxPendingPerSession or maxPending an ask is refused and stores nothing",
    setup: { limits: { maxPending: 4, maxPendingPerSession: 2 } },
    async run({ asker, operator }) {
      const refused = async (ask: QuestionRequest, what: string) => {
        const error = await failure(() => asker.ask(ask), `the ask beyond ${what}`);
        check(error instanceof TooManyQuestionsError, `TooManyQuestionsError: ${error}`);
        check(new RegExp(`${what} has \\d+ pending`).test(error.message), error.message);
        check(error.code === "rate_limited" && error.retryAfterMs! > 0, "rate_limited");
      };
      const outcomes = [asker.ask(request("a1?", { sessionId: "a", key: "k1" }))];
      await pendingCount(operator, 1);
      outcomes.push(asker.ask(request("a2?", { sessionId: "a" })));
      await pendingCount(operator, 2);
      await refused(request("a3?", { sessionId: "a" }), "this session");
      // A re-attach to a question already pending takes no new place, and is never refused.
      outcomes.push(asker.ask(request("a1?", { sessionId: "a", key: "k1" })));
      outcomes.push(asker.ask(request("b1?", { sessionId: "b" })));
      await pendingCount(operator, 3);
      outcomes.push(asker.ask(request("none?")));
      await pendingCount(operator, 4);
      await refused(request("c1?", { sessionId: "c" }), "the channel");
      same((await pending(operator)).length, 4, "nothing stored for the refused asks");
      // An answer frees a place; so does a withdrawal.
      const first = await asked(operator, "a1?");
      check(await operator.answer(first.id, "done") === true, "the answer");
      const aborter = new AbortController();
      const withdrawn = asker.ask(request("c1?", { sessionId: "c" }), { signal: aborter.signal });
      await asked(operator, "c1?");
      await refused(request("c2?", { sessionId: "d" }), "the channel");
      aborter.abort();
      await failure(() => withdrawn, "the withdrawn ask");
      await pendingCount(operator, 3);
      outcomes.push(asker.ask(request("c2?", { sessionId: "d" })));
      await pendingCount(operator, 4);
      for (const q of await pending(operator)) await operator.cancel(q.id, "done");
      const results = await Promise.all(outcomes);
      same(results[0], { status: "answered", answer: "done" }, "the first ask");
      same(results[2], { status: "answered", answer: "done" }, "the re-attached ask");
    },
  },
];
