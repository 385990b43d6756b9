// The Parquet export's state between batches: where the next bytes go, which columns the file
// has, and the metadata of the row groups written so far (offsets, sizes, counts, statistics),
// which only the footer reads. Stored as JSON, each row group's metadata is one string, written
// once by its batch and carried unchanged after it (so a batch costs the same at the thousandth
// row group as at the first): the metadata as JSON with the values JSON cannot carry tagged
// (bigints, bytes, -0, NaN, ±Infinity), deflated, base64. Anything else that is not plain JSON is
// refused rather than changed, so a resumed file never differs silently.
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ParquetWriter } from 'hyparquet-writer';
import type { ExportColumn } from '../formats/format.js';

export type RowGroup = ParquetWriter['row_groups'][number];

/** The state as stored: plain JSON. */
export interface ParquetState {
  version: typeof STATE_VERSION;
  /** The columns' fingerprint: a state continues only the file it was written for. */
  columns: string;
  /** The file offset the next batch (or the footer) is written at. */
  next_offset: number;
  /** One string per row group written: its metadata, encoded by encodeRowGroup(). */
  row_groups: string[];
}

/** Bumped when the stored form changes: a job stored with another cannot be resumed. */
const STATE_VERSION = 1;

export function columnsFingerprint(columns: readonly ExportColumn[]): string {
  const text = JSON.stringify(columns.map(({ name, type }) => [name, type]));
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

export function initialState(columns: readonly ExportColumn[], nextOffset: number): ParquetState {
  return { version: STATE_VERSION, columns: columnsFingerprint(columns), next_offset: nextOffset, row_groups: [] };
}

/** The stored state, checked to continue this file at `offset`. */
export function continuedState(stored: unknown, columns: readonly ExportColumn[], offset: number): ParquetState {
  const state = (stored ?? {}) as Partial<ParquetState>;
  if (state.version !== STATE_VERSION || !Array.isArray(state.row_groups) || !state.row_groups.every((group) => typeof group === 'string'))
    throw new Error(`not a parquet export state of version ${STATE_VERSION}`);
  if (state.columns !== columnsFingerprint(columns)) throw new Error('the parquet export state was written for other columns');
  if (state.next_offset !== offset)
    throw new Error(`the parquet export state continues the file at byte ${state.next_offset}, not at ${offset}`);
  return state as ParquetState;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BIGINT = '$bigint';
const BYTES = '$bytes';
const NUMBER = '$number';

function tagged(value: unknown): Json {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return { [BIGINT]: value.toString() };
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : { [NUMBER]: String(value) };
  if (value instanceof Uint8Array) return { [BYTES]: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(tagged);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = tagged(item);
    return out;
  }
  throw new TypeError(`parquet export state cannot hold a ${typeof value} (${Object.prototype.toString.call(value)})`);
}

function untagged(value: Json): unknown {
  if (Array.isArray(value)) return value.map(untagged);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value[keys[0]] === 'string') {
    const text = value[keys[0]] as string;
    if (keys[0] === BIGINT) return BigInt(text);
    if (keys[0] === BYTES) return new Uint8Array(Buffer.from(text, 'base64'));
    if (keys[0] === NUMBER) return Number(text);
  }
  return Object.fromEntries(keys.map((key) => [key, untagged(value[key])]));
}

export function encodeRowGroup(group: RowGroup): string {
  return deflateRawSync(JSON.stringify(tagged(group))).toString('base64');
}

export function decodeRowGroup(encoded: string): RowGroup {
  return untagged(JSON.parse(inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8'))) as RowGroup;
}
