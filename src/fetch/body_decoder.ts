import { showHost } from "../shown_host.ts";
import { SetupError, ToolError } from "../errors.ts";
import { checkOption, positiveNumber } from "../option_checks.ts";

/**
 * What a {@linkcode BodyDecoder} is told about the body it decodes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type DecodeContext, HttpReader } from "@outpost/agent-tools/fetch";
 * const seen: DecodeContext[] = [];
 * const csv = {
 *   mediaTypes: ["text/csv"],
 *   decode: (_body: Uint8Array, context: DecodeContext) => (seen.push(context), Promise.resolve({ text: "" })),
 * };
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response("a,b", { headers: { "content-type": "text/csv; charset=utf-8" } }));
 * const url = `http://127.0.0.1:${server.addr.port}/data.csv`;
 * await new HttpReader({ allowPrivateNetwork: true, decoders: [csv] }).read(url);
 * assert.deepEqual([seen[0].url, seen[0].mediaType, seen[0].sizeCapped], [url, "text/csv", false]);
 * ```
 */
export interface DecodeContext {
  /** The final URL, after redirects. */
  url: string;
  /** The declared media type, or `""` for a body recognised by its signature. */
  mediaType: string;
  /** Whether the download stopped at the byte cap, so the body's tail is missing. */
  sizeCapped: boolean;
  /** Aborted when the read times out or the caller gives up: stop decoding then. */
  signal: AbortSignal;
}

/**
 * A body as a {@linkcode BodyDecoder} gives it back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type DecodedBody, HttpReader } from "@outpost/agent-tools/fetch";
 * const body: DecodedBody = { text: "[Page 1 of 1]\nHello", title: "Greeting" };
 * const decoder = { mediaTypes: ["application/x-greeting"], decode: () => Promise.resolve(body) };
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response("…", { headers: { "content-type": "application/x-greeting" } }));
 * const reader = new HttpReader({ allowPrivateNetwork: true, decoders: [decoder] });
 * const page = await reader.read(`http://127.0.0.1:${server.addr.port}/`);
 * assert.deepEqual([page.title, page.text], ["Greeting", "[Page 1 of 1]\nHello"]);
 * ```
 */
export interface DecodedBody {
  /** The text the model reads, e.g. a PDF's text with page markers, or a note saying why none. */
  text: string;
  /** The document's title, when it names one. */
  title?: string;
}

/**
 * Teaches {@linkcode HttpReader} a kind of body it does not read itself, such as PDF (see
 * `pdfDecoder` in `@outpost/agent-tools/pdf`): the reader hands it bodies declared as one of
 * its `mediaTypes`, and untyped or `application/octet-stream` bodies whose first bytes
 * `sniff` recognises. Decoders live outside the core so that their weight is paid only by
 * deployments that pass them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BodyDecoder, HttpReader } from "@outpost/agent-tools/fetch";
 * const csv: BodyDecoder = {
 *   mediaTypes: ["text/csv"],
 *   decode: (body) => Promise.resolve({ text: new TextDecoder().decode(body).replaceAll(",", " | ") }),
 * };
 * const reader = new HttpReader({ decoders: [csv], allowPrivateNetwork: true });
 * await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
 *   new Response("a,b", { headers: { "content-type": "text/csv" } }));
 * const page = await reader.read(`http://127.0.0.1:${server.addr.port}/data.csv`);
 * assert.equal(page.text, "a | b");
 * ```
 */
export interface BodyDecoder {
  /** The media types it reads, lower case and without parameters, e.g. `application/pdf`. */
  readonly mediaTypes: readonly string[];
  /** Recognises a body that declares no type (or `application/octet-stream`) by its first KiB. */
  sniff?(head: Uint8Array): boolean;
  /**
   * Bodies it reads are downloaded up to this many bytes instead of the reader's `maxBytes`
   * when their type is declared, since some formats (PDF) need the whole file.
   */
  readonly maxBytes?: number;
  /**
   * Turns the body into text. A body it cannot read (encrypted, damaged) gets a note as text;
   * an error is reported to the model as a failed read, named by its class only (its message
   * may quote the file); throw a `ToolError` to give the model words of your own.
   */
  decode(body: Uint8Array, context: DecodeContext): Promise<DecodedBody>;
}

/** Types whose body says nothing about what it is, so a decoder may sniff it. */
export const UNTYPED = new Set(["", "application/octet-stream", "binary/octet-stream"]);

/** Checks `decoders` as the reader's constructor receives them; throws `SetupError`. */
export function checkDecoders(decoders: unknown): readonly BodyDecoder[] {
  if (!Array.isArray(decoders)) throw new SetupError("decoders must be an array of BodyDecoder.");
  for (const decoder of decoders as BodyDecoder[]) {
    if (typeof decoder?.decode !== "function" || !Array.isArray(decoder.mediaTypes)) {
      throw new SetupError(
        "Each decoder must implement BodyDecoder: mediaTypes and decode(body, context).",
      );
    }
    const bad = decoder.mediaTypes.find((type) =>
      typeof type !== "string" || type !== type.toLowerCase() || !/^[\w.+-]+\/[\w.+-]+$/.test(type)
    );
    if (bad !== undefined) {
      throw new SetupError(`A decoder's media type must be lower case type/subtype, not ${bad}.`);
    }
    if (decoder.maxBytes !== undefined) {
      checkOption("A decoder's maxBytes", decoder.maxBytes, positiveNumber);
    }
  }
  return [...decoders];
}

/** Runs `decoder`; what it throws, other than an abort or a `ToolError`, becomes a `ToolError`. */
export async function runDecoder(
  decoder: BodyDecoder,
  body: Uint8Array,
  context: DecodeContext,
): Promise<DecodedBody> {
  try {
    const decoded = await decoder.decode(body, context);
    if (typeof decoded?.text !== "string") throw new TypeError("the decoder returned no text");
    return decoded;
  } catch (error) {
    if (context.signal.aborted || error instanceof ToolError) throw error;
    const type = context.mediaType || "untyped";
    // Named by host and error class only: the URL's path and the decoder's message can carry the
    // site's words (a file's own strings), and this is printed outside the fence.
    const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)
      ? error.name
      : "Error";
    throw new ToolError(
      `Could not read the ${type} body from ${showHost(context.url)} (${name}).`,
      {
        hint: "The file may be damaged or of an unsupported kind; try another source.",
        code: "unsupported_content",
        cause: error,
      },
    );
  }
}
