// Issues and verifies bearer JWTs. Two issuers are trusted: the service itself (its ES256 key)
// and, when configured, an external OIDC provider (its JWKS, fetched and cached by jose).
import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.js';
import { UnavailableError } from '../errors.js';
import type { Permission } from '../permissions.js';
import { SIGNING_ALGORITHM, type SigningKey } from './signing-key.js';

/** Asymmetric algorithms only: no `none`, no HMAC (a public key must never work as a secret). */
const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Why a token was refused, for the operator's log (the client sees only the message). */
export type TokenFailure =
  | 'malformed'
  | 'untrusted_issuer'
  | 'unknown_signing_key'
  | 'algorithm_not_allowed'
  | 'bad_signature'
  | 'expired'
  | 'invalid_claims'
  | 'rejected';

export class InvalidTokenError extends Error {
  constructor(
    message: string,
    readonly reason: TokenFailure,
  ) {
    super(message);
  }
}

// jose's error codes, grouped into the reasons an operator acts on.
const JOSE_FAILURES: Record<string, TokenFailure> = {
  ERR_JWT_EXPIRED: 'expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'bad_signature',
  ERR_JWKS_NO_MATCHING_KEY: 'unknown_signing_key',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'unknown_signing_key',
  ERR_JOSE_ALG_NOT_ALLOWED: 'algorithm_not_allowed',
  ERR_JWT_CLAIM_VALIDATION_FAILED: 'invalid_claims',
  ERR_JWS_INVALID: 'malformed',
  ERR_JWT_INVALID: 'malformed',
};

/**
 * Whether verification failed because the provider's key set could not be had (unreachable,
 * too slow, not a 200, not a key set): the token may be valid, so the caller is told to retry
 * (503) rather than that its token is bad (401). jose passes a failed fetch on as it is (not a
 * JOSEError, which has a code) and reports the others with these codes.
 */
function keySetUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID' || code === 'ERR_JOSE_GENERIC') return true;
  // Node's fetch: "fetch failed" (refused, reset, DNS), its cause says which.
  return error instanceof TypeError && error.message === 'fetch failed';
}

export interface UserClaims {
  kind: 'user';
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  permissions: string[];
}

export interface ApiKeyClaims {
  kind: 'api_key';
  apiKey: string;
  applicationId: string;
  organizationId: string;
  generation: number;
}

export type VerifiedClaims = UserClaims | ApiKeyClaims;

/**
 * The audience of a dashboard sign-in link's token (docs/dashboard.md, "Signing in"): never the
 * service's API audience, so a link cannot be used as a bearer token, only exchanged once.
 */
export const SIGN_IN_LINK_AUDIENCE = 'spanledger-dashboard-sign-in';

export interface SignInLinkClaims {
  /** The link's one-time id: exchanging it records this id, so a second exchange fails. */
  linkId: string;
  /** When the link stops working, in epoch milliseconds. */
  expiresAtMs: number;
  subject: string;
  email: string | undefined;
  name: string | undefined;
}

/**
 * The audience of an export's download link (engine `createExportLink`): never the API audience,
 * so a link cannot be sent as a bearer token, and no bearer token works as a link.
 */
export const EXPORT_LINK_AUDIENCE = 'spanledger-export-download';

export interface ExportLinkClaims {
  exportId: string;
  applicationId: string;
}

/** The epoch second `ttlSeconds` from now, as a token's `exp`. */
function inSeconds(ttlSeconds: number): number {
  return Math.floor(Date.now() / 1000) + ttlSeconds;
}

interface Issuer {
  name: string;
  keys: JWTVerifyGetKey;
  audience: string;
  algorithms: string[];
}

function permissionsFrom(payload: JWTPayload): string[] {
  if (Array.isArray(payload.permissions)) return payload.permissions.filter((item): item is string => typeof item === 'string');
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  return [];
}

function stringClaim(payload: JWTPayload, name: string): string | null {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

export class TokenService {
  private readonly issuers: Issuer[];

  constructor(
    private readonly config: Config['auth'],
    private readonly signingKey: SigningKey,
  ) {
    this.issuers = [
      {
        name: config.tokenIssuer,
        keys: createLocalJWKSet({ keys: [signingKey.publicJwk] }),
        audience: config.tokenAudience,
        algorithms: [SIGNING_ALGORITHM],
      },
    ];
    if (config.oidc) {
      this.issuers.push({
        name: config.oidc.issuer,
        keys: createRemoteJWKSet(new URL(config.oidc.jwksUrl), { cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000 }),
        audience: config.oidc.audience,
        algorithms: OIDC_ALGORITHMS,
      });
    }
  }

  /** The `iss` of the tokens this service signs; users signed in by a link have it as their issuer. */
  get ownIssuer(): string {
    return this.config.tokenIssuer;
  }

  publicJwks(): { keys: object[] } {
    return { keys: [this.signingKey.publicJwk] };
  }

  /** Signs claims that expire at `expiresAtSeconds` (epoch seconds; inSeconds() for a time to live). */
  private async sign(claims: JWTPayload, subject: string, expiresAtSeconds: number, audience = this.config.tokenAudience): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.signingKey.kid, typ: 'JWT' })
      .setIssuer(this.config.tokenIssuer)
      .setAudience(audience)
      .setSubject(subject)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(expiresAtSeconds)
      .sign(this.signingKey.privateKey);
  }

  /** A dashboard-user token signed by the service itself (local and development use). */
  signUserToken(
    user: { subject: string; email?: string; name?: string; permissions: readonly Permission[] },
    ttlSeconds: number,
  ): Promise<string> {
    return this.sign({ email: user.email, name: user.name, permissions: [...user.permissions] }, user.subject, inSeconds(ttlSeconds));
  }

  /** A one-time dashboard sign-in link's token for a local user (`npm run sign-in-link`). */
  signSignInLink(user: { subject: string; email?: string; name?: string }, ttlSeconds: number): Promise<string> {
    return this.sign(
      { token_use: 'sign_in_link', email: user.email, name: user.name },
      user.subject,
      inSeconds(ttlSeconds),
      SIGN_IN_LINK_AUDIENCE,
    );
  }

  /** A link's claims: signed by this service for the audience and use, not expired. */
  private async verifyLink(token: string, audience: string, use: string, what: string): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.issuers[0].keys, {
        algorithms: [SIGNING_ALGORITHM],
        issuer: this.config.tokenIssuer,
        audience,
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub', 'jti'],
      }));
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new InvalidTokenError(`${what} rejected: ${code ?? 'invalid'}`, (code && JOSE_FAILURES[code]) || 'rejected');
    }
    if (payload.token_use !== use) throw new InvalidTokenError(`not a ${what}`, 'invalid_claims');
    return payload;
  }

  /** Checks a sign-in link's token: signed by this service, for sign-in, not expired. */
  async verifySignInLink(token: string): Promise<SignInLinkClaims> {
    const payload = await this.verifyLink(token, SIGN_IN_LINK_AUDIENCE, 'sign_in_link', 'sign-in link');
    const text = (name: string) => (typeof payload[name] === 'string' && payload[name] !== '' ? (payload[name] as string) : undefined);
    return {
      linkId: payload.jti as string,
      expiresAtMs: (payload.exp as number) * 1000,
      subject: payload.sub as string,
      email: text('email'),
      name: text('name'),
    };
  }

  /** An export's download link token: names the export and its application, works until `expiresAtSeconds` (epoch seconds). */
  signExportLink(link: { exportId: string; applicationId: string; expiresAtSeconds: number }): Promise<string> {
    const claims = { token_use: 'export_download', app_id: link.applicationId };
    return this.sign(claims, link.exportId, link.expiresAtSeconds, EXPORT_LINK_AUDIENCE);
  }

  /** Checks an export's download link token: signed by this service, for a download, not expired. */
  async verifyExportLink(token: string): Promise<ExportLinkClaims> {
    const payload = await this.verifyLink(token, EXPORT_LINK_AUDIENCE, 'export_download', 'download link');
    if (typeof payload.app_id !== 'string') throw new InvalidTokenError('download link lacks its application', 'invalid_claims');
    return { exportId: payload.sub as string, applicationId: payload.app_id };
  }

  /** The token `POST /auth/token` answers: names the key, its application, organization and secret generation. */
  signApiKeyToken(key: { apiKey: string; applicationId: string; organizationId: string; generation: number }): Promise<string> {
    return this.sign(
      { token_use: 'api_key', app_id: key.applicationId, org_id: key.organizationId, gen: key.generation },
      key.apiKey,
      inSeconds(this.config.accessTokenTtlSeconds),
    );
  }

  async verify(token: string): Promise<VerifiedClaims> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new InvalidTokenError('malformed token', 'malformed');
    }
    const issuer = this.issuers.find((candidate) => candidate.name === unverified.iss);
    if (!issuer) throw new InvalidTokenError('token issuer is not trusted', 'untrusted_issuer');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, issuer.keys, {
        algorithms: issuer.algorithms,
        issuer: issuer.name,
        audience: issuer.audience,
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (keySetUnavailable(error)) throw new UnavailableError("the identity provider's signing keys could not be fetched; retry later");
      throw new InvalidTokenError(`token rejected: ${code ?? 'invalid'}`, (code && JOSE_FAILURES[code]) || 'rejected');
    }
    const subject = payload.sub as string;
    // A sign-in link is exchanged once for a token (docs/dashboard.md), never sent as one itself.
    if (issuer.name === this.config.tokenIssuer && (payload.token_use === 'sign_in_link' || payload.token_use === 'export_download'))
      throw new InvalidTokenError('a link is not a bearer token', 'invalid_claims');
    if (issuer.name === this.config.tokenIssuer && payload.token_use === 'api_key') {
      if (typeof payload.app_id !== 'string' || typeof payload.org_id !== 'string' || typeof payload.gen !== 'number') {
        throw new InvalidTokenError('API key token lacks its application, organization or generation', 'invalid_claims');
      }
      return { kind: 'api_key', apiKey: subject, applicationId: payload.app_id, organizationId: payload.org_id, generation: payload.gen };
    }
    return {
      kind: 'user',
      issuer: issuer.name,
      subject,
      email: stringClaim(payload, 'email'),
      name: stringClaim(payload, 'name'),
      permissions: permissionsFrom(payload),
    };
  }
}
