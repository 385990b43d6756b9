// API key rules: permissions from the assignable list (the document enforces it), duplicates
// removed in first-seen order; the secret exists only in the answer of create and rotate;
// rotation bumps the secret generation so every earlier token dies at once, or when the grace
// period asked for ends; an expiry, when set, lies in the future (at most ten years ahead).
import type { Knex } from 'knex';
import { NotFoundError, RequestValidationError } from '../errors.js';
import {
  findActiveApiKey,
  insertApiKey,
  replaceApiKeySecret,
  softDeleteApiKey,
  updateApiKeyRow,
  type ApiKeyChanges,
  type ApiKeyRecord,
} from '../storage/accounts/api-keys.js';
import { guardActiveApplication } from '../storage/accounts/applications.js';
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

/** How far ahead an expiry may lie: ten years, the longest any rotation policy asks for. */
export const MAX_EXPIRY_AHEAD_MS = 3650 * 24 * 3600 * 1000;

/**
 * An `expires_at` as sent (RFC 3339, already format-checked by the document) in epoch
 * milliseconds, or a 422: a time already past would make a key born dead (delete a key to revoke
 * it now), and one beyond ten years is most likely a typo.
 */
export function parseExpiresAt(value: string, now: number): number {
  const issue = (msg: string) => new RequestValidationError([{ loc: ['body', 'expires_at'], msg, type: 'value_error' }]);
  const epochMs = Date.parse(value);
  // Date.parse refuses what RFC 3339 allows but no clock can keep, such as a leap second (23:59:60).
  if (Number.isNaN(epochMs)) throw issue('Input should be a valid date-time');
  if (epochMs <= now) throw issue('expires_at must be in the future; to revoke a key now, delete it (DELETE /api-keys/{api_key})');
  if (epochMs - now > MAX_EXPIRY_AHEAD_MS) throw issue('expires_at must be at most 3650 days (ten years) ahead');
  return epochMs;
}

export interface NewApiKeyInput {
  applicationId: string;
  name: string;
  permissions: readonly Permission[];
  /** Epoch milliseconds (parseExpiresAt); null: never expires. */
  expiresAt: number | null;
}

export async function createApiKey(knex: Knex, input: NewApiKeyInput, now = Date.now()): Promise<{ key: ApiKeyRecord; secret: string }> {
  const secret = newSecret();
  const key = await writeTransaction(knex, async (trx) => {
    // Holds the application alive until the key is in: a concurrent DELETE of it deletes this key too.
    const application = await guardActiveApplication(trx, input.applicationId);
    if (!application) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const inserted = await insertApiKey(
      trx,
      {
        id: newId('ak'),
        application_id: input.applicationId,
        name: input.name,
        permissions: uniquePermissions(input.permissions),
        secret_hash: hashSecret(secret),
        expires_at: input.expiresAt,
      },
      now,
    );
    await recordChange(trx, {
      organizationId: application.organization_id,
      resourceType: 'api_key',
      resourceId: inserted.id,
      before: null,
      after: apiKeyFields(inserted),
      at: now,
    });
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
    await recordChange(trx, {
      organizationId: before.organization_id,
      resourceType: 'api_key',
      resourceId: id,
      before: apiKeyFields(before),
      after: apiKeyFields(updated),
      at: now,
    });
    return updated;
  });
}

/** The longest grace a rotation may leave the previous secret: seven days (the document's bound). */
export const MAX_GRACE_PERIOD_SECONDS = 604_800;

/**
 * A new secret; the previous one keeps working for `gracePeriodSeconds` (0: it dies at once, as
 * does any secret from before it). `previousSecretExpiresAt` is null without a grace.
 */
export async function rotateApiKeySecret(
  knex: Knex,
  id: string,
  gracePeriodSeconds = 0,
  now = Date.now(),
): Promise<{ secret: string; rotatedAt: number; previousSecretExpiresAt: number | null }> {
  const secret = newSecret();
  const previousSecretExpiresAt = gracePeriodSeconds > 0 ? now + gracePeriodSeconds * 1000 : null;
  await writeTransaction(knex, async (trx) => {
    const before = await lockApiKeySubject(trx, id);
    if (!before) throw new NotFoundError(API_KEY_NOT_FOUND);
    if ((await replaceApiKeySecret(trx, id, hashSecret(secret), now, previousSecretExpiresAt)) === 0)
      throw new NotFoundError(API_KEY_NOT_FOUND);
    // The secret never shows; its generation (1 at creation, +1 per rotation) says that it changed,
    // and the grace the previous secret got, when it got one.
    const generation = before.secret_generation;
    await recordChange(trx, {
      organizationId: before.organization_id,
      resourceType: 'api_key',
      resourceId: id,
      before: { secret_generation: generation },
      after: {
        secret_generation: generation + 1,
        ...(previousSecretExpiresAt === null ? {} : { rotation_grace_ends_at: new Date(previousSecretExpiresAt).toISOString() }),
      },
      at: now,
    });
  });
  return { secret, rotatedAt: now, previousSecretExpiresAt };
}

export async function deleteApiKey(knex: Knex, id: string, now = Date.now()): Promise<{ deletedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    const before = await lockApiKeySubject(trx, id);
    if (!before) throw new NotFoundError(API_KEY_NOT_FOUND);
    if ((await softDeleteApiKey(trx, id, now)) === 0) throw new NotFoundError(API_KEY_NOT_FOUND);
    await recordChange(trx, {
      organizationId: before.organization_id,
      resourceType: 'api_key',
      resourceId: id,
      before: apiKeyFields(before),
      after: null,
      at: now,
    });
    return { deletedAt: now };
  });
}
