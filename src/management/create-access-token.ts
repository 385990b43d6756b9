// POST /auth/token: OAuth 2.0 client credentials (RFC 6749 section 4.4). The API key and secret
// come in the body or by HTTP Basic (not both); the answer is a service-signed JWT.
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { expiredKeyMessage, keyExpired, secretGeneration } from '../auth/api-key-checks.js';
import { recordRefusedTokenExchange } from '../accounts/audit-trail.js';
import { findActiveApiKeyCredentials } from '../storage/accounts/api-key-credentials.js';
import type { components, operations } from '../generated/management.js';
import { OAuthError } from '../errors.js';

type TokenResponse = components['schemas']['TokenResponse'];

/** The three parameters the grant reads, each a string when sent. */
interface TokenRequest {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
}

const TOKEN_PARAMETERS = ['grant_type', 'client_id', 'client_secret'] as const;

/**
 * The document's body schema accepts every body (`TokenRequestBody`, so that a validating gateway
 * leaves every malformed request to the RFC 6749 errors below): a non-object body, or a parameter
 * that is not one string (a JSON number, a repeated form field), is checked here.
 */
function readTokenRequest(body: unknown): TokenRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_request', 'body: Input should be of type object');
  const fields = body as Record<string, unknown>;
  const wrong = TOKEN_PARAMETERS.filter((name) => fields[name] !== undefined && typeof fields[name] !== 'string');
  if (wrong.length > 0) throw new OAuthError('invalid_request', wrong.map((name) => `${name}: Input should be of type string`).join('; '));
  return fields as TokenRequest;
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

function basicCredentials(header: string): ClientCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 section 2.3.1: both parts are form-urlencoded before Basic encoding.
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
  try {
    return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function clientCredentials(authorization: string | undefined, body: TokenRequest): ClientCredentials {
  const inBody = typeof body.client_id === 'string' || typeof body.client_secret === 'string';
  if (authorization) {
    if (inBody) throw new OAuthError('invalid_request', 'send the client credentials either in the body or by HTTP Basic, not both');
    const basic = basicCredentials(authorization);
    if (!basic) throw new OAuthError('invalid_client', 'client authentication must use HTTP Basic', 'malformed');
    return basic;
  }
  if (typeof body.client_id !== 'string' || typeof body.client_secret !== 'string') {
    throw new OAuthError('invalid_client', 'client_id and client_secret are required', 'missing');
  }
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

/** Whatever grant_type is sent reaches this check, so only these RFC 6749 errors answer it. */
function requireClientCredentialsGrant(body: TokenRequest): void {
  if (body.grant_type === undefined || body.grant_type === '') throw new OAuthError('invalid_request', 'grant_type is required');
  if (body.grant_type !== 'client_credentials') throw new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials');
}

export function createAccessToken({ knex, tokens, config }: ServiceDeps): OperationHandler<operations['createAccessToken']> {
  return async (request) => {
    const body = readTokenRequest(request.body);
    requireClientCredentialsGrant(body);
    const { clientId, clientSecret } = clientCredentials(request.headers.authorization, body);
    const key = await findActiveApiKeyCredentials(knex, clientId);
    // The previous secret, during a rotation's grace, mints tokens of its own generation: they stop when the grace does.
    const generation = key && secretGeneration(key, clientSecret);
    if (!key || generation === undefined) {
      // A wrong secret of a real key is someone trying it: the key's organization sees the attempt.
      if (key) await recordRefusedTokenExchange(knex, { apiKey: key.id, organizationId: key.organizationId });
      throw new OAuthError('invalid_client', 'unknown API key or wrong secret', key ? 'wrong_secret' : 'unknown_key');
    }
    if (keyExpired(key)) throw new OAuthError('invalid_client', expiredKeyMessage(key), 'expired_key');
    const accessToken = await tokens.signApiKeyToken({
      apiKey: key.id,
      applicationId: key.applicationId,
      organizationId: key.organizationId,
      generation,
    });
    const answer: TokenResponse = { access_token: accessToken, token_type: 'Bearer', expires_in: config.auth.accessTokenTtlSeconds };
    return { status: 200, body: answer, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } };
  };
}
