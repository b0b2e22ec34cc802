/**
 * The rules of table elements: tables, their sections, rows and cells (see `tables.ts` for how
 * they are written), and tables nested too deep, written as plain blocks.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import {
  closeCell,
  closeRow,
  finishTable,
  markLayout,
  MAX_TABLE_DEPTH,
  openCell,
  openRow,
  openTable,
  tableSection,
} from "./tables.ts";
import { breakLine } from "./writer.ts";
import { BLOCK_RULE } from "./block_rules.ts";
import { CELL, define, FLAT_TABLE, ROW, type Rule, SECTION, TABLE } from "./rule.ts";

export const TABLE_RULE: Rule = define({
  kind: TABLE,
  closesP: true,
  choose: (c) => c.tables.length >= MAX_TABLE_DEPTH ? FLAT_TABLE_RULE : TABLE_RULE,
  open: openTable,
  close: finishTable,
});

/** A table nested too deep: its cells would be copied into every enclosing one (quadratic). */
const FLAT_TABLE_RULE: Rule = define({
  kind: FLAT_TABLE,
  open(c) {
    markLayout(c);
    c.flatTables++;
    breakLine(c.w, 1);
  },
  close(c) {
    c.flatTables--;
    breakLine(c.w, 1);
  },
});

function closeCells(c: Converter): void {
  c.closeImplied("td", ROW);
  c.closeImplied("th", ROW);
}

/** `<thead>`, `<tbody>`, `<tfoot>`: each ends the open cell, row and section. */
export const SECTION_RULE: Rule = define({
  kind: SECTION,
  inTable: true,
  implies(c) {
    closeCells(c);
    c.closeImplied("tr", TABLE);
    c.closeImplied("thead", TABLE);
    c.closeImplied("tbody", TABLE);
    c.closeImplied("tfoot", TABLE);
  },
  open: tableSection,
  close: (c) => tableSection(c, ""),
});

export const ROW_RULE: Rule = define({
  kind: ROW,
  inTable: true,
  implies(c) {
    closeCells(c);
    c.closeImplied("tr", TABLE);
  },
  choose: (c) => c.flatTables > 0 ? BLOCK_RULE : ROW_RULE,
  open: openRow,
  close: closeRow,
});

export const CELL_RULE: Rule = define({
  kind: CELL,
  inTable: true,
  implies: closeCells,
  choose: (c) => c.flatTables > 0 ? BLOCK_RULE : CELL_RULE,
  open: openCell,
  close: closeCell,
});
