// A stored span as the engine reads it back: which columns are read, how each is converted
// (nanoseconds and the receive sequence as exact decimal text, JSON as its stored text), and
// the row shape that results. Every span read selects through here.
import type { Knex } from 'knex';
import { bigintAsText } from '../database.js';
import { dialectFor } from '../sql/index.js';
import { SLOT_COLUMNS, type SlotColumn } from './indexed-slots.js';
import { SPAN_ROW_COLUMNS, type SpanRow } from './span-row.js';

/** The columns read back as other types than SpanRow's, or not at all (the indexed slots are an index, not span data). */
type ConvertedColumn = 'application_id' | 'received_at' | 'resource_attributes' | 'span_attributes' | 'events' | 'links' | SlotColumn;

/** A stored span as the engine reads it back: nanoseconds and receive sequence as decimal text. */
export type StoredSpan = Omit<SpanRow, ConvertedColumn> & {
  seq: string;
  /** JSON text of the attribute map (an object where a driver parses JSON columns itself). */
  resource_attributes: string | Record<string, unknown> | null;
  span_attributes: string | Record<string, unknown> | null;
  /** JSON text of the events and links arrays (an array where a driver parses JSON columns itself). */
  events: string | unknown[] | null;
  links: string | unknown[] | null;
};

/** The columns read as they are stored; selectSpanColumns() converts the others. */
const SPAN_COLUMNS = SPAN_ROW_COLUMNS.filter(
  (column) =>
    ![
      'application_id',
      'received_at',
      'start_time_unix_nano',
      'end_time_unix_nano',
      'resource_attributes',
      'span_attributes',
      'events',
      'links',
    ].includes(column) && !(SLOT_COLUMNS as readonly string[]).includes(column),
);

export function asNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** A text column as a string: MariaDB's binary columns (VARBINARY keys) come back as bytes. */
export function asText(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** A JSON column as its stored text, exactly (see SqlDialect.jsonText). */
function jsonText(knex: Knex, column: string): Knex.Raw {
  return knex.raw(dialectFor(knex).jsonText(column));
}

/** Selects a stored span's columns from `alias`, converted as StoredSpan reads them. */
export function selectSpanColumns(knex: Knex, query: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  return query.select(SPAN_COLUMNS.map((column) => `${alias}.${column}`)).select({
    seq: bigintAsText(knex, `${alias}.seq`),
    start_time_unix_nano: bigintAsText(knex, `${alias}.start_time_unix_nano`),
    end_time_unix_nano: bigintAsText(knex, `${alias}.end_time_unix_nano`),
    resource_attributes: jsonText(knex, `${alias}.resource_attributes`),
    span_attributes: jsonText(knex, `${alias}.span_attributes`),
    events: jsonText(knex, `${alias}.events`),
    links: jsonText(knex, `${alias}.links`),
  });
}

/** A row read by selectSpanColumns() as a StoredSpan. */
export function normaliseSpan(row: Record<string, unknown>): StoredSpan {
  return {
    ...(row as unknown as StoredSpan),
    seq: String(row.seq),
    duration_ms: asNumber(row.duration_ms),
    cost: row.cost === null ? null : asNumber(row.cost),
    usage_amount: row.usage_amount === null ? null : asNumber(row.usage_amount),
    input_tokens: row.input_tokens === null ? null : asNumber(row.input_tokens),
    output_tokens: row.output_tokens === null ? null : asNumber(row.output_tokens),
    cache_read_tokens: row.cache_read_tokens === null ? null : asNumber(row.cache_read_tokens),
    cache_creation_tokens: row.cache_creation_tokens === null ? null : asNumber(row.cache_creation_tokens),
    total_tokens: row.total_tokens === null ? null : asNumber(row.total_tokens),
    dropped_attributes_count: row.dropped_attributes_count === null ? null : asNumber(row.dropped_attributes_count),
    dropped_events_count: row.dropped_events_count === null ? null : asNumber(row.dropped_events_count),
    dropped_links_count: row.dropped_links_count === null ? null : asNumber(row.dropped_links_count),
  };
}
