import { timeLimit } from "../src/clock.ts";
import { checkOption, positiveInteger } from "../src/option_checks.ts";
import { ToolError } from "../mod.ts";
import type { BodyDecoder, DecodedBody } from "../src/fetch/mod.ts";

/**
 * Options of {@linkcode pdfDecoder}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pdfDecoder, type PdfDecoderOptions } from "@outpost/agent-tools/pdf";
 * const options: PdfDecoderOptions = { maxBytes: 5_000_000, maxPages: 50, timeoutMs: 5_000 };
 * assert.equal(pdfDecoder(options).maxBytes, 5_000_000);
 * ```
 */
export interface PdfDecoderOptions {
  /** PDFs are downloaded up to this many bytes (default 20 000 000): their text needs the whole file. */
  maxBytes?: number;
  /** Pages past this many are not read, and the text says so (default 300). */
  maxPages?: number;
  /** Reading stops after this long, keeping the pages read so far (default 15 000 ms). */
  timeoutMs?: number;
}

/** The signature every PDF file opens with. */
const SIGNATURE = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** The longest stretch of pdf.js work between two turns of the event loop, in milliseconds. */
const BREATHER_MS = 20;

/** Marks this decoder's own time limit, to tell it from the caller's abort. */
class TimeLimit extends Error {}

/**
 * A {@linkcode BodyDecoder} for PDFs, on pdf.js as `unpdf` packages it for serverless runtimes
 * (Deno, Workers, Node, browsers): `HttpReader` then returns a PDF's text page by page, each
 * page under a `[Page n of N]` marker, with the title from the document's metadata. Pages past
 * `maxPages` or the time limit are left out with a note; an encrypted PDF, or one that is only
 * scanned images, says so instead of giving text. It lives in its own module so that pdf.js
 * (about 1.7 MB, loaded on the first PDF) stays out of deployments that do not ask for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { pdfDecoder } from "@outpost/agent-tools/pdf";
 * const decoder = pdfDecoder({ maxPages: 100 });
 * const fetchTool = webFetch(new HttpReader({ decoders: [decoder] }));
 * // It reads bodies declared as PDF, and untyped ones that open like a PDF.
 * assert.ok(decoder.mediaTypes.includes("application/pdf"));
 * assert.equal(decoder.sniff?.(new TextEncoder().encode("%PDF-1.7\n")), true);
 * ```
 */
export function pdfDecoder(options: PdfDecoderOptions = {}): BodyDecoder {
  const { maxBytes = 20_000_000, maxPages = 300, timeoutMs = 15_000 } = options;
  checkOption("maxBytes", maxBytes, positiveInteger);
  checkOption("maxPages", maxPages, positiveInteger);
  checkOption("timeoutMs", timeoutMs, positiveInteger);
  return {
    mediaTypes: ["application/pdf", "application/x-pdf"],
    maxBytes,
    sniff: (head) => SIGNATURE.every((byte, index) => head[index] === byte),
    decode: (body, context) =>
      readPdf(body, { maxPages, timeoutMs, signal: context.signal, capped: context.sizeCapped }),
  };
}

interface ReadLimits {
  maxPages: number;
  timeoutMs: number;
  signal: AbortSignal;
  capped: boolean;
}

async function readPdf(body: Uint8Array, limits: ReadLimits): Promise<DecodedBody> {
  // Loaded on the first PDF, so that a deployment that never meets one never loads pdf.js.
  const { getResolvedPDFJS } = await import("unpdf");
  const { getDocument } = await getResolvedPDFJS();
  const { signal } = limits;
  signal.throwIfAborted();
  const task = getDocument({
    // pdf.js takes the buffer over (detaches it): it gets a copy, so the caller's stays usable.
    data: body.slice(),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  const deadline = performance.now() + limits.timeoutMs;
  const limit = timeLimit(limits.timeoutMs, { signal, reason: () => new TimeLimit() });
  // pdf.js runs in promise callbacks, which a timer cannot interrupt: the clock is read too.
  const overdue = () => limit.expired || performance.now() >= deadline;
  const stop = limit.signal;
  // pdf.js takes no signal: destroying the task rejects whatever it is working on.
  const interrupted = new Promise<never>((_, reject) => {
    const onStop = () => reject(stop.reason);
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
  });
  interrupted.catch(() => {});
  const within = <T>(work: Promise<T>): Promise<T> => Promise.race([work, interrupted]);
  try {
    let document;
    try {
      document = await within(task.promise);
      if (overdue()) throw new TimeLimit();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return unreadable(error, limits);
    }
    const title = await within(metadataTitle(document)).catch(() => undefined);
    const total = document.numPages;
    const last = Math.min(total, limits.maxPages);
    const pages: string[] = [];
    let stopped = false;
    let breather = performance.now();
    for (let number = 1; number <= last; number++) {
      // Give timers, I/O and aborts a turn now and then: a long PDF must not stall a server.
      if (performance.now() - breather >= BREATHER_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        breather = performance.now();
      }
      signal.throwIfAborted();
      if (overdue()) {
        stopped = true;
        break;
      }
      try {
        pages.push(await within(pageText(document, number)));
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof TimeLimit)) throw error;
        stopped = true;
        break;
      }
    }
    return { text: layOut(pages, total, limits, stopped), ...(title ? { title } : {}) };
  } finally {
    limit.release();
    await task.destroy().catch(() => {});
  }
}

interface PdfDocument {
  numPages: number;
  getMetadata(): Promise<{ info: unknown; metadata: { get(name: string): unknown } | null }>;
  getPage(number: number): Promise<{
    getTextContent(): Promise<{ items: unknown[] }>;
    cleanup(): unknown;
  }>;
}

/** The title the document's info dictionary or XMP metadata gives, if any. */
async function metadataTitle(document: PdfDocument): Promise<string | undefined> {
  const { info, metadata } = await document.getMetadata();
  const candidates = [(info as { Title?: unknown } | null)?.Title, metadata?.get("dc:title")];
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate.trim() !== "") {
      return candidate.replace(/\s+/g, " ").trim();
    }
  }
  return undefined;
}

/** A page's text in reading order as pdf.js gives it, with its line breaks. */
async function pageText(document: PdfDocument, number: number): Promise<string> {
  const page = await document.getPage(number);
  const content = await page.getTextContent();
  let text = "";
  for (const item of content.items as { str?: unknown; hasEOL?: unknown }[]) {
    if (typeof item.str !== "string") continue;
    text += item.str;
    if (item.hasEOL) text += "\n";
  }
  page.cleanup();
  // Trailing blanks go; each match starts at a run's first blank, as `[ \t]+$` alone rescans a
  // long run that does not end its line from each of its characters (quadratic).
  return text.replace(/\r\n?/g, "\n").replace(/(?<![ \t\f\v])[ \t\f\v]+$/gm, "").replace(
    /\n{3,}/g,
    "\n\n",
  )
    .trim();
}

function layOut(pages: string[], total: number, limits: ReadLimits, stopped: boolean): string {
  const notes: string[] = [];
  const unread = total - pages.length;
  if (stopped) {
    notes.push(
      `[Stopped after page ${pages.length} of ${total}: reading this PDF took longer than ` +
        `${limits.timeoutMs / 1000} s.]`,
    );
  } else if (unread > 0) {
    notes.push(
      `[Pages ${pages.length + 1}–${total} of ${total} not read: the reader stops at ` +
        `${limits.maxPages} pages.]`,
    );
  }
  if (pages.length > 0 && pages.every((page) => page === "")) {
    const scope = unread > 0 ? `its first ${pages.length} of ${total} pages` : `its ${total} pages`;
    return [
      `(This PDF has no text layer in ${scope}: it is probably scanned images, and no OCR is done.)`,
      ...notes,
    ].join("\n\n");
  }
  const body = pages.map((page, index) =>
    `[Page ${index + 1} of ${total}]\n${page === "" ? "(no text on this page)" : page}`
  );
  return [...body, ...notes].join("\n\n");
}

/** A note, or a `ToolError`, for a PDF pdf.js could not open. */
function unreadable(error: unknown, limits: ReadLimits): DecodedBody {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "PasswordException") {
    return { text: "(This PDF is encrypted with a password, so its text cannot be read.)" };
  }
  if (error instanceof TimeLimit) {
    throw new ToolError(`Opening the PDF took longer than ${limits.timeoutMs / 1000} s.`, {
      hint: "The file may be very large or damaged; try another source.",
      code: "timeout",
    });
  }
  // pdf.js's class of error, not its message, which can quote the file (a filter's name, say)
  // and is printed outside the fence.
  const reason = typeof name === "string" && /^[A-Za-z]{1,40}$/.test(name) ? name : "Error";
  if (limits.capped) {
    throw new ToolError(
      `The PDF is larger than the download limit, and pdf.js could not read its first part (${reason}).`,
      {
        hint: "Look for an HTML version or a smaller file of the same document.",
        code: "unsupported_content",
        cause: error,
      },
    );
  }
  throw new ToolError(`The file is not a readable PDF (${reason}).`, {
    hint: "It may be damaged; try another source.",
    code: "unsupported_content",
    cause: error,
  });
}
