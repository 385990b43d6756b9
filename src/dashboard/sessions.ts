// The dashboard's sign-in sessions (docs/dashboard.md, "Signing in"). A link sign-in opens one; the
// browser keeps its random id in an HttpOnly cookie (./session-cookies.ts) and the page never sees
// it: the page asks for a short-lived access token with it whenever it needs one. Only the id's
// SHA-256 is stored. A session ends after DASHBOARD_SESSION_IDLE_SECONDS without a token request,
// DASHBOARD_SESSION_MAX_SECONDS after sign-in, at sign-out, and when its user is gone or loses
// their last membership (src/accounts/members.ts deletes the rows).
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { TokenService } from '../auth/tokens.js';
import type { DashboardSessionConfig } from '../config.js';
import { NotAuthenticatedError } from '../errors.js';
import { DASHBOARD_USER_PERMISSIONS } from '../permissions.js';
import {
  deleteDashboardSession,
  findDashboardSession,
  insertDashboardSession,
  touchDashboardSession,
} from '../storage/accounts/dashboard-sessions.js';
import { findUserById } from '../storage/accounts/users.js';

/**
 * How long a token minted for the page lasts. Short, because a token cannot be taken back: it
 * bounds how long a token outlives its session's end; the page asks for the next one before then.
 */
export const DASHBOARD_TOKEN_SECONDS = 300;

/** The answer of a link exchange and of a token request (POST /ui/session, POST /ui/session/token). */
export interface DashboardToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const ENDED = 'Your dashboard session has ended (signed out, expired or revoked): sign in again';

function hashOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

export class DashboardSessions {
  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService,
    readonly config: DashboardSessionConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A new session of the user; answers its id, for the cookie only. */
  async open(userId: string): Promise<string> {
    const sessionId = randomBytes(32).toString('base64url');
    const now = this.clock();
    const expiresAt = now + this.config.maxSeconds * 1000;
    await insertDashboardSession(this.knex, {
      idHash: hashOf(sessionId),
      userId,
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: Math.min(now + this.config.idleSeconds * 1000, expiresAt),
      expiresAt,
    });
    return sessionId;
  }

  /**
   * The session's CSRF token: derived from the id (a one-way hash, so it tells nothing of the id),
   * readable by the page, and required in a header on every call that changes the session.
   */
  csrfTokenOf(sessionId: string): string {
    return createHash('sha256').update(`csrf:${sessionId}`).digest('base64url');
  }

  /** A token for the session's user, moving the idle expiry on; NotAuthenticatedError once the session has ended. */
  async mint(sessionId: string): Promise<DashboardToken> {
    const idHash = hashOf(sessionId);
    const session = await findDashboardSession(this.knex, idHash);
    const now = this.clock();
    if (!session) throw new NotAuthenticatedError(ENDED, 'DashboardSession');
    const user = now < session.idleExpiresAt && now < session.expiresAt ? await findUserById(this.knex, session.userId) : undefined;
    // Sessions are opened for users signed in by this service's links only: any other user is not theirs.
    if (!user || user.issuer !== this.tokens.ownIssuer || !user.subject) {
      await deleteDashboardSession(this.knex, idHash);
      throw new NotAuthenticatedError(ENDED, 'DashboardSession');
    }
    const idleExpiresAt = Math.min(now + this.config.idleSeconds * 1000, session.expiresAt);
    // Revoked between the read and now: no token.
    if (!(await touchDashboardSession(this.knex, idHash, now, idleExpiresAt))) throw new NotAuthenticatedError(ENDED, 'DashboardSession');
    return this.tokenFor({ subject: user.subject, email: user.email, name: user.name });
  }

  async tokenFor(user: { subject: string; email: string | null; name: string | null }): Promise<DashboardToken> {
    const accessToken = await this.tokens.signUserToken(
      { subject: user.subject, email: user.email ?? undefined, name: user.name ?? undefined, permissions: DASHBOARD_USER_PERMISSIONS },
      DASHBOARD_TOKEN_SECONDS,
    );
    return { access_token: accessToken, token_type: 'Bearer', expires_in: DASHBOARD_TOKEN_SECONDS };
  }

  async close(sessionId: string): Promise<void> {
    await deleteDashboardSession(this.knex, hashOf(sessionId));
  }
}
