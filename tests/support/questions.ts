import assert from "node:assert/strict";
import type { HumanQuestion, QuestionChannel } from "../../mod.ts";

/** Resolves with the next question the channel delivers. */
export async function nextQuestion(channel: QuestionChannel): Promise<HumanQuestion> {
  const feed = channel.questions();
  const { value } = await feed.next();
  await feed.return!();
  assert.ok(value, "the channel closed before a question came");
  return value;
}
