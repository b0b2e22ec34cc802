import type { Elicit, Elicitation, ElicitationField } from "../elicitation.ts";
import { MAX_ANSWER_LENGTH, type QuestionOutcome, type QuestionRequest } from "./question.ts";

/**
 * Asks a question through the calling client's own user (MCP elicitation) instead of an
 * operator channel: options become a single choice, a multi-select a list of choices, and an
 * open question a free-text field. Declining or dismissing the form is a cancelled outcome, as
 * an operator's cancel is.
 */
export async function elicitQuestion(
  elicit: Elicit,
  request: QuestionRequest,
  signal: AbortSignal | undefined,
): Promise<QuestionOutcome> {
  const result = await elicit(toElicitation(request), signal && { signal });
  if (result.action === "decline") return { status: "cancelled", reason: "the user declined" };
  if (result.action === "cancel") {
    return { status: "cancelled", reason: "the user dismissed the question" };
  }
  const value = result.content.answer;
  const answer = Array.isArray(value) ? value.join("\n") : typeof value === "string" ? value : "";
  if (answer.trim() === "") return { status: "cancelled", reason: "the user sent no answer" };
  return { status: "answered", answer: answer.slice(0, MAX_ANSWER_LENGTH) };
}

function toElicitation(request: QuestionRequest): Elicitation {
  const choices = request.options.map(({ label, description }) => ({
    const: label,
    title: description ? `${label} — ${description}` : label,
  }));
  const answer: ElicitationField = choices.length === 0
    ? { type: "string", title: "Answer", minLength: 1, maxLength: MAX_ANSWER_LENGTH }
    : request.multiSelect
    ? { type: "array", title: "Choose one or more", minItems: 1, items: { anyOf: choices } }
    : { type: "string", title: "Choose one", oneOf: choices };
  return {
    message: request.question,
    requestedSchema: { type: "object", properties: { answer }, required: ["answer"] },
  };
}
