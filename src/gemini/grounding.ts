import { SetupError } from "../errors.ts";
import {
  addSource,
  type Evidence,
  forEach,
  isJson,
  isUrl,
  type Json,
  offset,
  text,
  type TranscriptDialect,
} from "../hosted/evidence.ts";
import type { GeminiHostedOptions } from "../hosted/hosted_options.ts";
import type { HostedWebFetch } from "../hosted/native_web_fetch.ts";
import type { HostedWebSearch } from "../hosted/native_web_search.ts";
import { checkOption, flag } from "../option_checks.ts";

/**
 * The Gemini API's Google Search grounding tool (a `tools` entry; `google_search` in REST
 * snake case, `googleSearch` in `@google/genai`, both accepted by the API).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebSearch } from "@outpost/agent-tools/hosted";
 * import type { GeminiGoogleSearchTool } from "@outpost/agent-tools/gemini";
 * const tool: GeminiGoogleSearchTool = nativeWebSearch().toGemini();
 * assert.deepEqual(tool, { googleSearch: {} });
 * ```
 */
export interface GeminiGoogleSearchTool {
  /** Search with Google; it takes no settings in the Gemini API. */
  googleSearch: Record<string, never>;
}

/**
 * The Gemini API's URL context tool: the model reads the URLs the prompt names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeWebFetch } from "@outpost/agent-tools/hosted";
 * import type { GeminiUrlContextTool } from "@outpost/agent-tools/gemini";
 * const tool: GeminiUrlContextTool = nativeWebFetch().toGemini();
 * assert.deepEqual(tool, { urlContext: {} });
 * ```
 */
export interface GeminiUrlContextTool {
  /** Read the prompt's URLs; it takes no settings. */
  urlContext: Record<string, never>;
}

/** The Gemini `google_search` tool for a validated hosted search. */
export function geminiGoogleSearchTool(
  search: HostedWebSearch,
  options: GeminiHostedOptions | undefined,
  warn: (option: string, why: string) => void,
): GeminiGoogleSearchTool {
  refuseDomainRules("google_search", search, options);
  const ignored = [
    ["maxUses", search.maxUses],
    ["userLocation", search.userLocation],
    ["searchContextSize", search.searchContextSize],
    ["dynamicFiltering", search.dynamicFiltering || undefined],
    ["externalWebAccess", search.externalWebAccess],
  ] as const;
  for (const [option, value] of ignored) {
    if (value !== undefined) warn(option, "its google_search tool has no such setting");
  }
  return { googleSearch: {} };
}

/** The Gemini `url_context` tool for a validated hosted fetch. */
export function geminiUrlContextTool(
  fetch: HostedWebFetch,
  options: GeminiHostedOptions | undefined,
  warn: (option: string, why: string) => void,
): GeminiUrlContextTool {
  refuseDomainRules("url_context", fetch, options);
  const ignored = [
    ["maxUses", fetch.maxUses],
    ["citations", fetch.citations],
    ["maxContentTokens", fetch.maxContentTokens],
    ["useCache", fetch.useCache],
  ] as const;
  for (const [option, value] of ignored) {
    if (value !== undefined) warn(option, "its url_context tool has no such setting");
  }
  return { urlContext: {} };
}

/** Gemini has no domain filter: domain rules need the caller's `auditOnly` consent. */
function refuseDomainRules(
  tool: string,
  rules: { allowedDomains?: readonly string[]; blockedDomains?: readonly string[] },
  options: GeminiHostedOptions | undefined,
): void {
  const given: unknown = options ?? {};
  if (!isJson(given) || Object.keys(given).some((key) => key !== "auditOnly")) {
    throw new SetupError("toGemini takes only { auditOnly }.");
  }
  const auditOnly = checkOption("auditOnly", given.auditOnly ?? false, flag);
  if (auditOnly || (!rules.allowedDomains && !rules.blockedDomains?.length)) return;
  throw new SetupError(
    `Gemini's ${tool} tool cannot filter domains, so your domain rules would not be applied ` +
      "to what it reads.",
    {
      hint: "Pass toGemini({ auditOnly: true }) to use it anyway and check every answer with " +
        "DomainPolicy.audit, or use Anthropic's tool, which enforces the rules.",
    },
  );
}

const REDIRECT_HOST = "vertexaisearch.cloud.google.com";
// A site name as Gemini puts it in a grounding chunk's title: a bare host name.
const SITE = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/i;

/** Whether `url` is a grounding redirect, which names Google's host, not the page's. */
function isRedirect(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.hostname === REDIRECT_HOST &&
      parsed.pathname.startsWith("/grounding-api-redirect/");
  } catch {
    return false;
  }
}

/**
 * Gemini `generateContent` transcripts: a response (its `candidates`), a candidate, or a
 * `Content` history entry. Sources are the `groundingChunks` (web pages) and the URLs of
 * `urlContextMetadata`; citations are the `groundingSupports`; text is the model's parts.
 */
export const geminiTranscript: TranscriptDialect = {
  items(entry: Json): unknown[] | undefined {
    return Array.isArray(entry.candidates) ? entry.candidates : undefined;
  },
  item(item: Json, index: number, out: Evidence[]): boolean {
    if (isJson(item.content) && Array.isArray(item.content.parts)) {
      readParts(item.content, index, out);
    } else if (Array.isArray(item.parts) && typeof item.role === "string") {
      readParts(item, index, out);
      return true;
    } else if (!isJson(item.groundingMetadata) && !isJson(item.urlContextMetadata)) {
      return false;
    }
    readGrounding(item.groundingMetadata, index, out);
    readUrlContext(item.urlContextMetadata, index, out);
    return true;
  },
};

function readParts(content: Json, index: number, out: Evidence[]): void {
  if (content.role !== "model") return;
  forEach(content.parts, (part) => {
    if (isJson(part) && typeof part.text === "string" && part.thought !== true) {
      out.push({ kind: "text", messageIndex: index, text: part.text });
    }
  });
}

interface Page {
  url: string;
  title?: string;
  site?: string;
  redirect: boolean;
}

function readGrounding(metadata: unknown, index: number, out: Evidence[]): void {
  if (!isJson(metadata)) return;
  const pages: (Page | undefined)[] = [];
  forEach(metadata.groundingChunks, (chunk) => {
    const web = isJson(chunk) && isJson(chunk.web) ? chunk.web : undefined;
    if (!web || !isUrl(web.uri)) return void pages.push(undefined);
    const page = pageOf(web.uri, web.title);
    pages.push(page);
    out.push({
      kind: "source",
      messageIndex: index,
      source: { url: page.url, ...text("title", page.title), ...text("site", page.site) },
      ...(page.redirect && { redirect: true }),
    });
  });
  forEach(metadata.groundingSupports, (support) => {
    if (!isJson(support)) return;
    const segment = isJson(support.segment) ? support.segment : {};
    forEach(support.groundingChunkIndices, (chunkIndex) => {
      const page = typeof chunkIndex === "number" ? pages[chunkIndex] : undefined;
      if (!page) return;
      out.push({
        kind: "citation",
        citation: {
          url: page.url,
          ...text("title", page.title),
          ...text("site", page.site),
          messageIndex: index,
          ...offset("startIndex", segment.startIndex ?? 0),
          ...offset("endIndex", segment.endIndex),
          ...text("supportedText", segment.text),
        },
        ...(page.redirect && { redirect: true }),
      });
    });
  });
}

function pageOf(uri: string, title: unknown): Page {
  const redirect = isRedirect(uri);
  const site = redirect && typeof title === "string" && SITE.test(title) ? title : undefined;
  return { url: uri, ...text("title", title), ...(site && { site }), redirect };
}

function readUrlContext(metadata: unknown, index: number, out: Evidence[]): void {
  if (!isJson(metadata)) return;
  forEach(metadata.urlMetadata, (entry) => {
    if (!isJson(entry) || !isUrl(entry.retrievedUrl)) return;
    const status = entry.urlRetrievalStatus;
    addSource(out, index, entry.retrievedUrl);
    if (typeof status === "string" && status !== "URL_RETRIEVAL_STATUS_SUCCESS") {
      const added = out[out.length - 1];
      if (added.kind === "source") added.source.error = status;
    }
  });
}
