// NDJSON (application/x-ndjson): one record a line, its columns in order as a JSON object, `\n`
// after each; integers exact (a bigint or a decimal string is written as its digits); a JSON
// column's text as it is, its object or array through exactJson. Nothing opens or closes the file, and no state is carried between
// batches: a batch's bytes depend on its records alone.
import { exactJson } from '../../json/exact-json.js';
import type { ExportColumn, ExportFormat } from './format.js';

const encoder = new TextEncoder();
const NOTHING = new Uint8Array(0);

/** A cell as JSON text. */
export function jsonCell(column: ExportColumn, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (column.type === 'integer') return String(value);
  // JSON text (a stored attribute map, events, links), exact as stored.
  if (column.type === 'json' && typeof value === 'string') return value;
  return exactJson(value);
}

function line(columns: readonly ExportColumn[], record: Record<string, unknown>): string {
  const fields = columns.map((column) => `${JSON.stringify(column.name)}:${jsonCell(column, record[column.name])}`);
  return `{${fields.join(',')}}\n`;
}

export const ndjsonFormat: ExportFormat = {
  name: 'ndjson',
  contentType: 'application/x-ndjson',
  extension: 'ndjson',
  head: () => ({ bytes: NOTHING, state: null }),
  batch: (columns, records) => ({ bytes: encoder.encode(records.map((record) => line(columns, record)).join('')), state: null }),
  tail: () => NOTHING,
};
