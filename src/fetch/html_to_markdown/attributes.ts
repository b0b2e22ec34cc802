/**
 * The attributes the converter reads, by id: a bit position in the mask of the tag being read.
 *
 * @module
 */

// Attribute ids, as bit positions in `attrMask`.
export const HREF = 1;
export const SRC = 2;
export const ALT = 3;
export const SRCSET = 4;
export const CLASS = 5;
export const START = 6;
export const VALUE = 7;
export const CONTENT = 8;
export const PROPERTY = 9;
export const HIDDEN = 10;
export const ARIA_HIDDEN = 11;
export const STYLE = 12;
export const COLSPAN = 13;
export const DATA_SRC = 14;
export const OPEN = 15;
export const REVERSED = 16;
export const NAME = 17;
export const DATA_LANG = 18;
export const WIDTH = 19;
export const HEIGHT = 20;
export const ROLE = 21;
export const ID = 22;
export const TYPE = 23;
export const ROWSPAN = 24;
export const REL = 25;
export const ATTRS = new Map<string, number>([
  ["href", HREF],
  ["src", SRC],
  ["alt", ALT],
  ["srcset", SRCSET],
  ["class", CLASS],
  ["start", START],
  ["value", VALUE],
  ["content", CONTENT],
  ["property", PROPERTY],
  ["name", NAME],
  ["hidden", HIDDEN],
  ["aria-hidden", ARIA_HIDDEN],
  ["style", STYLE],
  ["colspan", COLSPAN],
  ["data-src", DATA_SRC],
  ["open", OPEN],
  ["reversed", REVERSED],
  ["data-lang", DATA_LANG],
  ["data-language", DATA_LANG],
  ["width", WIDTH],
  ["height", HEIGHT],
  ["role", ROLE],
  ["id", ID],
  ["type", TYPE],
  ["rowspan", ROWSPAN],
  ["rel", REL],
]);
