/**
 * A page a provider-hosted search consulted.
 *
 * @example
 * ```ts
 * import type { Source } from "@outpost/agent-tools";
 * const source: Source = { url: "https://deno.com/blog", title: "Deno Blog", pageAge: "2 days ago" };
 * ```
 */
export interface Source {
  /** The page's URL, as the provider reported it. */
  url: string;
  /** The page title, when the provider gives one (Anthropic does, OpenAI sources do not). */
  title?: string;
  /** How old the page is, in the provider's words (Anthropic's `page_age`). */
  pageAge?: string;
}

/**
 * A citation attached to assistant text.
 *
 * @example
 * ```ts
 * import type { Citation } from "@outpost/agent-tools";
 * const citation: Citation = { url: "https://deno.com/", title: "Deno", messageIndex: 1, startIndex: 0, endIndex: 12 };
 * ```
 */
export interface Citation {
  /** The cited page. */
  url: string;
  /** The cited page's title. */
  title?: string;
  /** The passage quoted from the page (Anthropic's `cited_text`). */
  citedText?: string;
  /** Index, in the transcript array, of the entry holding the cited text (0 for a single object). */
  messageIndex: number;
  /** Where the cited span starts in the output text (OpenAI's `start_index`). */
  startIndex?: number;
  /** Where the cited span ends in the output text (OpenAI's `end_index`). */
  endIndex?: number;
}

/** One piece of evidence read from a transcript, in transcript order. */
export type Evidence =
  | { kind: "source"; messageIndex: number; source: Source }
  | { kind: "citation"; citation: Citation }
  | { kind: "text"; messageIndex: number; text: string };

type Json = Record<string, unknown>;

// Bounds the walk into nested `content` arrays, so cyclic or absurdly deep input ends.
const MAX_DEPTH = 8;

/**
 * Reads every source, citation and piece of assistant text, in order, from entries `since`
 * onwards. Accepts everything {@linkcode sources} documents; anything else is skipped and
 * nothing is ever thrown or modified.
 */
export function readTranscript(transcript: unknown, since = 0): Evidence[] {
  const out: Evidence[] = [];
  try {
    const entries = Array.isArray(transcript) ? transcript : [transcript];
    for (let index = since; index < entries.length; index++) {
      attempt(() => readEntry(entries[index], index, out));
    }
  } catch {
    // An unreadable transcript yields what was read before the failure.
  }
  return out;
}

/**
 * Every page a provider-hosted web search consulted, deduplicated by URL in first-appearance
 * order (later duplicates fill in a missing title or age).
 *
 * A transcript is what you already have, in the provider's own shapes: an Anthropic `Message`
 * or `MessageParam[]` (`web_search_tool_result` blocks, including those a code-execution
 * caller made under dynamic filtering, and `web_fetch_tool_result` pages); an OpenAI Responses
 * `Response`, its `output` array or an input-item array (`web_search_call` items with
 * `action.sources`, and the pages opened by `open_page` and `find_in_page`); or one array
 * mixing several turns. Unknown entries and blocks are skipped; the transcript is not modified.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sources } from "@outpost/agent-tools";
 * const message = {
 *   role: "assistant",
 *   content: [{
 *     type: "web_search_tool_result",
 *     tool_use_id: "srvtoolu_1",
 *     content: [{ type: "web_search_result", url: "https://deno.com/", title: "Deno", page_age: null, encrypted_content: "…" }],
 *   }],
 * };
 * assert.deepEqual(sources(message), [{ url: "https://deno.com/", title: "Deno" }]);
 * ```
 */
export function sources(transcript: unknown): Source[] {
  const byUrl = new Map<string, Source>();
  for (const item of readTranscript(transcript)) {
    if (item.kind !== "source") continue;
    const { url, title, pageAge } = item.source;
    const known = byUrl.get(url);
    if (!known) {
      byUrl.set(url, { ...item.source });
      continue;
    }
    if (known.title === undefined && title !== undefined) known.title = title;
    if (known.pageAge === undefined && pageAge !== undefined) known.pageAge = pageAge;
  }
  return [...byUrl.values()];
}

/**
 * Every citation attached to assistant text, in transcript order and not deduplicated:
 * Anthropic `web_search_result_location` citations on text blocks and OpenAI `url_citation`
 * annotations on `output_text`. Accepts the transcripts {@linkcode sources} does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { citations } from "@outpost/agent-tools";
 * const response = {
 *   object: "response",
 *   output: [{
 *     type: "message",
 *     role: "assistant",
 *     content: [{
 *       type: "output_text",
 *       text: "Deno 2 is out.",
 *       annotations: [{ type: "url_citation", url: "https://deno.com/blog/v2", title: "Deno 2", start_index: 0, end_index: 14 }],
 *     }],
 *   }],
 * };
 * assert.deepEqual(citations(response), [
 *   { url: "https://deno.com/blog/v2", title: "Deno 2", messageIndex: 0, startIndex: 0, endIndex: 14 },
 * ]);
 * ```
 */
export function citations(transcript: unknown): Citation[] {
  return readTranscript(transcript).flatMap((item) =>
    item.kind === "citation" ? [{ ...item.citation }] : []
  );
}

function readEntry(entry: unknown, index: number, out: Evidence[]): void {
  if (!isJson(entry)) return;
  // An OpenAI Response: its output items all belong to this entry.
  if (Array.isArray(entry.output) && entry.role === undefined) {
    forEach(entry.output, (item) => readItem(item, index, out));
  } else {
    readItem(entry, index, out);
  }
}

function readItem(item: unknown, index: number, out: Evidence[]): void {
  if (!isJson(item)) return;
  if (item.type === "web_search_call") return readSearchCall(item.action, index, out);
  if (typeof item.role === "string") {
    const assistant = item.role === "assistant";
    if (typeof item.content === "string") {
      if (assistant) out.push({ kind: "text", messageIndex: index, text: item.content });
      return;
    }
    return forEach(item.content, (block) => readBlock(block, index, assistant, out, 0));
  }
  // A bare content block, as in `message.content` passed on its own.
  readBlock(item, index, true, out, 0);
}

function readSearchCall(action: unknown, index: number, out: Evidence[]): void {
  if (!isJson(action)) return;
  forEach(action.sources, (source) => {
    if (isJson(source) && isUrl(source.url)) addSource(out, index, source.url);
  });
  // open_page and find_in_page name the page they read.
  if (isUrl(action.url)) addSource(out, index, action.url);
}

function readBlock(
  block: unknown,
  index: number,
  assistant: boolean,
  out: Evidence[],
  depth: number,
): void {
  if (!isJson(block)) return;
  switch (block.type) {
    case "text":
    case "output_text":
      if (!assistant) return;
      if (typeof block.text === "string") {
        out.push({ kind: "text", messageIndex: index, text: block.text });
      }
      forEach(block.citations, (citation) => {
        if (!isJson(citation) || citation.type !== "web_search_result_location") return;
        if (!isUrl(citation.url)) return;
        out.push({
          kind: "citation",
          citation: {
            url: citation.url,
            ...text("title", citation.title),
            ...text("citedText", citation.cited_text),
            messageIndex: index,
          },
        });
      });
      forEach(block.annotations, (annotation) => {
        if (!isJson(annotation) || annotation.type !== "url_citation") return;
        if (!isUrl(annotation.url)) return;
        out.push({
          kind: "citation",
          citation: {
            url: annotation.url,
            ...text("title", annotation.title),
            messageIndex: index,
            ...offset("startIndex", annotation.start_index),
            ...offset("endIndex", annotation.end_index),
          },
        });
      });
      return;
    case "web_search_tool_result":
      // An error object in `content` (`web_search_tool_result_error`) has no pages.
      return forEach(block.content, (result) => {
        if (isJson(result) && isUrl(result.url)) {
          addSource(out, index, result.url, result.title, result.page_age);
        }
      });
    case "web_fetch_tool_result": {
      const result = block.content;
      if (isJson(result) && result.type === "web_fetch_result" && isUrl(result.url)) {
        const document = isJson(result.content) ? result.content : {};
        addSource(out, index, result.url, document.title);
      }
      return;
    }
    default:
      if (depth < MAX_DEPTH) {
        forEach(block.content, (child) => readBlock(child, index, assistant, out, depth + 1));
      }
  }
}

function addSource(
  out: Evidence[],
  index: number,
  url: string,
  title?: unknown,
  pageAge?: unknown,
): void {
  out.push({
    kind: "source",
    messageIndex: index,
    source: { url, ...text("title", title), ...text("pageAge", pageAge) },
  });
}

function forEach(list: unknown, visit: (item: unknown) => void): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) attempt(() => visit(list[i]));
}

/** Runs one step of the walk; an entry that throws (a hostile getter, a proxy) is skipped. */
function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // Skipped: the audit must survive any input.
  }
}

function text<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (typeof value === "string" ? { [key]: value } : {}) as { [P in K]?: string };
}

function offset<K extends string>(key: K, value: unknown): { [P in K]?: number } {
  return (Number.isSafeInteger(value) ? { [key]: value } : {}) as { [P in K]?: number };
}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isUrl(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
