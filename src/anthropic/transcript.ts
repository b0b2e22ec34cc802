import {
  addCitations,
  addSource,
  type Evidence,
  forEach,
  isJson,
  isUrl,
  type Json,
  text,
  type TranscriptDialect,
} from "../hosted/evidence.ts";

// Citations into a document: a fetched page when the document is a `web_fetch_result`'s.
const DOCUMENT_CITATIONS = new Set(["char_location", "page_location", "content_block_location"]);

/**
 * Anthropic Messages transcripts: `web_search_result_location` citations on text blocks,
 * `web_search_tool_result` blocks (including those a code-execution caller made under dynamic
 * filtering), the pages of `web_fetch_tool_result` blocks (a failed fetch under the URL its
 * `server_tool_use` asked for) and the document citations into fetched pages.
 */
export const anthropicTranscript: TranscriptDialect = {
  textType: "text",
  citations(block: Json, index: number, out: Evidence[]): void {
    addCitations(out, index, block.citations, "web_search_result_location", (citation) => ({
      ...text("citedText", citation.cited_text),
    }));
    forEach(block.citations, (citation) => {
      if (!isJson(citation) || !DOCUMENT_CITATIONS.has(citation.type as string)) return;
      if (!Number.isSafeInteger(citation.document_index)) return;
      out.push({
        kind: "document citation",
        documentIndex: citation.document_index as number,
        citation: {
          ...text("title", citation.document_title),
          ...text("citedText", citation.cited_text),
          messageIndex: index,
        },
      });
    });
  },
  block(block: Json, index: number, out: Evidence[]): boolean {
    switch (block.type) {
      case "web_search_tool_result":
        // An error object in `content` (`web_search_tool_result_error`) has no pages.
        forEach(block.content, (result) => {
          if (isJson(result) && isUrl(result.url)) {
            addSource(out, index, result.url, result.title, result.page_age);
          }
        });
        return true;
      case "server_tool_use":
        if (block.name === "web_fetch" && typeof block.id === "string") {
          const input = isJson(block.input) ? block.input : {};
          if (isUrl(input.url)) out.push({ kind: "fetch call", id: block.id, url: input.url });
        }
        return true;
      case "web_fetch_tool_result": {
        const result = block.content;
        if (isJson(result) && result.type === "web_fetch_result" && isUrl(result.url)) {
          const document = isJson(result.content) ? result.content : {};
          addSource(out, index, result.url, document.title);
          out.push({ kind: "document", url: result.url, ...text("title", document.title) });
        } else if (
          isJson(result) && result.type === "web_fetch_tool_result_error" &&
          typeof block.tool_use_id === "string"
        ) {
          const error = typeof result.error_code === "string" ? result.error_code : "unknown";
          out.push({ kind: "fetch error", messageIndex: index, id: block.tool_use_id, error });
        }
        return true;
      }
      case "document":
        // A document the user sent counts among the documents citations are numbered by.
        out.push({ kind: "document", ...text("title", block.title) });
        return true;
      default:
        return false;
    }
  },
};
