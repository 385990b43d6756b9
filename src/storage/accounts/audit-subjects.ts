// The rows a change reads, locked, before it changes them, so that the audit event's "before"
// (src/accounts/audit-trail.ts) is what the change overwrote: each locks only the row it names
// (no join under FOR UPDATE, which would lock the parents too), the same row the change's own
// UPDATE locks next, so no new lock order arises. SQLite serialises write transactions anyway.
import type { Knex } from 'knex';
import type { Permission } from '../../permissions.js';

export interface ApiKeySubject {
  id: string;
  application_id: string;
  organization_id: string;
  name: string;
  permissions: Permission[];
  secret_generation: number;
  /** Epoch milliseconds; null: the key never expires. */
  expires_at: number | null;
}

/** The active key's row, locked, and its organization; undefined when the key is gone. */
export async function lockApiKeySubject(trx: Knex.Transaction, id: string): Promise<ApiKeySubject | undefined> {
  const row = (await trx('api_keys')
    .where({ id })
    .whereNull('deleted_at')
    .first('id', 'application_id', 'name', 'permissions', 'secret_generation', 'expires_at')
    .forUpdate()) as
    | {
        id: string;
        application_id: string;
        name: string;
        permissions: string;
        secret_generation: number | string;
        expires_at: number | string | null;
      }
    | undefined;
  if (!row) return undefined;
  const application = (await trx('applications').where({ id: row.application_id }).first('organization_id')) as
    { organization_id: string } | undefined;
  if (!application) return undefined;
  return {
    id: row.id,
    application_id: row.application_id,
    organization_id: application.organization_id,
    name: row.name,
    permissions: JSON.parse(row.permissions) as Permission[],
    secret_generation: Number(row.secret_generation),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
  };
}

/** Locks the active application's row; false when it is gone. Read it afterwards with findActiveApplication. */
export async function lockApplicationRow(trx: Knex.Transaction, id: string): Promise<boolean> {
  return (await trx('applications').where({ id }).whereNull('deleted_at').first('id').forUpdate()) !== undefined;
}

/** The user's profile fields, its row locked. */
export async function lockUserProfile(
  trx: Knex.Transaction,
  id: string,
): Promise<{ name: string | null; email: string | null } | undefined> {
  return (await trx('users').where({ id }).first('name', 'email').forUpdate()) as { name: string | null; email: string | null } | undefined;
}
