// The bearerAuth security handler: turns `Authorization: Bearer <JWT>` into a Principal.
// API-key tokens are checked against the key's row on every request (one primary-key read):
// a deleted key or rotated secret fails at once, a permission change applies at once.
import type { Context as KoaContext } from 'koa';
import type { Knex } from 'knex';
import { UnauthorizedError } from '../http/errors.js';
import { findActiveApiKeyCredentials, touchApiKey } from '../storage/accounts/api-key-credentials.js';
import { signInUser } from '../storage/accounts/users.js';
import type { Principal } from './principal.js';
import { InvalidTokenError, type TokenFailure, type TokenService } from './tokens.js';

const BEARER = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/;

/**
 * Why a request was refused, put on its access-log line (`auth_failure`) for the operator;
 * `unknown_key`: the token names an API key that does not exist (or was deleted);
 * `revoked`: the key exists but its secret was rotated since the token was issued.
 */
export type AuthFailure = 'missing' | TokenFailure | 'unknown_key' | 'revoked';

function refuse(ctx: KoaContext, reason: AuthFailure, error: UnauthorizedError): UnauthorizedError {
  ctx.state.authFailure = reason;
  return error;
}

function invalidToken(ctx: KoaContext, reason: AuthFailure, message: string): UnauthorizedError {
  return refuse(ctx, reason, new UnauthorizedError(message, `Bearer error="invalid_token", error_description="${message}"`));
}

export async function authenticate(ctx: KoaContext, knex: Knex, tokens: TokenService): Promise<Principal> {
  const header = ctx.get('Authorization');
  if (!header) throw refuse(ctx, 'missing', new UnauthorizedError('Not authenticated: send Authorization: Bearer <token>'));
  const match = BEARER.exec(header);
  if (!match) throw invalidToken(ctx, 'malformed', 'Authorization must use the Bearer scheme with a JWT');
  let claims;
  try {
    claims = await tokens.verify(match[1] as string);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw invalidToken(ctx, error.reason, error.message);
    throw error;
  }
  if (claims.kind === 'user') {
    const user = await signInUser(knex, { issuer: claims.issuer, subject: claims.subject, email: claims.email, name: claims.name });
    return { kind: 'user', userId: user.id, email: user.email, name: user.name, permissions: new Set(claims.permissions) };
  }
  const key = await findActiveApiKeyCredentials(knex, claims.apiKey);
  if (!key || key.secretGeneration !== claims.generation || key.applicationId !== claims.applicationId) {
    throw invalidToken(ctx, key ? 'revoked' : 'unknown_key', 'token revoked: the API key was deleted or its secret rotated');
  }
  await touchApiKey(knex, key);
  return {
    kind: 'api_key',
    apiKey: key.id,
    applicationId: key.applicationId,
    organizationId: key.organizationId,
    permissions: new Set(key.permissions),
  };
}
