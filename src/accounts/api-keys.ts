// API key rules: permissions from the assignable list (the document enforces it), duplicates
// removed in first-seen order; the secret exists only in the answer of create and rotate;
// rotation bumps the secret generation so every earlier token dies at once.
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import {
  findActiveApiKey,
  insertApiKey,
  replaceApiKeySecret,
  softDeleteApiKey,
  updateApiKeyRow,
  type ApiKeyChanges,
  type ApiKeyRecord,
} from '../storage/accounts/api-keys.js';
import { lockActiveApplication } from '../storage/accounts/applications.js';
import { writeTransaction } from '../storage/transactions.js';
import { APPLICATION_NOT_FOUND } from './applications.js';
import { newId, newSecret } from '../storage/accounts/ids.js';
import type { Permission } from '../permissions.js';
import { hashSecret } from './secrets.js';
import { lockApiKeySubject } from '../storage/accounts/audit-subjects.js';
import { apiKeyFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';

export const API_KEY_NOT_FOUND = 'API key not found';

export function uniquePermissions(permissions: readonly Permission[]): Permission[] {
  return [...new Set(permissions)];
}

export interface NewApiKeyInput {
  applicationId: string;
  name: string;
  permissions: readonly Permission[];
}

export async function createApiKey(knex: Knex, input: NewApiKeyInput, now = Date.now()): Promise<{ key: ApiKeyRecord; secret: string }> {
  const secret = newSecret();
  const key = await writeTransaction(knex, async (trx) => {
    // Holds the application alive until the key is in: a concurrent DELETE of it deletes this key too.
    const application = await lockActiveApplication(trx, input.applicationId);
    if (!application) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const inserted = await insertApiKey(
      trx,
      { id: newId('ak'), application_id: input.applicationId, name: input.name, permissions: uniquePermissions(input.permissions), secret_hash: hashSecret(secret) },
      now,
    );
    await recordChange(trx, { organizationId: application.organization_id, resourceType: 'api_key', resourceId: inserted.id, before: null, after: apiKeyFields(inserted), at: now });
    return inserted;
  });
  return { key, secret };
}

export async function updateApiKey(knex: Knex, id: string, changes: ApiKeyChanges, now = Date.now()): Promise<ApiKeyRecord> {
  const normalised: ApiKeyChanges = { ...changes, ...(changes.permissions ? { permissions: uniquePermissions(changes.permissions) } : {}) };
  return writeTransaction(knex, async (trx) => {
    const before = await lockApiKeySubject(trx, id);
    if (!before) throw new NotFoundError(API_KEY_NOT_FOUND);
    if ((await updateApiKeyRow(trx, id, normalised, now)) === 0) throw new NotFoundError(API_KEY_NOT_FOUND);
    const updated = await findActiveApiKey(trx, id);
    if (!updated) throw new NotFoundError(API_KEY_NOT_FOUND);
    await recordChange(trx, { organizationId: before.organization_id, resourceType: 'api_key', resourceId: id, before: apiKeyFields(before), after: apiKeyFields(updated), at: now });
    return updated;
  });
}

export async function rotateApiKeySecret(knex: Knex, id: string, now = Date.now()): Promise<{ secret: string; rotatedAt: number }> {
  const secret = newSecret();
  await writeTransaction(knex, async (trx) => {
    const before = await lockApiKeySubject(trx, id);
    if (!before) throw new NotFoundError(API_KEY_NOT_FOUND);
    if ((await replaceApiKeySecret(trx, id, hashSecret(secret), now)) === 0) throw new NotFoundError(API_KEY_NOT_FOUND);
    // The secret never shows; its generation (1 at creation, +1 per rotation) says that it changed.
    const generation = before.secret_generation;
    await recordChange(trx, { organizationId: before.organization_id, resourceType: 'api_key', resourceId: id, before: { secret_generation: generation }, after: { secret_generation: generation + 1 }, at: now });
  });
  return { secret, rotatedAt: now };
}

export async function deleteApiKey(knex: Knex, id: string, now = Date.now()): Promise<{ deletedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    const before = await lockApiKeySubject(trx, id);
    if (!before) throw new NotFoundError(API_KEY_NOT_FOUND);
    if ((await softDeleteApiKey(trx, id, now)) === 0) throw new NotFoundError(API_KEY_NOT_FOUND);
    await recordChange(trx, { organizationId: before.organization_id, resourceType: 'api_key', resourceId: id, before: apiKeyFields(before), after: null, at: now });
    return { deletedAt: now };
  });
}
