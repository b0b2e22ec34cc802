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

/**
 * Anthropic Messages transcripts: `web_search_result_location` citations on text blocks,
 * `web_search_tool_result` blocks (including those a code-execution caller made under dynamic
 * filtering) and the pages of `web_fetch_tool_result` blocks.
 */
export const anthropicTranscript: TranscriptDialect = {
  textType: "text",
  citations(block: Json, index: number, out: Evidence[]): void {
    addCitations(out, index, block.citations, "web_search_result_location", (citation) => ({
      ...text("citedText", citation.cited_text),
    }));
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
      case "web_fetch_tool_result": {
        const result = block.content;
        if (isJson(result) && result.type === "web_fetch_result" && isUrl(result.url)) {
          const document = isJson(result.content) ? result.content : {};
          addSource(out, index, result.url, document.title);
        }
        return true;
      }
      default:
        return false;
    }
  },
};
