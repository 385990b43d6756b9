// An export's file as a download reads it: its bytes from `start` to `end` (inclusive), streamed
// part by part from the part holding `start` (src/storage/exports/export-parts.ts), one part in
// memory at a time. A part that goes missing meanwhile (the result expired, or its application
// was deleted, while it was read) ends the stream with an error: the client sees the download cut
// short, and its resumption gets the 410.
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { partHolding, readPart } from '../storage/exports/export-parts.js';

async function* fileBytes(knex: Knex, exportId: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (start > end) return;
  let part = await partHolding(knex, exportId, start);
  let position = start;
  while (position <= end) {
    const read = part === undefined ? undefined : await readPart(knex, exportId, part);
    if (!read || read.bytes.length === 0) throw new Error(`export ${exportId} lost its file at byte ${position} while it was read`);
    const to = Math.min(read.bytes.length, end + 1 - read.offset);
    yield read.bytes.subarray(position - read.offset, to);
    position = read.offset + to;
    part = read.part + 1;
  }
}

/** Bytes `start` to `end` (inclusive) of the file of `exportId`, as a stream. */
export function fileStream(knex: Knex, exportId: string, start: number, end: number): Readable {
  return Readable.from(fileBytes(knex, exportId, start, end), { objectMode: false });
}
