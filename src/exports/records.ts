// A record of the engine's wire shape (src/engine/wire.ts: spanRecord, traceSummary, whose exact
// integers and embedded JSON are JsonInteger and RawJson) as the plain values an export format
// takes (./formats/format.ts): integers as bigints; a JSON field the engine builds (billing,
// tokens, ...) as its object, one stored as JSON text (attribute maps, events, links) as that
// text, exact to the digit and never parsed (every format takes both); everything else as it is.
// Jobs sit below the engine: the worker is handed the wire shapes (ExportRecords) by src/server.ts.
import { JsonInteger, RawJson } from '../json/exact-json.js';
import type { StoredSpan, StoredTraceSummary } from '../storage/spans/span-store.js';
import type { ExportColumn } from './formats/format.js';

/** The engine's record shapes, as POST /engine/query and POST /traces answer them. */
export interface ExportRecords {
  spans(span: StoredSpan): object;
  traces(trace: StoredTraceSummary): object;
}

function plainValue(column: ExportColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof JsonInteger) return BigInt(value.digits);
  if (value instanceof RawJson) return value.text;
  if (column.type === 'integer' && typeof value === 'number') return BigInt(value);
  return value;
}

/** The record's values of `columns`, keyed by column name. */
export function exportRecord(wire: object, columns: readonly ExportColumn[]): Record<string, unknown> {
  const fields = wire as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column.name] = plainValue(column, fields[column.name]);
  return out;
}
