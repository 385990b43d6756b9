// The Parquet format of bulk exports: a file written one row group per batch through
// hyparquet-writer's ParquetWriter, resumable between batches. The file's bytes are
// head (the magic), each batch's row group at the offset the job gives, and the tail (the
// footer); the footer's row-group metadata travels from batch to batch in the state as JSON
// (row-group-state.ts), so a fresh process that resumes from a committed state writes the
// same bytes as one that never stopped. Invariants: README.md beside this file.
import { gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import type { ExportColumn, ExportFormat } from '../formats/format.js';
import { continuedState, decodeRowGroup, encodeRowGroup, initialState, type ParquetState, type RowGroup } from './row-group-state.js';

/** The writer's `created_by`: a constant, so that the file holds nothing but the data. */
const CREATED_BY = 'spanledger';

/**
 * Gzip, which every Parquet reader decodes: half of Snappy's bytes at a tenth less speed, and as
 * small as zstd, which Node 20's zlib lacks (docs/exports-parquet.md).
 */
const CODEC = 'GZIP' as const;
const COMPRESSORS = { GZIP: (input: Uint8Array) => gzipSync(input) };

const MAGIC_BYTES = 4;

const SCHEMA_TYPE: Record<ExportColumn['type'], Pick<SchemaElement, 'type' | 'converted_type'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  integer: { type: 'INT64' },
  number: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
  // JSON text as a plain string: every reader shows it, and the JSON logical type is not read alike by all.
  json: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
};

function schemaOf(columns: readonly ExportColumn[]): SchemaElement[] {
  const names = new Set<string>();
  for (const { name } of columns) {
    if (names.has(name)) throw new Error(`export column ${name} is listed twice`);
    names.add(name);
  }
  return [
    { name: 'schema', num_children: columns.length },
    ...columns.map(({ name, type }): SchemaElement => ({ name, repetition_type: 'OPTIONAL', ...SCHEMA_TYPE[type] })),
  ];
}

/** A ParquetWriter over `writer`: it writes the magic at once. */
function parquetWriter(columns: readonly ExportColumn[], writer: ByteWriter): ParquetWriter {
  return new ParquetWriter({ writer, schema: schemaOf(columns), codec: CODEC, compressors: COMPRESSORS, createdBy: CREATED_BY });
}

/** A ParquetWriter whose next byte is byte `offset` of the file, holding `rowGroups` for the footer. */
function writerAt(columns: readonly ExportColumn[], offset: number, rowGroups: RowGroup[]): { parquet: ParquetWriter; bytes: ByteWriter } {
  // The magic goes to a writer set aside; the file's own bytes go to one positioned at `offset`.
  const parquet = parquetWriter(columns, new ByteWriter(MAGIC_BYTES));
  const bytes = new ByteWriter();
  bytes.offset = offset; // the metadata's chunk offsets are file offsets
  parquet.writer = bytes;
  parquet.row_groups = rowGroups;
  parquet.num_rows = rowGroups.reduce((rows, group) => rows + group.num_rows, 0n);
  return { parquet, bytes };
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;

function wrongValue(column: ExportColumn, value: unknown): Error {
  return new TypeError(`export column ${column.name} (${column.type}) cannot hold a ${typeof value}: ${String(value).slice(0, 40)}`);
}

/** A record's value as the column's Parquet value; an absent key is null. */
function cell(column: ExportColumn, value: unknown): string | bigint | number | boolean | null {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'string':
      if (typeof value === 'string') return value;
      break;
    case 'integer':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value);
      if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
      break;
    case 'number':
      if (typeof value === 'number') return value;
      break;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      break;
    case 'json':
      // A string is JSON text already (a stored attribute map, exact to the digit): kept as it is.
      if (typeof value === 'string') return value;
      if (typeof value === 'object') return JSON.stringify(value);
      break;
  }
  throw wrongValue(column, value);
}

function columnData(columns: readonly ExportColumn[], records: ReadonlyArray<Record<string, unknown>>): ColumnSource[] {
  return columns.map((column) => ({
    name: column.name,
    data: records.map((record) => cell(column, record[column.name])),
    // Bounds of JSON text help no reader skip anything.
    statistics: column.type !== 'json',
    // Page indexes are written just before the footer, from state this format does not keep.
    offsetIndex: false,
  }));
}

export const parquetFormat: ExportFormat = {
  name: 'parquet',
  contentType: 'application/vnd.apache.parquet',
  extension: 'parquet',

  head(columns) {
    const bytes = new ByteWriter(MAGIC_BYTES);
    parquetWriter(columns, bytes);
    return { bytes: new Uint8Array(bytes.getBuffer()), state: initialState(columns, bytes.offset) };
  },

  batch(columns, records, stored, offset) {
    const state = continuedState(stored, columns, offset);
    if (records.length === 0) return { bytes: new Uint8Array(0), state };
    // Only the footer reads the earlier row groups: this writer starts without them.
    const { parquet, bytes } = writerAt(columns, offset, []);
    // Synchronous: a ByteWriter has no flush() to wait for.
    void parquet.write({ columnData: columnData(columns, records), rowGroupSize: records.length });
    const written: ParquetState = {
      ...state,
      next_offset: bytes.offset,
      row_groups: [...state.row_groups, ...parquet.row_groups.map(encodeRowGroup)],
    };
    return { bytes: new Uint8Array(bytes.getBuffer()), state: written };
  },

  tail(columns, stored, offset) {
    const state = continuedState(stored, columns, offset);
    const { parquet, bytes } = writerAt(columns, offset, state.row_groups.map(decodeRowGroup));
    void parquet.finish();
    return new Uint8Array(bytes.getBuffer());
  },
};
