/**
 * Our tokenizer with nothing listening, what the converter's own work adds up from, as an entry
 * point of its own: bundled into a separate module (as the floor is), its calls to an empty sink
 * leave the converter's copy of the tokenizer seeing one sink only, as in a user's program.
 *
 * @module
 */
import { tokenize, type TokenSink } from "../src/html/tokenizer.ts";

const EMPTY_SINK: TokenSink = {
  ontext() {},
  onopentagname() {},
  onattribute() {},
  onopentagend() {},
  onclosetag() {},
  onend() {},
};

/** Tokenizes `html` with nothing listening. */
export function tokenizeAlone(html: string): string {
  tokenize(html, EMPTY_SINK);
  return "";
}
