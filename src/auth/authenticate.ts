// Turns an `Authorization` header value into a Principal, independent of the transport (the
// koa security handler and the gRPC metadata check both call authenticateAuthorization).
// API-key credentials are checked against the key's row on every request (one primary-key read):
// a deleted key, a rotated secret (once its grace ends) or a passed expiry fails at once, a
// permission change applies at once.
import type { Knex } from 'knex';
import { NotAuthenticatedError } from '../errors.js';
import { findActiveApiKeyCredentials, touchApiKey, type ApiKeyCredentials } from '../storage/accounts/api-key-credentials.js';
import { signInUser } from '../storage/accounts/users.js';
import { expiredKeyMessage, generationAccepted, keyExpired, secretGeneration } from './api-key-checks.js';
import { isBasic, parseBasic } from './basic-credentials.js';
import type { Principal } from './principal.js';
import { InvalidTokenError, type TokenFailure, type TokenService } from './tokens.js';

// Scheme names are case-insensitive (RFC 9110 §11.1), as Basic is (basic-credentials.ts).
const BEARER = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/i;
const BEARER_VALUE = /^Bearer +(.+)$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const BASIC_CHALLENGE = 'Basic realm="spanledger ingestion", charset="UTF-8"';

const NOT_A_JWT =
  'Authorization: Bearer takes a JWT, not an API key or secret: exchange the key and secret at POST /auth/token for a token ' +
  '(POST /v1/traces also accepts Authorization: Basic base64(api_key:api_secret))';
const BASIC_ELSEWHERE =
  'Authorization: Basic is accepted by POST /v1/traces only: exchange the API key and secret at POST /auth/token for a token and send Authorization: Bearer <token>';
const BAD_KEY_OR_SECRET = 'invalid API key or secret (a deleted key or a rotated secret no longer works)';

/**
 * Why a request was refused, put on its access-log line (`auth_failure`) for the operator;
 * `unknown_key`: the token names an API key that does not exist (or was deleted);
 * `revoked`: the key exists but its secret was rotated since the token was issued;
 * `wrong_secret`: Basic credentials whose secret is not the key's current one (nor its previous
 * one in a rotation's grace);
 * `expired_key`: the key's `expires_at` has passed (token and Basic alike);
 * `basic_not_accepted`: Basic credentials on an operation that takes tokens only.
 */
export type AuthFailure = 'missing' | TokenFailure | 'unknown_key' | 'revoked' | 'wrong_secret' | 'expired_key' | 'basic_not_accepted';

/** A 401 that also says why, for the log line only (clients see the message and challenge). */
export class AuthenticationError extends NotAuthenticatedError {
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

export interface AuthenticationOptions {
  /** Whether the operation takes `Basic base64(api_key:api_secret)` (ingestion does). */
  acceptBasic?: boolean;
}

export function invalidToken(reason: AuthFailure, message: string): AuthenticationError {
  return new AuthenticationError(reason, message, `Bearer error="invalid_token", error_description="${message}"`);
}

/**
 * The caller named by an `Authorization` header value (undefined or '' when absent), or a thrown
 * AuthenticationError (401); storage failures propagate as they are.
 */
export async function authenticateAuthorization(
  authorization: string | undefined,
  deps: AuthenticationDeps,
  options: AuthenticationOptions = {},
): Promise<Principal> {
  if (!authorization) {
    if (!options.acceptBasic) throw new AuthenticationError('missing', 'Not authenticated: send Authorization: Bearer <token>');
    throw new AuthenticationError(
      'missing',
      'Not authenticated: send Authorization: Bearer <token> or Basic base64(api_key:api_secret)',
      `Bearer, ${BASIC_CHALLENGE}`,
    );
  }
  if (isBasic(authorization)) {
    if (!options.acceptBasic) throw new AuthenticationError('basic_not_accepted', BASIC_ELSEWHERE);
    return authenticateBasic(authorization, deps.knex);
  }
  const pasted = BEARER_VALUE.exec(authorization)?.[1];
  if (pasted !== undefined && !JWT_SHAPE.test(pasted)) throw invalidToken('malformed', NOT_A_JWT);
  const match = BEARER.exec(authorization);
  if (!match) throw invalidToken('malformed', 'Authorization must use the Bearer scheme with a JWT');
  return authenticateToken(match[1] as string, deps);
}

async function authenticateToken(token: string, { knex, tokens }: AuthenticationDeps): Promise<Principal> {
  let claims;
  try {
    claims = await tokens.verify(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw invalidToken(error.reason, error.message);
    throw error;
  }
  if (claims.kind === 'user') {
    const user = await signInUser(knex, { issuer: claims.issuer, subject: claims.subject, email: claims.email, name: claims.name });
    return { kind: 'user', userId: user.id, email: user.email, name: user.name, permissions: new Set(claims.permissions) };
  }
  const key = await findActiveApiKeyCredentials(knex, claims.apiKey);
  if (!key || !generationAccepted(key, claims.generation) || key.applicationId !== claims.applicationId) {
    throw invalidToken(key ? 'revoked' : 'unknown_key', 'token revoked: the API key was deleted or its secret rotated');
  }
  if (keyExpired(key)) throw invalidToken('expired_key', expiredKeyMessage(key));
  return keyPrincipal(knex, key);
}

/** The same one-row read as a key's token, plus a constant-time comparison of the secret's hash. */
async function authenticateBasic(authorization: string, knex: Knex): Promise<Principal> {
  const credentials = parseBasic(authorization);
  if (!credentials)
    throw new AuthenticationError('malformed', 'Authorization: Basic must carry base64(api_key:api_secret)', BASIC_CHALLENGE);
  // Ids are short; anything else cannot name a key, and is not worth a query.
  const key = credentials.apiKey.length <= 64 ? await findActiveApiKeyCredentials(knex, credentials.apiKey) : undefined;
  if (!key) throw new AuthenticationError('unknown_key', BAD_KEY_OR_SECRET, BASIC_CHALLENGE);
  if (secretGeneration(key, credentials.secret) === undefined)
    throw new AuthenticationError('wrong_secret', BAD_KEY_OR_SECRET, BASIC_CHALLENGE);
  // Checked after the secret, so that only a holder of the secret learns the key's expiry.
  if (keyExpired(key)) throw new AuthenticationError('expired_key', expiredKeyMessage(key), BASIC_CHALLENGE);
  return keyPrincipal(knex, key);
}

async function keyPrincipal(knex: Knex, key: ApiKeyCredentials): Promise<Principal> {
  await touchApiKey(knex, key);
  return {
    kind: 'api_key',
    apiKey: key.id,
    applicationId: key.applicationId,
    organizationId: key.organizationId,
    permissions: new Set(key.permissions),
    indexedAttributes: key.indexedAttributes,
    readAt: key.readAt,
    dailySpanQuota: key.dailySpanQuota,
  };
}
