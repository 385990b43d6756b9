// Exchanges a one-time sign-in link (`npm run sign-in-link`) for a dashboard session and a first
// access token (docs/dashboard.md, "Signing in"). The link's token is never a bearer token itself:
// it has its own audience, and its id is recorded on exchange so it signs in once.
import type { Knex } from 'knex';
import { InvalidTokenError, type TokenService } from '../auth/tokens.js';
import { NotAuthenticatedError } from '../errors.js';
import { consumeSignInLink } from '../storage/accounts/sign-in-links.js';
import { signInUser } from '../storage/accounts/users.js';
import type { DashboardSessions, DashboardToken } from './sessions.js';

export interface LinkSignIn {
  /** For the session cookie only. */
  sessionId: string;
  token: DashboardToken;
}

export async function exchangeSignInLink(knex: Knex, tokens: TokenService, sessions: DashboardSessions, link: string): Promise<LinkSignIn> {
  let claims;
  try {
    claims = await tokens.verifySignInLink(link);
  } catch (error) {
    if (!(error instanceof InvalidTokenError)) throw error;
    const expired = error.reason === 'expired';
    throw new NotAuthenticatedError(
      expired ? 'This sign-in link has expired: ask for a new one' : 'This is not a valid sign-in link',
      'SignInLink',
    );
  }
  if (!(await consumeSignInLink(knex, claims.linkId, claims.expiresAtMs))) {
    throw new NotAuthenticatedError('This sign-in link was already used: ask for a new one', 'SignInLink');
  }
  // The user the minted tokens will name (made on the first sign-in, as a first bearer token would).
  const user = await signInUser(knex, {
    issuer: tokens.ownIssuer,
    subject: claims.subject,
    email: claims.email ?? null,
    name: claims.name ?? null,
  });
  const sessionId = await sessions.open(user.id);
  return { sessionId, token: await sessions.tokenFor({ subject: claims.subject, email: claims.email ?? null, name: claims.name ?? null }) };
}
