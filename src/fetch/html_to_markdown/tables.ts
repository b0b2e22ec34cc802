/**
 * Tables: each cell is written into a sink of its own, so that once the table ends its shape
 * decides how it prints — a GFM pipe table, or plain blocks for a layout table.
 *
 * @module
 */
import type { Converter } from "./converter.ts";
import { COLSPAN, ROWSPAN } from "./attributes.ts";
import { cutCell, type HeldCell } from "./main_content.ts";
import { breakLine, contents, flush, lines, newSink, seal, type Sink } from "./writer.ts";

/** Tables nested deeper than this render as plain blocks, so nesting costs no copying. */
export const MAX_TABLE_DEPTH = 2;
/** Cells a `colspan` spans at most. */
const MAX_COLSPAN = 32;
/** Rows a `rowspan` spans at most: each spanned row skips its columns, so this bounds the work. */
const MAX_ROWSPAN = 32;
/** Pipe tables wider than this print as lines of cells: no reader lines up more columns. */
const MAX_COLUMNS = 64;
/** A pipe table prints at most this many cells per cell of the page (padding included). */
const MAX_PADDING = 4;

/**
 * One row: its cells' Markdown and the column each starts in (a `colspan` moves the next one
 * on, with no empty cells stored for it), the column after its last cell, and whether every
 * cell was a `<th>` or it was in `<thead>`.
 */
interface Row {
  cells: string[];
  columns: number[];
  width: number;
  header: boolean;
  /** Per cell, the cell with the furniture that holds most of it, if any (see `cutCell`). */
  held: (HeldCell | undefined)[] | undefined;
}

/** One table being read. */
export interface TableState {
  rows: Row[];
  /** `<tfoot>` rows, printed after the others wherever they stand, as browsers show them. */
  foot: Row[];
  row: Row | undefined;
  /** Per column, the index of the first row below the cell spanning down into it. */
  spanned: number[];
  rowspan: number;
  /** The sink that was current before the open cell; set while a cell is open. */
  outer: Sink | undefined;
  colspan: number;
  /** The page's text and link text as the open cell started. */
  cellText: number;
  cellLinks: number;
  /** Blocks laid out in cells (a nested table, a heading, a code block) make it a layout table. */
  layout: boolean;
  /** Inside `<thead>`: its rows are header rows; inside `<tfoot>`: footer rows. */
  head: boolean;
  inFoot: boolean;
}

/** Starts a table (the caller has checked it is not nested too deep). */
export function openTable(c: Converter): void {
  markLayout(c);
  breakLine(c.w, 2);
  c.tables.push({
    rows: [],
    foot: [],
    row: undefined,
    spanned: [],
    rowspan: 1,
    outer: undefined,
    colspan: 1,
    cellText: 0,
    cellLinks: 0,
    layout: false,
    head: false,
    inFoot: false,
  });
}

/** Inside a cell, a block that only a layout table would hold makes the table one. */
export function markLayout(c: Converter): void {
  const table = c.tables[c.tables.length - 1];
  if (table?.outer) table.layout = true;
}

/** Starts (`name`) or ends (`""`) a `<thead>`, `<tbody>` or `<tfoot>`. */
export function tableSection(c: Converter, name: string): void {
  const table = c.tables[c.tables.length - 1];
  if (!table || c.flatTables > 0) return;
  table.head = name === "thead";
  table.inFoot = name === "tfoot";
}

/** A new row of `table`, as the current one. */
function newRow(table: TableState, header: boolean): Row {
  return table.row = { cells: [], columns: [], width: 0, header, held: undefined };
}

/** Ends the current row of `table`, in the body or the footer. */
function endRow(table: TableState): void {
  if (!table.row) return;
  (table.inFoot ? table.foot : table.rows).push(table.row);
  table.row = undefined;
}

/** Starts a row. */
export function openRow(c: Converter): void {
  const table = c.tables[c.tables.length - 1];
  if (!table) breakLine(c.w, 1);
  else newRow(table, true);
}

/** Ends a row. */
export function closeRow(c: Converter): void {
  const table = c.tables[c.tables.length - 1];
  if (table?.row) endRow(table);
  else breakLine(c.w, 1);
}

/** Starts a cell: what follows is written into its own sink. */
export function openCell(c: Converter, name: string): void {
  const table = c.tables[c.tables.length - 1];
  if (!table) {
    breakLine(c.w, 1);
    return;
  }
  if (table.outer) closeCell(c);
  const row = table.row ?? newRow(table, true);
  if (name !== "th" && !table.head) row.header = false;
  const colspan = parseInt(c.get(COLSPAN) ?? "", 10);
  table.colspan = colspan > 1 ? Math.min(colspan, MAX_COLSPAN) : 1;
  const rowspan = c.get(ROWSPAN);
  table.rowspan = rowspan === undefined
    ? 1
    : Math.min(Math.max(parseInt(rowspan, 10) || 1, 1), MAX_ROWSPAN);
  table.outer = c.w;
  table.cellText = c.textChars;
  table.cellLinks = c.linkChars;
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
  const cut = c.main
    ? cutCell(c, c.w, c.textChars - table.cellText, c.linkChars - table.cellLinks)
    : { markdown: contents(c.w) };
  c.w = table.outer;
  table.outer = undefined;
  const row = table.row ?? newRow(table, false);
  if (cut.held) (row.held ??= [])[row.cells.length] = cut.held;
  // Columns that a cell of a row above spans down into are taken: this cell goes right of them.
  const index = table.rows.length + table.foot.length;
  const spanned = table.spanned;
  while ((spanned[row.width] ?? 0) > index) row.width++;
  row.cells.push(cut.markdown);
  row.columns.push(row.width);
  if (table.rowspan > 1) {
    for (let i = 0; i < table.colspan; i++) spanned[row.width + i] = index + table.rowspan;
  }
  row.width += table.colspan;
}

/**
 * Ends a table and prints it: a pipe table when it holds data in rows and columns, its header
 * row only from real header cells; else (one row, one column, blocks in cells) plain blocks.
 * A pipe table pads every row to every column: one too wide or too ragged for that to stay
 * within a few cells per cell of the page prints each row as one line of its cells instead.
 */
export function finishTable(c: Converter): void {
  const table = c.tables.pop();
  if (!table) return;
  endRow(table);
  for (const row of table.foot) table.rows.push(row);
  // One pass over the cells: rows with text, the columns with text in some row (the others
  // are spacers), and how many cells the page gave.
  const rows: Row[] = [];
  const filled = new Set<number>();
  let given = 0;
  for (const row of table.rows) {
    let text = false;
    for (let i = 0; i < row.cells.length; i++) {
      if (row.cells[i] === "" && row.held?.[i] === undefined) continue;
      text = true;
      filled.add(row.columns[i]);
    }
    if (!text) continue;
    rows.push(row);
    given += row.cells.length;
  }
  const keep = [...filled].sort((a, b) => a - b);
  const first = rows[0];
  // A lone spanning `<th>` is a title, not a header row.
  const header = first !== undefined && first.header &&
    (keep.length === 1 || first.cells.filter((cell) => cell !== "").length > 1);
  const w = c.w;
  breakLine(w, 2);
  if (table.layout || rows.length < 2 || (keep.length < 2 && !header)) {
    for (const row of rows) {
      for (let i = 0; i < row.cells.length; i++) {
        const held = row.held?.[i];
        if (held) {
          // The cell with its largest furniture, as a stretch of furniture of the page: kept
          // when it holds most of the page (the post), else cut with the rest.
          c.cellsOmitted -= held.kept;
          flush(w);
          seal(w);
          const start = w.sealedLength;
          lines(w, held.markdown.split("\n"));
          flush(w);
          seal(w);
          w.cuts.push({ start, end: w.sealedLength, text: held.text, links: held.links });
          breakLine(w, 2);
          continue;
        }
        if (row.cells[i] === "") continue;
        lines(w, row.cells[i].split("\n"));
        breakLine(w, 2);
      }
    }
    return;
  }
  if (keep.length > MAX_COLUMNS || rows.length * keep.length > MAX_PADDING * given) {
    lines(
      w,
      rows.map((row) => row.cells.filter((cell) => cell !== "").map(flattenCell).join(" | ")),
    );
    breakLine(w, 2);
    return;
  }
  const line = (row: Row) => {
    // Both in column order: each row is read once along the kept columns.
    let i = 0;
    const cells = keep.map((column) => {
      while (i < row.columns.length && row.columns[i] < column) i++;
      return row.columns[i] === column ? flattenCell(row.cells[i]) : "";
    });
    return "| " + cells.join(" | ") + " |";
  };
  const out = [header ? line(first) : "|" + " |".repeat(keep.length)];
  out.push("|" + " --- |".repeat(keep.length));
  for (let i = header ? 1 : 0; i < rows.length; i++) out.push(line(rows[i]));
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
