// The neutral vocabulary of transcript reading: what the walk in transcript.ts collects and
// what each provider's reader (src/anthropic/transcript.ts, src/openai/transcript.ts) adds to.

/**
 * A page a provider-hosted search consulted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Source, sources } from "@outpost/agent-tools/hosted";
 * const source: Source = { url: "https://deno.com/blog", title: "Deno Blog", pageAge: "2 days ago" };
 * const result = { type: "web_search_result", url: source.url, title: source.title, page_age: "2 days ago" };
 * const message = {
 *   role: "assistant",
 *   content: [{ type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [result] }],
 * };
 * assert.deepEqual(sources(message), [source]);
 * ```
 */
export interface Source {
  /** The page's URL, as the provider reported it. */
  url: string;
  /** The page title, when the provider gives one (Anthropic does, OpenAI sources do not). */
  title?: string;
  /** How old the page is, in the provider's words (Anthropic's `page_age`). */
  pageAge?: string;
  /**
   * The site the page is on, when `url` is a provider's redirect that does not name it (Gemini's
   * `vertexaisearch.cloud.google.com/grounding-api-redirect/…`, whose site is in the title).
   * `DomainPolicy.audit` judges the page by it.
   */
  site?: string;
  /**
   * Why reading the page failed, in the provider's words (Anthropic's `error_code`, Gemini's
   * `urlRetrievalStatus`); absent when it was read.
   */
  error?: string;
}

/**
 * A citation attached to assistant text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Citation, citations } from "@outpost/agent-tools/hosted";
 * const citation: Citation = { url: "https://deno.com/", title: "Deno", messageIndex: 0, startIndex: 0, endIndex: 12 };
 * const annotation = { type: "url_citation", url: "https://deno.com/", title: "Deno", start_index: 0, end_index: 12 };
 * const response = {
 *   object: "response",
 *   output: [{
 *     type: "message",
 *     role: "assistant",
 *     content: [{ type: "output_text", text: "Deno is fast", annotations: [annotation] }],
 *   }],
 * };
 * assert.deepEqual(citations(response), [citation]);
 * ```
 */
export interface Citation {
  /** The cited page. */
  url: string;
  /** The cited page's title. */
  title?: string;
  /** The passage quoted from the page (Anthropic's `cited_text`). */
  citedText?: string;
  /** The site the page is on, when `url` is a provider's redirect (see `Source.site`). */
  site?: string;
  /** The span of the answer the page supports (Gemini's `segment.text`). */
  supportedText?: string;
  /** Index, in the transcript array, of the entry holding the cited text (0 for a single object). */
  messageIndex: number;
  /**
   * Where the cited span starts in the output text: OpenAI's `start_index` (characters),
   * Gemini's `segment.startIndex` (UTF-8 bytes of the part).
   */
  startIndex?: number;
  /** Where the cited span ends in the output text (OpenAI's `end_index`, Gemini's `segment.endIndex`). */
  endIndex?: number;
}

/**
 * One piece of evidence read from a transcript, in transcript order. `redirect` marks a URL that
 * is a provider's redirect: the audit judges its `site`, and with none it cannot clear it. The
 * last four kinds are resolved by the walk into sources and citations: a hosted fetch's call
 * gives its failure a URL, and a document citation names its document by its place among all
 * the documents of the transcript.
 */
export type Evidence =
  | { kind: "source"; messageIndex: number; source: Source; redirect?: true }
  | { kind: "citation"; citation: Citation; redirect?: true }
  | { kind: "text"; messageIndex: number; text: string }
  | { kind: "fetch call"; id: string; url: string }
  | { kind: "fetch error"; messageIndex: number; id: string; error: string }
  | { kind: "document"; url?: string; title?: string }
  | { kind: "document citation"; documentIndex: number; citation: Omit<Citation, "url"> };

/** A JSON object of a transcript. */
export type Json = Record<string, unknown>;

/**
 * What one provider's transcript shapes add to the neutral walk over messages and content
 * blocks. Each reader skips what it does not know and never throws on odd input.
 */
export interface TranscriptDialect {
  /** The items an entry wraps, when it is a container of the provider's (a whole response). */
  items?(entry: Json): unknown[] | undefined;
  /** Reads an item that is not a message; true when it was the provider's. */
  item?(item: Json, index: number, out: Evidence[]): boolean;
  /** The type of the provider's assistant text blocks, when they have one (Gemini parts do not). */
  readonly textType?: string;
  /** Reads the citations on an assistant text block. */
  citations?(block: Json, index: number, out: Evidence[]): void;
  /** Reads a content block that is not text; true when it was the provider's. */
  block?(block: Json, index: number, out: Evidence[]): boolean;
}

export function addSource(
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

/**
 * Reads the citations of `type` in `list` that name a page; `details` adds what only that
 * provider's citations carry.
 */
export function addCitations(
  out: Evidence[],
  index: number,
  list: unknown,
  type: string,
  details: (citation: Json) => Partial<Citation>,
): void {
  forEach(list, (citation) => {
    if (!isJson(citation) || citation.type !== type || !isUrl(citation.url)) return;
    out.push({
      kind: "citation",
      citation: {
        url: citation.url,
        ...text("title", citation.title),
        messageIndex: index,
        ...details(citation),
      },
    });
  });
}

/** Visits each element of `list` when it is an array; an element that throws is skipped. */
export function forEach(list: unknown, visit: (item: unknown) => void): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) attempt(() => visit(list[i]));
}

/** Runs one step of the walk; an entry that throws (a hostile getter, a proxy) is skipped. */
export function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // Skipped: the audit must survive any input.
  }
}

export function text<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (typeof value === "string" ? { [key]: value } : {}) as { [P in K]?: string };
}

export function offset<K extends string>(key: K, value: unknown): { [P in K]?: number } {
  return (Number.isSafeInteger(value) ? { [key]: value } : {}) as { [P in K]?: number };
}

export function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isUrl(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
