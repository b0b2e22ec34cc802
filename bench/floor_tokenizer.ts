/**
 * htmlparser2's bare tokenizer with empty callbacks, the floor of the converter's speed ratio,
 * as an entry point of its own: bundled into a separate module, it shares no JIT state with what
 * is timed against it.
 *
 * @module
 */
import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";

const noop = () => {};
const EMPTY_CALLBACKS: TokenizerCallbacks = {
  onattribdata: noop,
  onattribentity: noop,
  onattribend: noop,
  onattribname: noop,
  oncdata: noop,
  onclosetag: noop,
  oncomment: noop,
  ondeclaration: noop,
  onend: noop,
  onopentagend: noop,
  onopentagname: noop,
  onprocessinginstruction: noop,
  onselfclosingtag: noop,
  ontext: noop,
  ontextentity: noop,
};

/** Tokenizes `html`, entities decoded, with nothing listening. */
export function tokenizeOnly(html: string): string {
  const tokenizer = new Tokenizer({ decodeEntities: true }, EMPTY_CALLBACKS);
  tokenizer.write(html);
  tokenizer.end();
  return "";
}
