// API keys as the management API sees them: metadata reads (never the secret hash) and the
// conditional writes (`where deleted_at is null`) whose affected-row count decides who won a race.
import type { Knex } from 'knex';
import type { Permission } from '../../permissions.js';
import { readKeysetList, type SortColumn } from '../keyset.js';
import { type ListPage, type WindowedListRequest } from '../paging.js';

export interface ApiKeyRecord {
  id: string;
  application_id: string;
  name: string;
  permissions: Permission[];
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  /** When every credential of the key stops working (epoch milliseconds); null: never. */
  expires_at: number | null;
  /** Until when the secret before the current one still works; null: it does not (or there is none). */
  previous_secret_expires_at: number | null;
}

interface ApiKeyRow {
  id: string;
  application_id: string;
  name: string;
  permissions: string;
  created_at: number | string;
  updated_at: number | string;
  last_used_at: number | string | null;
  expires_at: number | string | null;
  previous_secret_expires_at: number | string | null;
}

function epochOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

// The secret hashes and generation are deliberately not among the columns read here.
const COLUMNS = [
  'k.id',
  'k.application_id',
  'k.name',
  'k.permissions',
  'k.created_at',
  'k.updated_at',
  'k.last_used_at',
  'k.expires_at',
  'k.previous_secret_expires_at',
];

function fromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    name: row.name,
    permissions: JSON.parse(row.permissions) as Permission[],
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    last_used_at: epochOrNull(row.last_used_at),
    expires_at: epochOrNull(row.expires_at),
    previous_secret_expires_at: epochOrNull(row.previous_secret_expires_at),
  };
}

export interface NewApiKey {
  id: string;
  application_id: string;
  name: string;
  permissions: Permission[];
  secret_hash: string;
  /** Absent or null: never expires. */
  expires_at?: number | null;
}

export async function insertApiKey(trx: Knex.Transaction, key: NewApiKey, now: number): Promise<ApiKeyRecord> {
  await trx('api_keys').insert({
    ...key,
    permissions: JSON.stringify(key.permissions),
    secret_generation: 1,
    created_at: now,
    updated_at: now,
  });
  return {
    id: key.id,
    application_id: key.application_id,
    name: key.name,
    permissions: key.permissions,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    expires_at: key.expires_at ?? null,
    previous_secret_expires_at: null,
  };
}

function activeKeys(knex: Knex): Knex.QueryBuilder {
  return knex('api_keys as k')
    .join('applications as a', 'a.id', 'k.application_id')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .whereNull('k.deleted_at')
    .whereNull('a.deleted_at')
    .whereNull('o.deleted_at');
}

export async function findActiveApiKey(knex: Knex, id: string): Promise<ApiKeyRecord | undefined> {
  const row = (await activeKeys(knex).where('k.id', id).first(COLUMNS)) as ApiKeyRow | undefined;
  return row && fromRow(row);
}

/** The list order as a keyset: oldest first, ties by id (created_at is epoch milliseconds). */
export const API_KEY_ORDER: SortColumn[] = [
  { column: 'k.created_at', order: 'asc', integer: true },
  { column: 'k.id', order: 'asc', integer: false },
];

export async function listApiKeys(knex: Knex, applicationId: string, page: WindowedListRequest): Promise<ListPage<ApiKeyRecord>> {
  const query = activeKeys(knex).where('k.application_id', applicationId);
  return readKeysetList<ApiKeyRow, ApiKeyRecord>(
    knex,
    query,
    { columns: COLUMNS, order: API_KEY_ORDER, toItem: fromRow, keyOf: (item) => [String(item.created_at), item.id] },
    page,
  );
}

export interface ApiKeyChanges {
  name?: string;
  permissions?: Permission[];
  /** null removes the expiry; undefined leaves it as it is. */
  expires_at?: number | null;
}

export async function updateApiKeyRow(trx: Knex.Transaction, id: string, changes: ApiKeyChanges, now: number): Promise<number> {
  return trx('api_keys')
    .where({ id })
    .whereNull('deleted_at')
    .update({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.permissions !== undefined ? { permissions: JSON.stringify(changes.permissions) } : {}),
      ...(changes.expires_at !== undefined ? { expires_at: changes.expires_at } : {}),
      updated_at: now,
    });
}

/**
 * Replaces the secret hash and bumps the generation, so tokens issued under the old secret die;
 * with `previousSecretExpiresAt` the old secret (and its generation's tokens) keeps working until
 * then. Either way the secret before the old one is forgotten, ending any earlier grace at once.
 */
export async function replaceApiKeySecret(
  trx: Knex.Transaction,
  id: string,
  secretHash: string,
  now: number,
  previousSecretExpiresAt: number | null = null,
): Promise<number> {
  return trx('api_keys')
    .where({ id })
    .whereNull('deleted_at')
    .update({
      // Copied before secret_hash is assigned: MariaDB applies SET items left to right (a later
      // item sees the new value), SQLite reads the old row throughout; this order suits both.
      previous_secret_hash: previousSecretExpiresAt === null ? null : trx.raw('secret_hash'),
      previous_secret_expires_at: previousSecretExpiresAt,
      secret_hash: secretHash,
      secret_generation: trx.raw('secret_generation + 1'),
      updated_at: now,
    });
}

export async function softDeleteApiKey(trx: Knex.Transaction, id: string, now: number): Promise<number> {
  return trx('api_keys').where({ id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now });
}
