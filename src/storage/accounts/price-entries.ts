// The price_entries table: an organization's price entries (src/pricing/price-entries.ts), their
// list, the one read of all of them that pricing and the overlap check use, and the writes.
// Deletion is soft: a deleted entry is gone from every read, and spans keep naming it.
import type { Knex } from 'knex';
import { readKeysetList, type SortColumn } from '../keyset.js';
import type { ListPage, WindowedListRequest } from '../paging.js';

export interface PriceEntryRecord {
  id: string;
  organization_id: string;
  provider: string | null;
  model: string;
  input_price: number;
  output_price: number;
  cache_read_price: number | null;
  cache_creation_price: number | null;
  request_price: number | null;
  currency: string;
  /** Epoch milliseconds; null: unbounded on that side. */
  valid_from: number | null;
  valid_to: number | null;
  created_at: number;
  updated_at: number;
}

/** What an update may change. */
export type PriceEntryChanges = Partial<Omit<PriceEntryRecord, 'id' | 'organization_id' | 'created_at' | 'updated_at'>>;

type Row = { [K in keyof PriceEntryRecord]: PriceEntryRecord[K] extends number ? number | string : PriceEntryRecord[K] | string };

const COLUMNS = [
  'p.id',
  'p.organization_id',
  'p.provider',
  'p.model',
  'p.input_price',
  'p.output_price',
  'p.cache_read_price',
  'p.cache_creation_price',
  'p.request_price',
  'p.currency',
  'p.valid_from',
  'p.valid_to',
  'p.created_at',
  'p.updated_at',
];

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function fromRow(row: Row): PriceEntryRecord {
  return {
    id: String(row.id),
    organization_id: String(row.organization_id),
    provider: row.provider === null ? null : String(row.provider),
    model: String(row.model),
    input_price: Number(row.input_price),
    output_price: Number(row.output_price),
    cache_read_price: numberOrNull(row.cache_read_price),
    cache_creation_price: numberOrNull(row.cache_creation_price),
    request_price: numberOrNull(row.request_price),
    currency: String(row.currency),
    valid_from: numberOrNull(row.valid_from),
    valid_to: numberOrNull(row.valid_to),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function activeEntries(knex: Knex, organizationId: string): Knex.QueryBuilder {
  return knex('price_entries as p').where('p.organization_id', organizationId).whereNull('p.deleted_at');
}

/** The list order as a keyset: oldest first, ties by id (created_at is epoch milliseconds). */
export const PRICE_ENTRY_ORDER: SortColumn[] = [
  { column: 'p.created_at', order: 'asc', integer: true },
  { column: 'p.id', order: 'asc', integer: false },
];

export async function listPriceEntries(knex: Knex, organizationId: string, page: WindowedListRequest): Promise<ListPage<PriceEntryRecord>> {
  return readKeysetList<Row, PriceEntryRecord>(
    knex,
    activeEntries(knex, organizationId),
    { columns: COLUMNS, order: PRICE_ENTRY_ORDER, toItem: fromRow, keyOf: (item) => [String(item.created_at), item.id] },
    page,
  );
}

/** Every active entry of the organization, in list order: what pricing matches against. */
export async function priceEntriesOf(knex: Knex, organizationId: string): Promise<PriceEntryRecord[]> {
  const rows = (await activeEntries(knex, organizationId)
    .select(COLUMNS)
    .orderBy(PRICE_ENTRY_ORDER.map(({ column, order }) => ({ column, order })))) as Row[];
  return rows.map(fromRow);
}

export async function findPriceEntry(knex: Knex, organizationId: string, id: string): Promise<PriceEntryRecord | undefined> {
  const row = (await activeEntries(knex, organizationId).where('p.id', id).first(COLUMNS)) as Row | undefined;
  return row ? fromRow(row) : undefined;
}

export async function insertPriceEntry(trx: Knex.Transaction, entry: PriceEntryRecord): Promise<void> {
  await trx('price_entries').insert(entry);
}

export async function updatePriceEntryRow(
  trx: Knex.Transaction,
  organizationId: string,
  id: string,
  changes: PriceEntryChanges,
  now: number,
): Promise<number> {
  return trx('price_entries')
    .where({ organization_id: organizationId, id })
    .whereNull('deleted_at')
    .update({ ...changes, updated_at: now });
}

export async function softDeletePriceEntry(trx: Knex.Transaction, organizationId: string, id: string, now: number): Promise<number> {
  return trx('price_entries')
    .where({ organization_id: organizationId, id })
    .whereNull('deleted_at')
    .update({ deleted_at: now, updated_at: now });
}
