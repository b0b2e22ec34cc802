/**
 * htmlparser2's tokenizer, the floor of the converter's speed ratio, as an entry point of its
 * own: bundled into a separate module, it shares no JIT state with what is timed against it.
 *
 * @module
 */
export { Tokenizer } from "htmlparser2";
