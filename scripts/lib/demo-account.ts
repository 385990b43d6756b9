// What `npm run seed:demo` needs when it is given no application: a demo user (a token signed with
// the service's own key, from the same data folder as the running service), an organization, an
// application and an API key holding write:traces and read:traces, all made through the management API.
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import { loadSigningKey } from '../../src/auth/signing-key.js';
import { TokenService } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';

export interface DemoAccount {
  userToken: string;
  appId: string;
  keyToken: string;
  /** The key's own credentials, for an exporter configured by environment variables. */
  apiKey: string;
  apiSecret: string;
  /** A one-time dashboard sign-in link for the demo user (docs/dashboard.md), valid for an hour. */
  signInLink: string;
}

async function post<T>(baseUrl: string, path: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

export async function createDemoAccount(baseUrl: string): Promise<DemoAccount> {
  const config = loadConfig();
  const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
  const userToken = await tokens.signUserToken(
    { subject: 'demo', email: 'demo@example.com', name: 'Demo User', permissions: DASHBOARD_USER_PERMISSIONS },
    7 * 86_400,
  );
  const organization = await post<{ id: string }>(baseUrl, '/organizations', { name: 'Demo organization' }, userToken);
  const application = await post<{ id: string }>(
    baseUrl,
    '/applications',
    { organization_id: organization.id, name: 'Demo shop', region: 'EU', pricing_plan: 'pro' },
    userToken,
  );
  const key = await post<{ api_key: string; api_secret: string }>(
    baseUrl,
    '/api-keys',
    { app_id: application.id, name: 'demo exporter', permissions: ['write:traces', 'read:traces'] },
    userToken,
  );
  const exchanged = await post<{ access_token: string }>(baseUrl, '/auth/token', {
    grant_type: 'client_credentials',
    client_id: key.api_key,
    client_secret: key.api_secret,
  });
  const link = await tokens.signSignInLink({ subject: 'demo', email: 'demo@example.com', name: 'Demo User' }, 3600);
  // The link opens the demo application's trace list once signed in (`next`, docs/dashboard.md).
  const signInLink = `${new URL(baseUrl).origin}/ui/sign-in#link=${link}&next=${encodeURIComponent(`/ui/traces?app=${application.id}`)}`;
  return { signInLink, userToken, appId: application.id, keyToken: exchanged.access_token, apiKey: key.api_key, apiSecret: key.api_secret };
}
