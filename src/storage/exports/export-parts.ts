// The export_parts table (src/exports/README.md): the bytes of an export's file, in parts each
// appended by one batch's transaction (./export-batches.ts), read back in order from the part
// holding the first byte a download asks for, one part at a time, and deleted once the job is
// failed, cancelled or expired (the worker's housekeeping, ./export-housekeeping.ts).
import type { Knex } from 'knex';
import type { Run } from '../sql/dialect.js';

export const EXPORT_PARTS = 'export_parts';

/**
 * The most bytes one part holds: a batch larger than this is written as several parts. Small
 * enough that a part is one modest statement (MariaDB's max_allowed_packet is 16 MiB by default,
 * and a statement carries its bytes escaped) and that a range download reads little before its
 * first byte.
 */
export const PART_MAX_BYTES = 1024 * 1024;

/** One part of a file: its number, the file offset of its first byte, its bytes. */
export interface ExportPart {
  part: number;
  offset: number;
  bytes: Buffer;
}

/** Splits `bytes`, written at file offset `offset` from part number `firstPart` on, into parts of at most PART_MAX_BYTES. */
export function partsOf(bytes: Uint8Array, firstPart: number, offset: number): ExportPart[] {
  const parts: ExportPart[] = [];
  for (let start = 0; start < bytes.length; start += PART_MAX_BYTES) {
    const slice = bytes.subarray(start, Math.min(bytes.length, start + PART_MAX_BYTES));
    parts.push({
      part: firstPart + parts.length,
      offset: offset + start,
      bytes: Buffer.from(slice.buffer, slice.byteOffset, slice.length),
    });
  }
  return parts;
}

/** Appends parts to the file of `exportId`, one statement each, in the transaction of `run`. */
export async function appendParts(db: Knex, run: Run, exportId: string, parts: readonly ExportPart[]): Promise<void> {
  for (const part of parts) {
    await run(db(EXPORT_PARTS).insert({ export_id: exportId, part: part.part, byte_offset: part.offset, bytes: part.bytes }));
  }
}

/** The number of the part holding byte `offset` of the file (the last part starting at or before it); undefined when none. */
export async function partHolding(knex: Knex, exportId: string, offset: number): Promise<number | undefined> {
  const row = (await knex(EXPORT_PARTS)
    .where('export_id', exportId)
    .where('byte_offset', '<=', offset)
    .orderBy('byte_offset', 'desc')
    .first('part')) as { part: number | string } | undefined;
  return row === undefined ? undefined : Number(row.part);
}

/** Part `part` of the file; undefined when it is not (or no longer) stored. */
export async function readPart(knex: Knex, exportId: string, part: number): Promise<ExportPart | undefined> {
  const row = (await knex(EXPORT_PARTS).where({ export_id: exportId, part }).first('byte_offset', 'bytes')) as
    { byte_offset: number | string; bytes: Buffer | Uint8Array } | undefined;
  if (!row) return undefined;
  return { part, offset: Number(row.byte_offset), bytes: Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes) };
}
