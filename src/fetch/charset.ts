/** How far into a body we look for a `<meta charset>` or an XML declaration, as browsers do. */
const PRESCAN_BYTES = 4_096;

// `[^<>]`, not `[^>]`: each `<meta` is searched only up to the next tag, else a run of them
// without `>` is rescanned from each (quadratic in the prescan).
const META_CHARSET = /<meta[^<>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i;
const XML_ENCODING = /^<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)/i;

/** Decodes a response body with `TextDecoder` in `encoding`, a name from {@link encodingOf}. */
export function decodeBody(bytes: Uint8Array, encoding: string): string {
  return decoderFor(encoding).decode(bytes);
}

/**
 * Without a cut character at its end: the bytes of a UTF-8 sequence, or the odd byte or lone
 * high surrogate of UTF-16, that a size cap left incomplete.
 */
export function dropPartialTail(bytes: Uint8Array, encoding: string): Uint8Array {
  const n = bytes.length;
  if (encoding === "utf-8") {
    // Find the last lead byte within three bytes of the end; keep it only if complete.
    for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
      const b = bytes[i];
      if ((b & 0xc0) === 0x80) continue;
      const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      return i + size > n ? bytes.subarray(0, i) : bytes;
    }
    return bytes;
  }
  if (encoding.startsWith("utf-16")) {
    let end = n - (n % 2);
    const high = encoding === "utf-16be" ? bytes[end - 2] : bytes[end - 1];
    if (end >= 2 && high >= 0xd8 && high <= 0xdb) end -= 2;
    return bytes.subarray(0, end);
  }
  return bytes;
}

/**
 * The encoding of a response body, in the WHATWG order: a byte order mark (which wins even over
 * the header, as in browsers: it cannot be there by accident), else the `Content-Type` charset,
 * else a `<meta charset>`, `<meta http-equiv>` or XML declaration in the first 4 KB, else
 * UTF-8. Labels are given by their canonical name (`utf8` is `utf-8`, `unicode` and `ucs-2` are
 * `utf-16le`); unknown ones fall back to UTF-8.
 */
export function encodingOf(bytes: Uint8Array, contentType: string | null): string {
  const bom = bomEncoding(bytes);
  if (bom) return bom;
  const declared = canonical(/;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? "")?.[1]);
  if (declared) return declared;
  const head = new TextDecoder("windows-1252").decode(bytes.subarray(0, PRESCAN_BYTES));
  const found = canonical(META_CHARSET.exec(head)?.[1] ?? XML_ENCODING.exec(head)?.[1]);
  // A declaration readable as ASCII cannot be in UTF-16, whatever it says.
  if (found) return found.startsWith("utf-16") ? "utf-8" : found;
  return "utf-8";
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

/** The Encoding Standard's name for `label` (`utf8` → `utf-8`), or `undefined` if unknown. */
function canonical(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

function decoderFor(label: string): TextDecoder {
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder("utf-8");
  }
}
