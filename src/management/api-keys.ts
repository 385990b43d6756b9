// API key operations: createApiKey, listApiKeys, getApiKey, updateApiKey, rotateApiKeySecret,
// deleteApiKey. Only create and rotate ever answer a secret. Fields added in management 1.4.0
// (expires_at, rotation_grace_ends_at) appear in ApiKeyUpdated and ApiKeySecretRotated only
// when the request asked for them, so that every request valid under 1.3.1 keeps its answer.
import type { IncomingHttpHeaders } from 'node:http';
import * as apiKeys from '../accounts/api-keys.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { API_KEY_ORDER, findActiveApiKey, listApiKeys as listApiKeyRows, type ApiKeyRecord } from '../storage/accounts/api-keys.js';
import { toIso, toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];
type AssignablePermission = Schemas['AssignablePermission'];

/** A grace that has ended is no grace: the previous secret no longer works. */
function rotationGraceEnd(key: ApiKeyRecord, now = Date.now()): string | null {
  return key.previous_secret_expires_at !== null && key.previous_secret_expires_at > now
    ? toIsoRequired(key.previous_secret_expires_at)
    : null;
}

function apiKeyBody(key: ApiKeyRecord): Schemas['ApiKey'] {
  return {
    name: key.name,
    api_key: key.id,
    app_id: key.application_id,
    permissions: key.permissions as AssignablePermission[],
    created_at: toIsoRequired(key.created_at),
    updated_at: toIsoRequired(key.updated_at),
    last_used_at: toIso(key.last_used_at),
    expires_at: toIso(key.expires_at),
    rotation_grace_ends_at: rotationGraceEnd(key),
  };
}

export function createApiKey({ knex }: ServiceDeps): OperationHandler<operations['createApiKey']> {
  return async (request) => {
    const input = request.body;
    const expiresAt = input.expires_at == null ? null : apiKeys.parseExpiresAt(input.expires_at, Date.now());
    const { key, secret } = await apiKeys.createApiKey(knex, {
      applicationId: input.app_id,
      name: input.name,
      permissions: input.permissions,
      expiresAt,
    });
    const body: Schemas['ApiKeyCreated'] = {
      name: key.name,
      api_key: key.id,
      api_secret: secret,
      app_id: key.application_id,
      permissions: key.permissions as AssignablePermission[],
      created_at: toIsoRequired(key.created_at),
      expires_at: toIso(key.expires_at),
    };
    return { status: 201, body, headers: { 'Cache-Control': 'no-store' } };
  };
}

export function listApiKeys({ knex }: ServiceDeps): OperationHandler<operations['listApiKeys']> {
  return async (request) => {
    const { query } = request;
    const page = pageRequest(request, API_KEY_ORDER, [query.app_id]);
    const found = await listApiKeyRows(knex, query.app_id, page);
    const body: Schemas['ApiKeyList'] = {
      data: found.items.map(apiKeyBody),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function getApiKey({ knex }: ServiceDeps): OperationHandler<operations['getApiKey']> {
  return async (request) => {
    const key = await findActiveApiKey(knex, request.params.api_key);
    if (!key) throw new NotFoundError(apiKeys.API_KEY_NOT_FOUND);
    return { status: 200, body: apiKeyBody(key) };
  };
}

export function updateApiKey({ knex }: ServiceDeps): OperationHandler<operations['updateApiKey']> {
  return async (request) => {
    const changes = request.body;
    const expiresAt =
      changes.expires_at === undefined
        ? undefined
        : changes.expires_at === null
          ? null
          : apiKeys.parseExpiresAt(changes.expires_at, Date.now());
    const key = await apiKeys.updateApiKey(knex, request.params.api_key, {
      name: changes.name,
      permissions: changes.permissions,
      expires_at: expiresAt,
    });
    const body: Schemas['ApiKeyUpdated'] = {
      api_key: key.id,
      name: key.name,
      permissions: key.permissions as AssignablePermission[],
      ...(expiresAt !== undefined ? { expires_at: toIso(key.expires_at) } : {}),
      updated_at: toIsoRequired(key.updated_at),
    };
    return { status: 200, body };
  };
}

/**
 * Whether the request carried a body at all: the parser answers `{}` for none, and the document's
 * default fills in `grace_period_seconds`, so only the headers tell a body-less 1.3.1 rotation.
 */
function sentBody(request: { headers: Readonly<IncomingHttpHeaders> }): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

export function rotateApiKeySecret({ knex }: ServiceDeps): OperationHandler<operations['rotateApiKeySecret']> {
  return async (request) => {
    const apiKey = request.params.api_key;
    const rotated = await apiKeys.rotateApiKeySecret(knex, apiKey, request.body?.grace_period_seconds ?? 0);
    const body: Schemas['ApiKeySecretRotated'] = {
      api_key: apiKey,
      api_secret: rotated.secret,
      rotated_at: toIsoRequired(rotated.rotatedAt),
      ...(sentBody(request) ? { rotation_grace_ends_at: toIso(rotated.previousSecretExpiresAt) } : {}),
    };
    return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
  };
}

export function deleteApiKey({ knex }: ServiceDeps): OperationHandler<operations['deleteApiKey']> {
  return async (request) => {
    const deleted = await apiKeys.deleteApiKey(knex, request.params.api_key);
    const body: Schemas['ApiKeyDeleted'] = { message: 'API key deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
