// CSV (text/csv; charset=utf-8), RFC 4180 through csv-stringify: a header row of the column names,
// then one row a record, CRLF after each. A null is an empty field and an empty string a quoted
// one (`""`), so the two stay apart; numbers and booleans as JSON writes them, integers exact,
// objects and arrays as their JSON text. A field holding a comma, a quote, a CR or an LF is
// quoted. No state is carried between batches.
import { stringify } from 'csv-stringify/sync';
import type { ExportColumn, ExportFormat } from './format.js';
import { jsonCell } from './ndjson.js';

const encoder = new TextEncoder();
const NOTHING = new Uint8Array(0);

// csv-stringify quotes a field holding its record delimiter (CRLF) but not a lone CR or LF, which
// RFC 4180 requires quoted too; `^$` quotes an empty string (a null cell is no string at all).
const OPTIONS = { record_delimiter: 'windows', quoted_match: /^$|[\r\n]/ } as const;

/** A cell as CSV field text, or null for an empty field. */
function csvCell(column: ExportColumn, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (column.type === 'string' && typeof value === 'string') return value;
  return jsonCell(column, value);
}

function rows(rowsOfCells: Array<Array<string | null>>): Uint8Array {
  return rowsOfCells.length === 0 ? NOTHING : encoder.encode(stringify(rowsOfCells, OPTIONS));
}

export const csvFormat: ExportFormat = {
  name: 'csv',
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  head: (columns) => ({ bytes: rows([columns.map((column) => column.name)]), state: null }),
  batch: (columns, records) => ({
    bytes: rows(records.map((record) => columns.map((column) => csvCell(column, record[column.name])))),
    state: null,
  }),
  tail: () => NOTHING,
};
