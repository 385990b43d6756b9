// What the page learns from the service before anyone signs in (GET /ui/config.json), built from
// the configuration: whether, and with which OpenID Connect provider and client, it can offer
// "Sign in with …" (docs/dashboard.md, "With an OpenID Connect provider").
import type { Config } from '../config.js';
import { DASHBOARD_USER_PERMISSIONS } from '../permissions.js';

/**
 * What the dashboard asks the provider for unless OIDC_DASHBOARD_SCOPE says otherwise: an ID token
 * (`openid`), the user's name and e-mail (`profile email`), and every dashboard-user permission as
 * a scope, for providers that put the granted scopes in the access token's `scope` claim (the
 * service reads `permissions`, else `scope`: src/auth/tokens.ts). Organization roles narrow them,
 * as for any user token.
 */
export const OIDC_DASHBOARD_DEFAULT_SCOPE = ['openid', 'profile', 'email', ...DASHBOARD_USER_PERMISSIONS].join(' ');

export interface DashboardOidcSettings {
  /** The issuer the browser discovers the provider from (`<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  /** The dashboard's public client (no secret: PKCE protects the code). */
  client_id: string;
  scope: string;
  /** OIDC_AUDIENCE: the access token must be for it; sent as the RFC 8707 `resource` when it is a URL. */
  audience: string;
  /** Shown on the button: "Sign in with <name>". */
  name: string;
}

export interface DashboardSettings {
  /** The OpenID Connect provider to sign in with, when one is configured for the dashboard. */
  oidc: DashboardOidcSettings | null;
}

export function dashboardSettings(config: Config): DashboardSettings {
  const oidc = config.auth.oidc;
  if (!oidc?.dashboard) return { oidc: null };
  return {
    oidc: {
      issuer: oidc.issuer,
      client_id: oidc.dashboard.clientId,
      scope: oidc.dashboard.scope ?? OIDC_DASHBOARD_DEFAULT_SCOPE,
      audience: oidc.audience,
      name: oidc.dashboard.providerName,
    },
  };
}
