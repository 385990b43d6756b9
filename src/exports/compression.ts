// An export's file compressed (engine `compression`): with `gzip`, each batch's bytes (the head
// with the first, the tail with the last) are one gzip member, written once like any batch, so
// a job resumed after a crash writes the same bytes; a series of members is one gzip stream to
// every reader (RFC 1952, section 2.2). Only NDJSON and CSV files are compressed: their formats
// do not read the file offsets they are given, which count compressed bytes here.
import { gzipSync } from 'node:zlib';
import type { ExportCompression } from '../storage/exports/export-jobs.js';
import type { ExportFormat } from './formats/format.js';

/** A batch's bytes as the file holds them. */
export function compressedBatch(compression: ExportCompression, bytes: Uint8Array): Uint8Array {
  if (compression === 'none' || bytes.length === 0) return bytes;
  return gzipSync(bytes);
}

/** The file's media type and name extension. */
export function fileType(format: ExportFormat, compression: ExportCompression): { contentType: string; extension: string } {
  if (compression === 'none') return { contentType: format.contentType, extension: format.extension };
  return { contentType: 'application/gzip', extension: `${format.extension}.gz` };
}
