/**
 * Tables: each cell is written into a sink of its own, so that once the table ends its shape
 * decides how it prints — a GFM pipe table, or plain blocks for a layout table.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { COLSPAN } from "./attributes.ts";
import { breakLine, flush, lines, newSink, type Sink } from "./writer.ts";

/** Tables nested deeper than this render as plain blocks, so nesting costs no copying. */
export const MAX_TABLE_DEPTH = 2;

/** One table being read. */
export interface TableState {
  rows: string[][];
  row: string[] | undefined;
  /** The sink that was current before the open cell; set while a cell is open. */
  outer: Sink | undefined;
  colspan: number;
  /** A table inside one of its cells makes it a layout table. */
  layout: boolean;
  /** A `<th>` makes even a single column a data table. */
  header: boolean;
}

/** Starts a table (the caller has checked it is not nested too deep). */
export function openTable(c: Converter): void {
  if (c.tables.length > 0) c.tables[c.tables.length - 1].layout = true;
  breakLine(c.w, 2);
  c.tables.push({
    rows: [],
    row: undefined,
    outer: undefined,
    colspan: 1,
    layout: false,
    header: false,
  });
}

/** Starts a row. */
export function openRow(c: Converter): void {
  if (c.tables.length === 0) breakLine(c.w, 1);
  else c.tables[c.tables.length - 1].row = [];
}

/** Ends a row. */
export function closeRow(c: Converter): void {
  const table = c.tables[c.tables.length - 1];
  if (table?.row) {
    table.rows.push(table.row);
    table.row = undefined;
  } else {
    breakLine(c.w, 1);
  }
}

/** Starts a cell: what follows is written into its own sink. */
export function openCell(c: Converter, name: string): void {
  if (c.tables.length === 0) {
    breakLine(c.w, 1);
    return;
  }
  const table = c.tables[c.tables.length - 1];
  if (name === "th") table.header = true;
  if (!table.row) table.row = [];
  if (table.outer) closeCell(c);
  const colspan = parseInt(c.get(COLSPAN) ?? "", 10);
  table.colspan = colspan > 1 ? Math.min(colspan, 32) : 1;
  table.outer = c.w;
  c.w = newSink();
}

/** Ends a cell: its text joins the row. */
export function closeCell(c: Converter): void {
  const table = c.tables[c.tables.length - 1];
  if (!table?.outer) {
    breakLine(c.w, 1);
    return;
  }
  flush(c.w);
  const cell = c.w.out;
  c.w = table.outer;
  table.outer = undefined;
  const row = table.row ?? (table.row = []);
  row.push(cell);
  for (let i = 1; i < table.colspan; i++) row.push("");
}

/** Ends a table and prints it. */
export function finishTable(c: Converter): void {
  const table = c.tables.pop();
  if (!table) return;
  if (table.row) table.rows.push(table.row);
  const rows = table.rows.filter((row) => row.some((cell) => cell !== ""));
  let columns = 0;
  for (const row of rows) columns = Math.max(columns, row.length);
  // Columns empty in every row are spacers.
  const keep: number[] = [];
  for (let col = 0; col < columns; col++) {
    if (rows.some((row) => (row[col] ?? "") !== "")) keep.push(col);
  }
  const w = c.w;
  breakLine(w, 2);
  if (keep.length === 0 || (keep.length === 1 && !table.header) || table.layout) {
    for (const row of rows) {
      for (const cell of row) {
        if (cell === "") continue;
        lines(w, cell.split("\n"));
        breakLine(w, 2);
      }
    }
    return;
  }
  const out = rows.map((row) => "| " + keep.map((col) => flattenCell(row[col])).join(" | ") + " |");
  out.splice(1, 0, "|" + " --- |".repeat(keep.length));
  lines(w, out);
  breakLine(w, 2);
}

/** A cell's lines joined into one, by a split rather than a regex that backtracks on spaces. */
function flattenCell(cell: string | undefined): string {
  if (!cell) return "";
  let flat = "";
  for (const line of cell.split("\n")) {
    const text = line.trim();
    if (text === "") continue;
    flat += flat === "" ? text : " " + text;
  }
  return flat.replace(/\|/g, "\\|");
}
