import assert from "node:assert/strict";
import type { QuestionChannel } from "../../mod.ts";
import type { HumanQuestion } from "../../src/human/mod.ts";

/** Resolves with the next question the channel delivers. */
export async function nextQuestion(channel: QuestionChannel): Promise<HumanQuestion> {
  const feed = channel.questions();
  const { value } = await feed.next();
  await feed.return!();
  assert.ok(value, "the channel closed before a question came");
  return value;
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
