import { anthropicTranscript } from "../anthropic/transcript.ts";
import { geminiTranscript } from "../gemini/grounding.ts";
import { messageShape } from "../message_shape.ts";
import { openAITranscript } from "../openai/transcript.ts";
import {
  attempt,
  type Citation,
  type Evidence,
  forEach,
  isJson,
  type Source,
  type TranscriptDialect,
} from "./evidence.ts";

export type { Citation, Source } from "./evidence.ts";

// Each provider's shapes are read by its own folder; the walk over entries, messages and
// nested content is shared.
const DIALECTS: readonly TranscriptDialect[] = [
  anthropicTranscript,
  openAITranscript,
  geminiTranscript,
];

// Bounds the walk into nested `content` arrays, so cyclic or absurdly deep input ends.
const MAX_DEPTH = 8;

/**
 * Reads every source, citation and piece of assistant text, in order, from entries `since`
 * onwards (earlier entries still number the documents and name the fetches later ones refer
 * to). Throws a `TypeError` naming what `transcript` is when it is none of the shapes
 * {@linkcode sources} documents; inside one, anything else is skipped, nothing is modified and
 * nothing else is thrown.
 */
export function readTranscript(reader: string, transcript: unknown, since = 0): Resolved[] {
  checkTranscript(reader, transcript);
  const read: Evidence[] = [];
  try {
    const entries = Array.isArray(transcript) ? transcript : [transcript];
    for (let index = 0; index < entries.length; index++) {
      attempt(() => readEntry(entries[index], index, read));
    }
  } catch {
    // An unreadable transcript yields what was read before the failure.
  }
  return resolve(read).filter((item) =>
    (item.kind === "citation" ? item.citation.messageIndex : item.messageIndex) >= since
  );
}

/** Evidence as the walk hands it out: sources, citations and text. */
export type Resolved = Extract<Evidence, { kind: "source" | "citation" | "text" }>;

/** Turns fetch failures into sources and document citations into citations. */
function resolve(read: Evidence[]): Resolved[] {
  const calls = new Map<string, string>();
  const documents: (string | undefined)[] = [];
  const out: Resolved[] = [];
  for (const item of read) {
    switch (item.kind) {
      case "fetch call":
        calls.set(item.id, item.url);
        break;
      case "fetch error": {
        const url = calls.get(item.id);
        if (url !== undefined) {
          out.push({
            kind: "source",
            messageIndex: item.messageIndex,
            source: { url, error: item.error },
          });
        }
        break;
      }
      case "document":
        documents.push(item.url);
        break;
      case "document citation": {
        const url = documents[item.documentIndex];
        if (url !== undefined) out.push({ kind: "citation", citation: { url, ...item.citation } });
        break;
      }
      default:
        out.push(item);
    }
  }
  return out;
}

// Chat Completions and other shapes carry no hosted-tool evidence we read: saying so beats an
// empty list that reads as "nothing consulted" or "no violations".
const CHAT = "an OpenAI Chat Completions message";
const TRANSCRIPT_KEYS = [
  "role",
  "type",
  "content",
  "output",
  "candidates",
  "parts",
  "groundingMetadata",
  "urlContextMetadata",
];

/** Throws a `TypeError` when `transcript` is no provider transcript `sources` reads. */
function checkTranscript(reader: string, transcript: unknown): void {
  let problem: string | undefined;
  try {
    problem = transcriptProblem(transcript);
  } catch {
    problem = "a value that could not be read";
  }
  if (problem === undefined) return;
  throw new TypeError(
    `${reader} reads an Anthropic, OpenAI Responses or Gemini transcript (a message, a ` +
      `response, or an array of them), but was handed ${problem}.`,
  );
}

/** The provider shape `value` shows, `undefined` when a hostile getter hides it. */
function shapeOf(value: unknown): string | undefined {
  try {
    return messageShape(value);
  } catch {
    return undefined;
  }
}

function transcriptProblem(transcript: unknown): string | undefined {
  if (Array.isArray(transcript)) {
    let entries = 0;
    for (const entry of transcript) {
      if (shapeOf(entry) === CHAT) return "an array of OpenAI Chat Completions messages";
      if (isJson(entry)) entries++;
    }
    return transcript.length === 0 || entries > 0 ? undefined : "an array holding no message";
  }
  if (transcript === null || transcript === undefined) return String(transcript);
  if (!isJson(transcript)) return `a ${typeof transcript}`;
  if (shapeOf(transcript) === CHAT) return CHAT;
  if (TRANSCRIPT_KEYS.some((key) => key in transcript)) return undefined;
  const keys = Object.keys(transcript).slice(0, 5).join(", ");
  return keys ? `an object with ${keys}` : "an empty object";
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
 * import { sources } from "@outpost/agent-tools/hosted";
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
  for (const item of readTranscript("sources", transcript)) {
    if (item.kind !== "source") continue;
    const known = byUrl.get(item.source.url);
    if (!known) {
      byUrl.set(item.source.url, { ...item.source });
      continue;
    }
    for (const key of ["title", "pageAge", "site"] as const) {
      if (known[key] === undefined && item.source[key] !== undefined) known[key] = item.source[key];
    }
    // A page read once counts as read, whatever failed on another try.
    if (item.source.error === undefined) delete known.error;
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
 * import { citations } from "@outpost/agent-tools/hosted";
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
  return readTranscript("citations", transcript).flatMap((item) =>
    item.kind === "citation" ? [{ ...item.citation }] : []
  );
}

function readEntry(entry: unknown, index: number, out: Evidence[]): void {
  if (!isJson(entry)) return;
  for (const dialect of DIALECTS) {
    const items = dialect.items?.(entry);
    if (items) return forEach(items, (item) => readItem(item, index, out));
  }
  readItem(entry, index, out);
}

function readItem(item: unknown, index: number, out: Evidence[]): void {
  if (!isJson(item)) return;
  if (DIALECTS.some((dialect) => dialect.item?.(item, index, out))) return;
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

function readBlock(
  block: unknown,
  index: number,
  assistant: boolean,
  out: Evidence[],
  depth: number,
): void {
  if (!isJson(block)) return;
  if (typeof block.type === "string" && DIALECTS.some((d) => d.textType === block.type)) {
    if (!assistant) return;
    if (typeof block.text === "string") {
      out.push({ kind: "text", messageIndex: index, text: block.text });
    }
    for (const dialect of DIALECTS) dialect.citations?.(block, index, out);
    return;
  }
  if (DIALECTS.some((dialect) => dialect.block?.(block, index, out))) return;
  if (depth < MAX_DEPTH) {
    forEach(block.content, (child) => readBlock(child, index, assistant, out, depth + 1));
  }
}
