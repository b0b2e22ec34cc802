import {
  addCitations,
  addSource,
  type Evidence,
  forEach,
  isJson,
  isUrl,
  type Json,
  offset,
  type TranscriptDialect,
} from "../hosted/evidence.ts";

/**
 * OpenAI Responses transcripts: a `Response` (its `output` items), `web_search_call` items with
 * `action.sources` and the pages `open_page` and `find_in_page` read, and `url_citation`
 * annotations on `output_text`.
 */
export const openAITranscript: TranscriptDialect = {
  items(entry: Json): unknown[] | undefined {
    // A Response: its output items all belong to this entry.
    return Array.isArray(entry.output) && entry.role === undefined ? entry.output : undefined;
  },
  item(item: Json, index: number, out: Evidence[]): boolean {
    if (item.type !== "web_search_call") return false;
    const action = item.action;
    if (!isJson(action)) return true;
    forEach(action.sources, (source) => {
      if (isJson(source) && isUrl(source.url)) addSource(out, index, source.url);
    });
    // open_page and find_in_page name the page they read.
    if (isUrl(action.url)) addSource(out, index, action.url);
    return true;
  },
  textType: "output_text",
  citations(block: Json, index: number, out: Evidence[]): void {
    addCitations(out, index, block.annotations, "url_citation", (annotation) => ({
      ...offset("startIndex", annotation.start_index),
      ...offset("endIndex", annotation.end_index),
    }));
  },
};
