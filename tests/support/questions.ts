import assert from "node:assert/strict";
import { type QuestionChannel, ToolError } from "../../mod.ts";
import {
  type HumanQuestion,
  type QuestionRequest,
  TooManyQuestionsError,
} from "../../src/human/mod.ts";
import { waitFor } from "./wait.ts";

/** Resolves with the next question the channel delivers. */
export async function nextQuestion(channel: QuestionChannel): Promise<HumanQuestion> {
  const feed = channel.questions();
  const { value } = await feed.next();
  await feed.return!();
  assert.ok(value, "the channel closed before a question came");
  return value;
}

/**
 * Checks a channel made with `limits: { maxPending: 4, maxPendingPerSession: 2 }`: a question
 * beyond either cap is refused with `TooManyQuestionsError` and stores nothing; a re-attach by key
 * is never refused; a resolved question frees its place. Leaves the channel with nothing pending.
 */
export async function checkCaps(channel: QuestionChannel): Promise<void> {
  const request = (question: string, sessionId?: string, key?: string): QuestionRequest => ({
    question,
    options: [],
    multiSelect: false,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(key === undefined ? {} : { key }),
  });
  const count = async () => (await channel.pending).length;
  const asks = [
    channel.ask(request("a1?", "a", "k1")),
    channel.ask(request("a2?", "a")),
  ];
  await waitFor(async () => (await count()) === 2, "two questions of session a");
  const refused = (error: unknown, what: string) => {
    assert.ok(error instanceof TooManyQuestionsError, String(error));
    assert.ok(error instanceof ToolError, "the model hears it");
    assert.match(error.message, new RegExp(`${what} has \\d+ pending`));
    assert.ok(error.code === "rate_limited" && error.retryAfterMs! > 0);
    return true;
  };
  await assert.rejects(channel.ask(request("a3?", "a")), (e) => refused(e, "this session"));
  // A re-attach to a question already pending takes no new place.
  asks.push(channel.ask(request("a1?", "a", "k1")));
  asks.push(channel.ask(request("b1?", "b")), channel.ask(request("none?")));
  await waitFor(async () => (await count()) === 4, "four questions");
  await assert.rejects(channel.ask(request("c1?", "c")), (e) => refused(e, "the channel"));
  assert.equal(await count(), 4, "nothing stored for the refused asks");
  // An answer frees a place.
  const first = (await channel.pending).find((q) => q.question === "a1?")!;
  assert.equal(await channel.answer(first.id, "done"), true);
  asks.push(channel.ask(request("c1?", "c")));
  await waitFor(async () => (await count()) === 4, "the freed place taken");
  for (const q of await channel.pending) await channel.cancel(q.id, "done");
  const outcomes = await Promise.all(asks);
  assert.deepEqual(outcomes[0], { status: "answered", answer: "done" });
  assert.deepEqual(outcomes[2], { status: "answered", answer: "done" }, "the re-attached ask");
}

/**
 * `channel` seen through a plain object with some members replaced: it has no `changes()` unless
 * `overrides` gives one, so a front on it polls, and no `resolved()` unless `history` is set.
 */
export function channelView(
  channel: QuestionChannel,
  overrides: Partial<QuestionChannel> = {},
  { history = false }: { history?: boolean } = {},
): QuestionChannel {
  return {
    ask: (request, options) => channel.ask(request, options),
    get pending() {
      return channel.pending;
    },
    questions: () => channel.questions(),
    get: (id) => channel.get(id),
    answer: (id, text) => channel.answer(id, text),
    cancel: (id, reason) => channel.cancel(id, reason),
    close: (reason) => channel.close(reason),
    ...(history ? { resolved: (limit: number) => channel.resolved!(limit) } : {}),
    ...overrides,
  };
}
