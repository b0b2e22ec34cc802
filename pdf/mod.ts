/**
 * PDFs for `web_fetch`: {@linkcode pdfDecoder} plugs into `HttpReader` and reads a PDF's text
 * page by page with pdf.js (npm `unpdf`). A separate entry point, so that deployments that do
 * not read PDFs do not carry pdf.js.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpReader, webFetch } from "@outpost/agent-tools/fetch";
 * import { pdfDecoder } from "@outpost/agent-tools/pdf";
 * const fetchTool = webFetch(new HttpReader({ decoders: [pdfDecoder()] }));
 * assert.equal(fetchTool.name, "web_fetch");
 * ```
 *
 * @module
 */
export { pdfDecoder, type PdfDecoderOptions } from "./pdf_decoder.ts";
