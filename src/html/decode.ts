/**
 * Character references decoded as the HTML standard decodes them in text and in attribute
 * values (legacy references without `;` included), with the `entities` package's decoder. The
 * tokenizer reports raw offsets, which lets it skip through text and attribute values: most
 * have no `&`, and only those read and kept are decoded here.
 *
 * @module
 */
import { DecodingMode, EntityDecoder, htmlDecodeTree } from "entities/decode";

let decoded = "";
let consumed = 0;
const decoder = new EntityDecoder(htmlDecodeTree, (cp, length) => {
  decoded = String.fromCodePoint(cp);
  consumed = length;
});

/** `text` with its character references decoded, as in an attribute value if `attribute`. */
export function decode(text: string, attribute: boolean): string {
  let at = text.indexOf("&");
  if (at < 0) return text;
  let out = "";
  let from = 0;
  while (at >= 0) {
    decoded = "";
    decoder.startEntity(attribute ? DecodingMode.Attribute : DecodingMode.Legacy);
    // A reference cut short by the end of the text ends there, as at the end of the page.
    if (decoder.write(text, at + 1) < 0) decoder.end();
    if (decoded !== "") {
      out += text.slice(from, at) + decoded;
      from = at + consumed;
    }
    at = text.indexOf("&", Math.max(at + 1, from));
  }
  return out + text.slice(from);
}
