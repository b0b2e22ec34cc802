import type { QuestionChannel } from "../human/question_channel.ts";
import type {
  HumanQuestion,
  QuestionOutcome,
  QuestionRecord,
  QuestionRequest,
} from "../human/question.ts";
import type { QuestionChannelSetup } from "./question_channel_contract.ts";
import type { FakeClock } from "./fake_clock.ts";

// What the cases of the QuestionChannel contract share: the context a case runs in, and the
// suite's own few assertions and helpers on channels.

/** What one case gets: the fixture's channels, the case's clock, and a way to let time pass. */
export interface CaseContext {
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

export interface Case {
  name: string;
  /** What the fixture must offer for the case to run. */
  needs?: { clock?: true; peer?: true; resolved?: true; changes?: true };
  /** The setup the case needs besides the clock. */
  setup?: Omit<QuestionChannelSetup, "clock">;
  run(context: CaseContext): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Assertions: the suite runs on any runtime and test runner, so it brings its own few.

export class ContractError extends Error {
  override name = "ContractError";
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ContractError(message);
}

/** Plain data as canonical JSON: keys sorted, `undefined` members left out. */
export function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : v,
  );
}

export function same(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [canonical(actual), canonical(expected)];
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

/** The error `action` threw or rejected with; fails when it did neither. */
export async function failure(action: () => unknown, what: string): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new ContractError(`${what}: expected an error, got none`);
}

/** Polls `condition` (real time) until it holds; fails after 30 s, naming `what`. */
export async function eventually(condition: () => unknown, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new ContractError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Whether `promise` has settled, after letting pending jobs run. */
export async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

// ---------------------------------------------------------------------------------------------
// Helpers on channels.

export function request(question: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return { question, options: [], multiSelect: false, ...extra };
}

export const YES_NO = [{ label: "Yes", description: "Go ahead" }, { label: "No", description: "" }];

export async function pending(channel: QuestionChannel): Promise<readonly HumanQuestion[]> {
  return await channel.pending;
}

/**
 * Waits until `channel` lists a pending question asking `text`, and returns it; fails at once
 * if `outcome`, the ask, settles first.
 */
export async function asked(
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
export function handled(channel: QuestionChannel): QuestionChannel {
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
export async function pendingCount(channel: QuestionChannel, count: number): Promise<void> {
  await eventually(async () => (await pending(channel)).length === count, `${count} pending`);
}

export async function record(
  channel: QuestionChannel,
  id: string,
): Promise<QuestionRecord | undefined> {
  return await channel.get(id);
}

export function isWithdrawal(record: QuestionRecord | undefined): boolean {
  return record?.status === "cancelled" && record.withdrawn === true;
}

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
