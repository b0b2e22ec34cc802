import { type BodyDecoder, runDecoder, UNTYPED } from "./body_decoder.ts";
import { readCapped } from "./capped_body.ts";
import { decodeBody, dropPartialTail, encodingOf } from "./charset.ts";
import { htmlToMarkdown } from "./html_to_markdown/mod.ts";
import type { Page, ReadOptions } from "./page.ts";
import {
  BINARY_TYPE,
  declaredType,
  HTML_TYPE,
  JSON_TYPE,
  SNIFF_BYTES,
  sniffText,
} from "./sniff.ts";

/** What an HTML page is made into (see `ReadOptions`). */
export interface PageForm {
  content: "main" | "full";
  inlineImages: "markdown" | "alt" | "none";
  links: boolean;
}

/** How a response's body becomes a page. */
export interface BodyOptions extends PageForm {
  decoders: readonly BodyDecoder[];
  maxBytes: number;
  onProgress?: ReadOptions["onProgress"];
}

/**
 * The page a final (non-redirect) `response` from `url` makes: its body read within the cap,
 * given to a decoder that takes it, else decoded as text (HTML turned into Markdown, JSON
 * compacted); a binary body is a note saying so.
 */
export async function toPage(
  url: URL,
  response: Response,
  signal: AbortSignal,
  options: BodyOptions,
): Promise<Page> {
  const { decoders } = options;
  const contentType = response.headers.get("content-type");
  let mediaType = declaredType(contentType);
  const base = { url: url.href, status: response.status, images: [] };
  const typed = decoders.find((decoder) => decoder.mediaTypes.includes(mediaType));
  // An untyped body is downloaded (within the cap) when a decoder might recognise it.
  const sniffable = UNTYPED.has(mediaType) && decoders.some((decoder) => decoder.sniff);
  if (BINARY_TYPE.test(mediaType) && !typed && !sniffable) {
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (Number.isSafeInteger(declared) && declared >= 0) {
      await response.body?.cancel();
      return { ...base, mediaType, text: binaryNote(mediaType, declared), sizeCapped: false };
    }
  }
  const read = await readCapped(
    response.body,
    typed?.maxBytes ?? options.maxBytes,
    signal,
    options.onProgress,
  );
  const capped = read.capped;
  const decoder = typed ??
    (UNTYPED.has(mediaType)
      ? decoders.find((d) => d.sniff?.(read.bytes.subarray(0, SNIFF_BYTES)))
      : undefined);
  if (decoder) {
    const context = { url: url.href, mediaType, sizeCapped: capped, signal };
    const { text, title } = await runDecoder(decoder, read.bytes, context);
    const type = typed ? mediaType : decoder.mediaTypes[0] ?? "application/octet-stream";
    return { ...base, mediaType: type, text, sizeCapped: capped, ...(title ? { title } : {}) };
  }
  const encoding = encodingOf(read.bytes, contentType);
  // A cap can cut a character in half; its first bytes would decode as U+FFFD.
  const bytes = capped ? dropPartialTail(read.bytes, encoding) : read.bytes;
  const head = bytes.subarray(0, SNIFF_BYTES);
  const utf16 = encoding.startsWith("utf-16");
  if (BINARY_TYPE.test(mediaType) || (!utf16 && head.includes(0))) {
    const type = mediaType || "application/octet-stream";
    return {
      ...base,
      mediaType: type,
      text: binaryNote(type, bytes.length, capped),
      sizeCapped: capped,
    };
  }
  const text = decodeBody(bytes, encoding);
  if (mediaType === "") {
    mediaType = sniffText(text.slice(0, SNIFF_BYTES));
    if (mediaType === "") {
      return {
        ...base,
        mediaType: "",
        text: binaryNote("unknown type", bytes.length, capped),
        sizeCapped: capped,
      };
    }
  }
  if (HTML_TYPE.test(mediaType)) {
    return htmlPage(
      text,
      { ...base, mediaType, sizeCapped: capped },
      options.content,
      options.inlineImages,
      options.links,
    );
  }
  return {
    ...base,
    mediaType,
    text: JSON_TYPE.test(mediaType) ? compactJson(text) : text,
    sizeCapped: capped,
  };
}

/** An HTML document as a {@linkcode Page}: Markdown, its title, images and what was left out. */
export function htmlPage(
  html: string,
  base: Omit<Page, "text" | "images">,
  content: "main" | "full",
  inlineImages: "markdown" | "alt" | "none",
  links: boolean,
): Page {
  const result = htmlToMarkdown(html, {
    baseUrl: base.url,
    images: true,
    content,
    inlineImages,
    links,
  });
  const page: Page = { ...base, text: result.markdown, images: result.images };
  if (result.title) page.title = result.title;
  if (result.omitted > 0) page.omitted = result.omitted;
  if (result.scripted) page.scripted = true;
  return page;
}

function binaryNote(type: string, bytes: number, capped = false): string {
  const size = `${capped ? "more than " : ""}${bytes} bytes`;
  if (type === "application/pdf") {
    // Said plainly, so that neither the model nor whoever reads its transcript takes the file
    // for empty: the entries without pdf.js (a Worker, Vercel's edge) cannot read PDFs.
    return `(PDF not read: ${size}. This web_fetch has no PDF reader; its operator can add ` +
      "one with pdfDecoder() from @outpost/agent-tools/pdf, which the Deno server " +
      "(deno task start), deno task mcp and the CLI use. Meanwhile look for an HTML version.)";
  }
  return `(binary content not shown: ${type}, ${size})`;
}

function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
