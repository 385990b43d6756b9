// What authentication needs of an API key: its secret hash, generation, current permissions,
// expiry and the previous secret still in its grace period, read with one primary-key lookup, so
// revocation, expiry and permission changes apply at once.
import type { Knex } from 'knex';
import type { Permission } from '../../permissions.js';
import { retryOnLockConflict } from '../transactions.js';
import { parseIndexedAttributes, type IndexedAttributesState } from './indexed-attributes.js';
import { activeApiKey, quotaOf } from './resources.js';

export interface ApiKeyCredentials {
  id: string;
  applicationId: string;
  organizationId: string;
  permissions: Permission[];
  secretHash: string;
  secretGeneration: number;
  lastUsedAt: number | null;
  /** When every credential of the key stops working (epoch milliseconds); null: never. */
  expiresAt: number | null;
  /** The secret before the current one (generation `secretGeneration - 1`), while it still works. */
  previousSecret: { hash: string; expiresAt: number } | null;
  /** The key's application's indexed attribute slots, read in the same lookup. */
  indexedAttributes: IndexedAttributesState;
  /** When this was read (epoch milliseconds). */
  readAt: number;
  /** The key's application's daily span quota (null: none), read in the same lookup. */
  dailySpanQuota: number | null;
}

export async function findActiveApiKeyCredentials(knex: Knex, apiKey: string): Promise<ApiKeyCredentials | undefined> {
  const row = await activeApiKey(knex, apiKey).first(
    'k.id',
    'k.application_id',
    'a.organization_id',
    'k.permissions',
    'k.secret_hash',
    'k.secret_generation',
    'k.last_used_at',
    'k.expires_at',
    'k.previous_secret_hash',
    'k.previous_secret_expires_at',
    'a.indexed_attributes_state',
    'a.daily_span_quota',
  );
  if (!row) return undefined;
  const readAt = Date.now();
  const previousExpiresAt = row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at);
  return {
    id: row.id,
    applicationId: row.application_id,
    organizationId: row.organization_id,
    permissions: JSON.parse(row.permissions) as Permission[],
    secretHash: row.secret_hash,
    secretGeneration: Number(row.secret_generation),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    previousSecret:
      row.previous_secret_hash !== null && previousExpiresAt !== null && readAt < previousExpiresAt
        ? { hash: row.previous_secret_hash, expiresAt: previousExpiresAt }
        : null,
    indexedAttributes: parseIndexedAttributes(row.indexed_attributes_state),
    readAt,
    dailySpanQuota: quotaOf(row.daily_span_quota),
  };
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records use of a key, at most once a minute (a conditional update, so no write otherwise).
 * Retried on a lock conflict (instances touching one key at once, on Galera a certification
 * conflict at commit): a touch that lost to another finds the key touched and writes nothing.
 */
export async function touchApiKey(knex: Knex, credentials: ApiKeyCredentials, now = Date.now()): Promise<void> {
  if (credentials.lastUsedAt !== null && now - credentials.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
  await retryOnLockConflict(() =>
    knex('api_keys')
      .where({ id: credentials.id })
      .where((where) => where.whereNull('last_used_at').orWhere('last_used_at', '<', now - LAST_USED_RESOLUTION_MS))
      .update({ last_used_at: now }),
  );
}
