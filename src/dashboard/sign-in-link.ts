// Exchanges a one-time sign-in link (`npm run sign-in-link`) for a dashboard user's access token
// (docs/dashboard.md, "Signing in"). The link's token is never a bearer token itself: it has its
// own audience, and its id is recorded on exchange so it signs in once.
import type { Knex } from 'knex';
import { InvalidTokenError, type TokenService } from '../auth/tokens.js';
import { NotAuthenticatedError } from '../errors.js';
import { DASHBOARD_USER_PERMISSIONS } from '../permissions.js';
import { consumeSignInLink } from '../storage/accounts/sign-in-links.js';

/** How long a dashboard session lasts after a link sign-in; the user signs in again after it. */
export const DASHBOARD_SESSION_SECONDS = 8 * 3600;

export interface DashboardSession {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

export async function exchangeSignInLink(knex: Knex, tokens: TokenService, link: string): Promise<DashboardSession> {
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
  const accessToken = await tokens.signUserToken(
    { subject: claims.subject, email: claims.email, name: claims.name, permissions: DASHBOARD_USER_PERMISSIONS },
    DASHBOARD_SESSION_SECONDS,
  );
  return { access_token: accessToken, token_type: 'Bearer', expires_in: DASHBOARD_SESSION_SECONDS };
}
