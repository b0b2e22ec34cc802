import assert from "node:assert/strict";
import { SetupError, ToolError, webFetch } from "../mod.ts";
import { type BodyDecoder, HttpReader } from "../src/fetch/mod.ts";
import { pdfDecoder } from "../pdf/mod.ts";
import { localServer } from "./support/local_server.ts";
import { makePdf, NOT_PDF } from "./support/pdf.ts";

const PDF = "application/pdf";

/** A server on 127.0.0.1 that answers every request with `body` under `type` (none if null). */
function serve(body: Uint8Array, type: string | null) {
  return localServer(() =>
    new Response(body.slice(), { headers: type === null ? {} : { "content-type": type } })
  );
}

function reader(decoders: BodyDecoder[] = [pdfDecoder()], maxBytes?: number) {
  return new HttpReader({ allowPrivateNetwork: true, decoders, maxBytes });
}

Deno.test("a PDF's text comes page by page under page markers, titled from its metadata", {
  timeout: 60_000,
}, async () => {
  const pdf = makePdf({
    pages: [["Outpost reads PDFs", "as text (with parentheses)"], ["The second page"], []],
    title: "Annual report – 2026 ✓",
  });
  await using server = serve(pdf, PDF);
  const page = await reader().read(`${server.origin}/report.pdf`);
  assert.equal(page.mediaType, PDF);
  assert.equal(page.title, "Annual report – 2026 ✓");
  assert.equal(page.sizeCapped, false);
  assert.equal(
    page.text,
    "[Page 1 of 3]\nOutpost reads PDFs\nas text (with parentheses)\n\n" +
      "[Page 2 of 3]\nThe second page\n\n" +
      "[Page 3 of 3]\n(no text on this page)",
  );
});

Deno.test("web_fetch pages through a long PDF by offset, as through HTML", {
  timeout: 60_000,
}, async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long page of prose.`);
  const pdf = makePdf({ pages: [lines, lines, lines], title: "Long" });
  await using server = serve(pdf, PDF);
  const fetchTool = webFetch(reader(), { maxChars: 1_000 });
  const url = `${server.origin}/long.pdf`;
  const first = await fetchTool.execute({ url });
  assert.match(first, /^URL: .*\/long\.pdf\nHTTP 200 · application\/pdf\n/);
  assert.match(first, /Title: Long/);
  assert.match(first, /\[Page 1 of 3\]\nLine 1 of a long page/);
  let text = first;
  let offset = Number(/Continue with offset=(\d+)/.exec(first)?.[1]);
  let calls = 1;
  while (Number.isInteger(offset)) {
    const part = await fetchTool.execute({ url, offset });
    assert.doesNotMatch(part, /Title:/);
    text += part;
    offset = Number(/Continue with offset=(\d+)/.exec(part)?.[1]);
    calls++;
  }
  assert.ok(calls > 3, `only ${calls} parts`);
  for (const marker of ["[Page 2 of 3]", "[Page 3 of 3]"]) assert.ok(text.includes(marker));
  assert.match(text, /\[Page 3 of 3\][\s\S]*Line 40 of a long page/);
  // The server sent the file once: later parts come from the reader's cache.
  assert.equal(server.received.length, 1);
});

Deno.test("a PDF is recognised by its %PDF- signature when untyped or octet-stream", {
  timeout: 60_000,
}, async () => {
  const pdf = makePdf({ pages: [["Sniffed"]] });
  for (const type of [null, "application/octet-stream", "binary/octet-stream"]) {
    await using server = serve(pdf, type);
    const page = await reader().read(`${server.origin}/download`);
    assert.equal(page.mediaType, PDF, `served as ${type}`);
    assert.equal(page.text, "[Page 1 of 1]\nSniffed");
  }
});

Deno.test("a declared type other than PDF is not sniffed", { timeout: 60_000 }, async () => {
  await using server = serve(makePdf({ pages: [["Hidden"]] }), "image/png");
  const page = await reader().read(`${server.origin}/picture`);
  assert.equal(page.mediaType, "image/png");
  assert.match(page.text, /^\(binary content not shown: image\/png, \d+ bytes\)$/);
});

Deno.test("an encrypted PDF says so", { timeout: 60_000 }, async () => {
  await using server = serve(makePdf({ pages: [["secret"]], encrypted: true }), PDF);
  const answer = await webFetch(reader()).execute({ url: `${server.origin}/locked.pdf` });
  assert.match(answer, /This PDF is encrypted with a password, so its text cannot be read\./);
  assert.doesNotMatch(answer, /secret/);
});

Deno.test("a PDF of scanned images says it has no text layer", { timeout: 60_000 }, async () => {
  const pdf = makePdf({ pages: [[], []], imagePages: [1, 2], title: "Scan" });
  await using server = serve(pdf, PDF);
  const page = await reader().read(`${server.origin}/scan.pdf`);
  assert.equal(page.title, "Scan");
  assert.equal(
    page.text,
    "(This PDF has no text layer in its 2 pages: it is probably scanned images, and no OCR is done.)",
  );
});

Deno.test("pages past maxPages are left out with a note", { timeout: 60_000 }, async () => {
  const pdf = makePdf({ pages: Array.from({ length: 5 }, (_, i) => [`Page ${i + 1} body`]) });
  await using server = serve(pdf, PDF);
  const page = await reader([pdfDecoder({ maxPages: 2 })]).read(`${server.origin}/five.pdf`);
  assert.equal(
    page.text,
    "[Page 1 of 5]\nPage 1 body\n\n[Page 2 of 5]\nPage 2 body\n\n" +
      "[Pages 3–5 of 5 not read: the reader stops at 2 pages.]",
  );
});

Deno.test("a PDF is downloaded up to the decoder's byte cap, and a cut-off one is an error", {
  timeout: 60_000,
}, async () => {
  const pdf = makePdf({
    pages: Array.from({ length: 30 }, (_, i) => [`Page ${i + 1} `.repeat(40)]),
  });
  await using server = serve(pdf, PDF);
  // The decoder's cap, not the reader's, bounds a declared PDF.
  const whole = await reader([pdfDecoder()], 1_000).read(`${server.origin}/a.pdf`);
  assert.equal(whole.sizeCapped, false);
  assert.match(whole.text, /\[Page 30 of 30\]/);
  await assert.rejects(
    reader([pdfDecoder({ maxBytes: Math.floor(pdf.length / 2) })]).read(`${server.origin}/b.pdf`),
    (error: Error) =>
      error instanceof ToolError && /larger than the download limit/.test(error.message),
  );
});

Deno.test("a damaged PDF is a ToolError naming the file", { timeout: 60_000 }, async () => {
  await using server = serve(NOT_PDF, PDF);
  await assert.rejects(
    reader().read(`${server.origin}/broken.pdf`),
    (error: Error) => error instanceof ToolError && /not a readable PDF/.test(error.message),
  );
});

Deno.test("without the decoder a PDF says plainly it is not read, and how to read it", {
  timeout: 60_000,
}, async () => {
  await using server = serve(makePdf({ pages: [["Unread"]] }), PDF);
  const page = await new HttpReader({ allowPrivateNetwork: true }).read(`${server.origin}/x.pdf`);
  assert.match(page.text, /^\(PDF not read: \d+ bytes\. This web_fetch has no PDF reader/);
  assert.match(page.text, /pdfDecoder\(\) from @outpost\/agent-tools\/pdf/);
});

Deno.test("a decoder that fails reports a ToolError, not a broken connection", {
  timeout: 60_000,
}, async () => {
  const failing: BodyDecoder = {
    mediaTypes: ["text/csv"],
    decode: () => Promise.reject(new RangeError("row 3 has no end")),
  };
  await using server = serve(new TextEncoder().encode("a,b\n"), "text/csv");
  await assert.rejects(
    reader([failing]).read(`${server.origin}/data.csv`),
    (error: Error) =>
      error instanceof ToolError &&
      error.message ===
        `Could not read the text/csv body from ${new URL(server.origin).host} (RangeError).`,
  );
});

Deno.test("bad decoder options are SetupErrors", () => {
  assert.throws(() => pdfDecoder({ maxPages: 0 }), SetupError);
  assert.throws(() => pdfDecoder({ timeoutMs: 1.5 }), SetupError);
  assert.throws(() => pdfDecoder({ maxBytes: -1 }), SetupError);
  const noDecode = { mediaTypes: [PDF] } as unknown as BodyDecoder;
  assert.throws(() => reader([noDecode]), SetupError);
  const upper = { mediaTypes: ["Application/PDF"], decode: () => Promise.resolve({ text: "" }) };
  assert.throws(() => reader([upper]), SetupError);
});

const MANY_PAGES = makePdf({
  pages: Array.from({ length: 500 }, (_, i) => [`Page ${i + 1}`, "Some words on it."]),
});

Deno.test({
  name: "reading stops at the time limit, with the pages read so far",
  timeout: 60_000,
  async fn() {
    const decoder = pdfDecoder({ timeoutMs: 1 });
    const context = { url: "http://127.0.0.1/", mediaType: PDF, sizeCapped: false };
    // 500 pages cannot be read within a millisecond: the limit stops it while opening (an
    // error) or part of the way through (a note), never after the last page.
    const outcome = await decoder
      .decode(MANY_PAGES, { ...context, signal: new AbortController().signal })
      .then(({ text }) => text, (error: Error) => error);
    if (outcome instanceof Error) {
      assert.ok(outcome instanceof ToolError, String(outcome));
      assert.equal(outcome.message, "Opening the PDF took longer than 0.001 s.");
    } else {
      assert.match(
        outcome,
        /\[Stopped after page \d+ of 500: reading this PDF took longer than 0\.001 s\.\]$/,
      );
      assert.doesNotMatch(outcome, /\[Page 500 of 500\]/);
    }
  },
});

Deno.test({
  name: "an abort stops the decoding and rejects with its reason",
  timeout: 60_000,
  async fn() {
    const context = { url: "http://127.0.0.1/", mediaType: PDF, sizeCapped: false };
    const reason = new Error("the caller gave up");
    await assert.rejects(
      pdfDecoder().decode(MANY_PAGES, { ...context, signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
    const controller = new AbortController();
    const decoding = pdfDecoder().decode(MANY_PAGES, { ...context, signal: controller.signal });
    controller.abort(reason);
    await assert.rejects(decoding, (error) => error === reason);
  },
});

Deno.test("decoding leaves the caller's bytes intact", { timeout: 60_000 }, async () => {
  const pdf = makePdf({ pages: [["Twice"]] });
  const context = { url: "http://127.0.0.1/", mediaType: PDF, sizeCapped: false };
  const signal = new AbortController().signal;
  const first = await pdfDecoder().decode(pdf, { ...context, signal });
  assert.equal(pdf.byteLength > 0, true);
  assert.deepEqual(await pdfDecoder().decode(pdf, { ...context, signal }), first);
});

Deno.test("compressed page contents and an XMP title, as real producers write them", {
  timeout: 60_000,
}, async () => {
  const pdf = makePdf({
    pages: [["Deflated words", "on two lines"], ["and a second page"]],
    xmpTitle: "Title from XMP",
    compress: true,
  });
  await using server = serve(pdf, PDF);
  const page = await reader().read(`${server.origin}/real.pdf`);
  assert.equal(page.title, "Title from XMP");
  assert.equal(
    page.text,
    "[Page 1 of 2]\nDeflated words\non two lines\n\n[Page 2 of 2]\nand a second page",
  );
});

Deno.test("a PDF is read on a runtime without AbortSignal.any, as Vercel's edge-runtime is", {
  timeout: 60_000,
}, async () => {
  const pdf = makePdf({ pages: [["Read without AbortSignal.any"]] });
  await using server = serve(pdf, PDF);
  const any = Object.getOwnPropertyDescriptor(AbortSignal, "any")!;
  Object.defineProperty(AbortSignal, "any", { ...any, value: undefined });
  try {
    const signal = new AbortController().signal;
    const page = await reader().read(`${server.origin}/plain.pdf`, { signal });
    assert.match(page.text, /Read without AbortSignal\.any/);
  } finally {
    Object.defineProperty(AbortSignal, "any", any);
  }
});
