import { ToolError } from "../errors.ts";
import { formatToolError } from "../format_tool_error.ts";
import type { Tool } from "../tool.ts";
import { ErrorCode, McpError } from "./json_rpc.ts";

/** The tool the `fetch` prompt runs; the prompt is offered where it is served. */
export const PROMPT_TOOL = "web_fetch";

/** The prompt of the reference MCP fetch server, as `prompts/list` shows it. */
export const FETCH_PROMPT = {
  name: "fetch",
  title: "Fetch a page",
  description: "Fetch a URL and extract its contents as Markdown",
  arguments: [{ name: "url", description: "URL to fetch", required: true }],
};

/**
 * `prompts/get` of the `fetch` prompt: the page as a user message, as the reference fetch server
 * answers; a fetch the tool refuses or fails becomes the message that says why.
 */
export async function fetchPrompt(fetcher: Tool, args: unknown, signal: AbortSignal) {
  const url = (args as Record<string, unknown> | undefined)?.url;
  if (typeof url !== "string" || url === "") {
    throw new McpError(ErrorCode.InvalidParams, "The fetch prompt needs a `url` argument.");
  }
  let text: string;
  let description = `Contents of ${url}`;
  try {
    text = await fetcher.execute({ url }, { signal });
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    text = formatToolError(error);
    description = `Failed to fetch ${url}`;
  }
  return { description, messages: [{ role: "user", content: { type: "text", text } }] };
}
