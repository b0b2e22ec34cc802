/**
 * Hand-written PDFs for tests: real files with a correct cross-reference table, built from
 * object bodies, so tests need no PDF library and nothing fetched from anywhere.
 */

const encoder = new TextEncoder();

/** What {@linkcode makePdf} puts in a file. */
export interface PdfSpec {
  /** Each page's lines of text; an empty page has none. */
  pages: string[][];
  /** The info dictionary's title, written as UTF-16BE so any character survives. */
  title?: string;
  /** Pages that draw a 1×1 image instead of text. */
  imagePages?: number[];
  /** Adds a standard security handler whose user password is not empty. */
  encrypted?: boolean;
}

/** A complete PDF file. */
export function makePdf(spec: PdfSpec): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add("<< /Type /Catalog /Pages 2 0 R >>");
  const kids = spec.pages.map((_, index) => `${5 + 2 * index} 0 R`).join(" ");
  add(`<< /Type /Pages /Kids [${kids}] /Count ${spec.pages.length} >>`);
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  add(stream(
    "<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray " +
      "/BitsPerComponent 8",
    "\x80",
  ));
  spec.pages.forEach((lines, index) => {
    const image = spec.imagePages?.includes(index + 1);
    add(
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
        "/Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> " +
        `/Contents ${6 + 2 * index} 0 R >>`,
    );
    const text = lines.map((line) => `(${escape(line)}) Tj`).join(" T* ");
    add(
      stream(
        "<<",
        image ? "q 200 0 0 200 72 500 cm /Im1 Do Q" : `BT /F1 12 Tf 14 TL 72 720 Td ${text} ET`,
      ),
    );
  });
  let trailer = "";
  if (spec.title !== undefined) {
    add(`<< /Title <FEFF${utf16Hex(spec.title)}> /Producer (Outpost tests) >>`);
    trailer += ` /Info ${objects.length} 0 R`;
  }
  if (spec.encrypted) {
    // RC4 40-bit, revision 2: /U does not match the empty password, so a password is needed.
    add(`<< /Filter /Standard /V 1 /R 2 /O <${"5a".repeat(32)}> /U <${"c3".repeat(32)}> /P -44 >>`);
    trailer += ` /Encrypt ${objects.length} 0 R /ID [<${"ab".repeat(16)}> <${"ab".repeat(16)}>]`;
  }
  return assemble(objects, trailer);
}

function stream(dictionaryStart: string, content: string): string {
  return `${dictionaryStart} /Length ${latin1(content).length} >>\nstream\n${content}\nendstream`;
}

function escape(text: string): string {
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}

function utf16Hex(text: string): string {
  return [...text].flatMap((char) => {
    const code = char.codePointAt(0)!;
    if (code < 0x10000) return [code];
    const offset = code - 0x10000;
    return [0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff)];
  }).map((unit) => unit.toString(16).padStart(4, "0")).join("").toUpperCase();
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

/** Text that no encoder would mistake for a PDF: for the "not a PDF" cases. */
export const NOT_PDF = encoder.encode("%PDF-1.7\nthis file stops right after its header\n");
