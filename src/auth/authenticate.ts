// Turns an `Authorization` header value into a Principal, independent of the transport (the
// koa security handler and the gRPC metadata check both call authenticateAuthorization).
// API-key credentials are checked against the key's row on every request (one primary-key read):
// a deleted key or rotated secret fails at once, a permission change applies at once.
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

/** A 401 that also says why, for the log line only (clients see the message and challenge). */
export class AuthenticationError extends UnauthorizedError {
  constructor(
    readonly reason: AuthFailure,
    message: string,
    challenge?: string,
  ) {
    super(message, challenge);
  }
}

export interface AuthenticationDeps {
  knex: Knex;
  tokens: TokenService;
}

function invalidToken(reason: AuthFailure, message: string): AuthenticationError {
  return new AuthenticationError(reason, message, `Bearer error="invalid_token", error_description="${message}"`);
}

/**
 * The caller named by an `Authorization` header value (undefined or '' when absent), or a thrown
 * AuthenticationError (401); storage failures propagate as they are.
 */
export async function authenticateAuthorization(authorization: string | undefined, deps: AuthenticationDeps): Promise<Principal> {
  const { knex, tokens } = deps;
  if (!authorization) throw new AuthenticationError('missing', 'Not authenticated: send Authorization: Bearer <token>');
  const match = BEARER.exec(authorization);
  if (!match) throw invalidToken('malformed', 'Authorization must use the Bearer scheme with a JWT');
  let claims;
  try {
    claims = await tokens.verify(match[1] as string);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw invalidToken(error.reason, error.message);
    throw error;
  }
  if (claims.kind === 'user') {
    const user = await signInUser(knex, { issuer: claims.issuer, subject: claims.subject, email: claims.email, name: claims.name });
    return { kind: 'user', userId: user.id, email: user.email, name: user.name, permissions: new Set(claims.permissions) };
  }
  const key = await findActiveApiKeyCredentials(knex, claims.apiKey);
  if (!key || key.secretGeneration !== claims.generation || key.applicationId !== claims.applicationId) {
    throw invalidToken(key ? 'revoked' : 'unknown_key', 'token revoked: the API key was deleted or its secret rotated');
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
