/**
 * Hand-written PDFs for tests: real files with a correct cross-reference table, built from
 * object bodies, so tests need no PDF library and nothing fetched from anywhere.
 */
import { deflateSync } from "node:zlib";

const encoder = new TextEncoder();

/** What {@linkcode makePdf} puts in a file. */
export interface PdfSpec {
  /** Each page's lines of text; an empty page has none. */
  pages: string[][];
  /** The info dictionary's title, written as UTF-16BE so any character survives. */
  title?: string;
  /** A title in XMP metadata (`dc:title`), as most producers also write one. */
  xmpTitle?: string;
  /** Pages that draw a 1×1 image instead of text. */
  imagePages?: number[];
  /** Compresses the page contents with FlateDecode, as real producers do. */
  compress?: boolean;
  /** Adds a standard security handler whose user password is not empty. */
  encrypted?: boolean;
}

/** A complete PDF file. */
export function makePdf(spec: PdfSpec): Uint8Array {
  // Object n is objects[n - 1]; references are written by number, so bodies come first as slots.
  const objects: string[] = [];
  const reserve = () => objects.push("");
  const catalog = reserve();
  const pageTree = reserve();
  const font = reserve();
  const image = reserve();
  const pageObjects = spec.pages.map(() => [reserve(), reserve()]);
  objects[font - 1] =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  objects[image - 1] = stream(
    "/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8",
    "\x80",
  );
  spec.pages.forEach((lines, index) => {
    const [page, contents] = pageObjects[index];
    objects[page - 1] = `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 612 792] ` +
      `/Resources << /Font << /F1 ${font} 0 R >> /XObject << /Im1 ${image} 0 R >> >> ` +
      `/Contents ${contents} 0 R >>`;
    const text = lines.map((line) => `(${escape(line)}) Tj`).join(" T* ");
    const content = spec.imagePages?.includes(index + 1)
      ? "q 200 0 0 200 72 500 cm /Im1 Do Q"
      : `BT /F1 12 Tf 14 TL 72 720 Td ${text} ET`;
    objects[contents - 1] = spec.compress
      ? stream("/Filter /FlateDecode", String.fromCharCode(...deflateSync(latin1(content))))
      : stream("", content);
  });
  const kids = pageObjects.map(([page]) => `${page} 0 R`).join(" ");
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids}] /Count ${spec.pages.length} >>`;
  let metadata = "";
  if (spec.xmpTitle !== undefined) {
    const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${spec.xmpTitle}</rdf:li></rdf:Alt></dc:title>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;
    // XMP is UTF-8; the stream holds its bytes.
    const bytes = String.fromCharCode(...encoder.encode(xmp));
    metadata = ` /Metadata ${objects.push(stream("/Type /Metadata /Subtype /XML", bytes))} 0 R`;
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R${metadata} >>`;
  let trailer = "";
  if (spec.title !== undefined) {
    const info = objects.push(
      `<< /Title <FEFF${utf16Hex(spec.title)}> /Producer (Outpost tests) >>`,
    );
    trailer += ` /Info ${info} 0 R`;
  }
  if (spec.encrypted) {
    // RC4 40-bit, revision 2: /U does not match the empty password, so a password is needed.
    const encrypt = objects.push(
      `<< /Filter /Standard /V 1 /R 2 /O <${"5a".repeat(32)}> /U <${"c3".repeat(32)}> /P -44 >>`,
    );
    trailer += ` /Encrypt ${encrypt} 0 R /ID [<${"ab".repeat(16)}> <${"ab".repeat(16)}>]`;
  }
  return assemble(objects, trailer);
}

/** A stream object; `content` is one character per byte. */
function stream(entries: string, content: string): string {
  return `<< ${entries} /Length ${content.length} >>\nstream\n${content}\nendstream`;
}

function escape(text: string): string {
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}

function utf16Hex(text: string): string {
  let hex = "";
  for (let i = 0; i < text.length; i++) {
    hex += text.charCodeAt(i).toString(16).padStart(4, "0").toUpperCase();
  }
  return hex;
}

/** Bytes of a string whose characters are all below U+0100, one byte each. */
function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/** Numbers the objects from 1 (the first is the catalog) and writes the xref and trailer. */
function assemble(objects: string[], trailer: string): Uint8Array {
  let file = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets = objects.map((body, index) => {
    const offset = file.length;
    file += `${index + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = file.length;
  file += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) file += `${String(offset).padStart(10, "0")} 00000 n \n`;
  file += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailer} >>\n`;
  file += `startxref\n${xref}\n%%EOF\n`;
  return latin1(file);
}

/** A file that opens like a PDF and has nothing after its header: for the damaged case. */
export const NOT_PDF = encoder.encode("%PDF-1.7\nthis file stops right after its header\n");
