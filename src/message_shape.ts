// What each provider's messages look like, so that a tool-call reader handed another provider's
// message says so instead of finding no calls in it and letting the agent loop end quietly.

/** A provider's message family, named as an error message names it. */
export type MessageShape =
  | "an Anthropic message"
  | "an OpenAI Responses output"
  | "an OpenAI Chat Completions message"
  | "a Gemini response";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Content block types only Anthropic's Messages API uses. */
const ANTHROPIC_BLOCKS = new Set([
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "mcp_tool_use",
  "mcp_tool_result",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "container_upload",
]);

/** Item types only OpenAI's Responses API uses. */
const RESPONSES_ITEMS = new Set([
  "function_call",
  "function_call_output",
  "reasoning",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_call",
  "mcp_list_tools",
  "custom_tool_call",
  "output_text",
]);

/** The provider whose message (or list of blocks, items or parts) `value` is, when it tells. */
export function messageShape(value: unknown): MessageShape | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const shape = itemShape(item);
      if (shape) return shape;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.candidates) || Array.isArray(value.parts)) return "a Gemini response";
  if (Array.isArray(value.choices) || "tool_calls" in value || isObject(value.message)) {
    return "an OpenAI Chat Completions message";
  }
  if (Array.isArray(value.output) || value.object === "response") {
    return "an OpenAI Responses output";
  }
  if (Array.isArray(value.content) || value.type === "message") return "an Anthropic message";
  return undefined;
}

function itemShape(item: unknown): MessageShape | undefined {
  if (!isObject(item)) return undefined;
  if ("functionCall" in item || "functionResponse" in item) return "a Gemini response";
  if (item.type === "function" && isObject(item.function)) {
    return "an OpenAI Chat Completions message";
  }
  if (typeof item.type !== "string") return undefined;
  if (ANTHROPIC_BLOCKS.has(item.type)) return "an Anthropic message";
  if (RESPONSES_ITEMS.has(item.type)) return "an OpenAI Responses output";
  return undefined;
}

/**
 * The list a reader walks, or a `TypeError` naming what it was handed: a list is taken unless
 * it shows another provider's entries; an object must be of `expected`'s shape.
 */
export function readableList(
  reader: string,
  expected: MessageShape,
  value: unknown,
  list: unknown,
): unknown[] {
  const shape = messageShape(value);
  if (Array.isArray(list) && (shape === undefined || shape === expected)) return list;
  const got = shape ?? (Array.isArray(value) ? "an array" : describe(value));
  throw new TypeError(`${reader} reads ${expected}, but was handed ${got}.`);
}

/** The id a call must carry to be answered, or a `TypeError` naming the call. */
export function callId(reader: string, field: string, id: unknown, name: unknown): string {
  if (typeof id === "string" && id !== "") return id;
  throw new TypeError(
    `${reader}: the call to ${
      typeof name === "string" ? JSON.stringify(name) : "a tool"
    } has no \`${field}\`, so its result could not be matched to it.`,
  );
}

/** The tool name a call must carry, or a `TypeError`. */
export function callName(reader: string, name: unknown): string {
  if (typeof name === "string" && name !== "") return name;
  throw new TypeError(`${reader}: a tool call has no tool name.`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (isObject(value)) {
    const keys = Object.keys(value).slice(0, 5).join(", ");
    return keys ? `an object with ${keys}` : "an empty object";
  }
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}
