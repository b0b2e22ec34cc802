// @ts-types="@modelcontextprotocol/sdk/types"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitationResult } from "../elicitation.ts";
import { ErrorCode, McpError } from "./json_rpc.ts";

// Elicitation towards the client: whether it takes forms, and its answer checked.

type Json = Record<string, unknown>;

/**
 * The client's answer to `elicitation/create`, checked as the SDK's `ElicitResultSchema` does: an
 * action, and content (for an accept) whose values are strings, numbers, booleans or string lists.
 */
export function elicitationResult(result: Json): ElicitationResult {
  const { action } = result;
  const content = result.content ?? undefined;
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid elicitation action ${JSON.stringify(action)}.`,
    );
  }
  const valid = (value: unknown) =>
    typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"));
  if (
    content !== undefined &&
    (typeof content !== "object" || Array.isArray(content) ||
      !Object.values(content as Json).every(valid))
  ) {
    throw new McpError(ErrorCode.InvalidParams, "Invalid elicitation content.");
  }
  return (action === "accept"
    ? { action, content: content ?? {} }
    : { action }) as ElicitationResult;
}

/** Whether the client takes form elicitations (an empty `elicitation` object means forms). */
export function formElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return "form" in elicitation || !("url" in elicitation);
}
