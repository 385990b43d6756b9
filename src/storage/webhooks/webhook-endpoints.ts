// The webhook_endpoints table: an organization's endpoints, their list, and the writes. Deletion
// is soft (a deleted endpoint is gone from every read, and its pending deliveries end failed).
import type { Knex } from 'knex';
import { readKeysetList, type SortColumn } from '../keyset.js';
import type { ListPage, WindowedListRequest } from '../paging.js';

export interface WebhookEndpointRecord {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  /** Epoch milliseconds. */
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** What an update may change. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpointRecord, 'url' | 'description' | 'event_types' | 'enabled'>>;

interface Row {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  event_types: string;
  enabled: number | boolean | string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = [
  'e.id',
  'e.organization_id',
  'e.url',
  'e.description',
  'e.event_types',
  'e.enabled',
  'e.secret',
  'e.previous_secret',
  'e.previous_secret_expires_at',
  'e.created_at',
  'e.updated_at',
];

function fromRow(row: Row): WebhookEndpointRecord {
  return {
    id: row.id,
    organization_id: row.organization_id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as string[],
    enabled: Number(row.enabled) === 1 || row.enabled === true,
    secret: row.secret,
    previous_secret: row.previous_secret,
    previous_secret_expires_at: row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function toColumns(changes: WebhookEndpointChanges): Record<string, unknown> {
  const { event_types, enabled, ...rest } = changes;
  return {
    ...rest,
    ...(event_types === undefined ? {} : { event_types: JSON.stringify(event_types) }),
    ...(enabled === undefined ? {} : { enabled: enabled ? 1 : 0 }),
  };
}

function activeEndpoints(knex: Knex, organizationId: string): Knex.QueryBuilder {
  return knex('webhook_endpoints as e').where('e.organization_id', organizationId).whereNull('e.deleted_at');
}

/** The list order as a keyset: oldest first, ties by id. */
export const WEBHOOK_ENDPOINT_ORDER: SortColumn[] = [
  { column: 'e.created_at', order: 'asc', integer: true },
  { column: 'e.id', order: 'asc', integer: false },
];

export async function listWebhookEndpoints(
  knex: Knex,
  organizationId: string,
  page: WindowedListRequest,
): Promise<ListPage<WebhookEndpointRecord>> {
  return readKeysetList<Row, WebhookEndpointRecord>(
    knex,
    activeEndpoints(knex, organizationId),
    { columns: COLUMNS, order: WEBHOOK_ENDPOINT_ORDER, toItem: fromRow, keyOf: (item) => [String(item.created_at), item.id] },
    page,
  );
}

/** The organization's active endpoints, enabled or not: what an event is fanned out over. */
export async function webhookEndpointsOf(knex: Knex, organizationId: string): Promise<WebhookEndpointRecord[]> {
  const rows = (await activeEndpoints(knex, organizationId).select(COLUMNS)) as Row[];
  return rows.map(fromRow);
}

export async function findWebhookEndpoint(knex: Knex, organizationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
  const row = (await activeEndpoints(knex, organizationId).where('e.id', id).first(COLUMNS)) as Row | undefined;
  return row ? fromRow(row) : undefined;
}

/** The endpoint by id alone, deleted or not (the deliverer's read); undefined when deleted or unknown. */
export async function activeWebhookEndpoint(knex: Knex, id: string): Promise<WebhookEndpointRecord | undefined> {
  const row = (await knex('webhook_endpoints as e').where('e.id', id).whereNull('e.deleted_at').first(COLUMNS)) as Row | undefined;
  return row ? fromRow(row) : undefined;
}

export async function insertWebhookEndpoint(trx: Knex.Transaction, endpoint: WebhookEndpointRecord): Promise<void> {
  await trx('webhook_endpoints').insert({ ...endpoint, ...toColumns(endpoint) });
}

export async function updateWebhookEndpointRow(
  trx: Knex.Transaction,
  organizationId: string,
  id: string,
  changes: WebhookEndpointChanges,
  now: number,
): Promise<number> {
  return trx('webhook_endpoints')
    .where({ organization_id: organizationId, id })
    .whereNull('deleted_at')
    .update({ ...toColumns(changes), updated_at: now });
}

/** A new secret; the current one signs too until `previousExpiresAt`. */
export async function replaceWebhookSecret(
  trx: Knex.Transaction,
  organizationId: string,
  id: string,
  secret: string,
  previousExpiresAt: number,
  now: number,
): Promise<number> {
  return (
    trx('webhook_endpoints')
      .where({ organization_id: organizationId, id })
      .whereNull('deleted_at')
      // previous_secret first: MariaDB assigns left to right, so it still reads the old secret.
      .update({ previous_secret: trx.ref('secret'), previous_secret_expires_at: previousExpiresAt, secret, updated_at: now })
  );
}

export async function softDeleteWebhookEndpoint(trx: Knex.Transaction, organizationId: string, id: string, now: number): Promise<number> {
  return trx('webhook_endpoints')
    .where({ organization_id: organizationId, id })
    .whereNull('deleted_at')
    .update({ deleted_at: now, updated_at: now });
}
