// What management tests need: dashboard users with service-signed tokens, a caller bound to a
// token (every answer checked against the document by call()), and short-hands for the common
// create steps, all through HTTP.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import { call, type ApiResponse, type CallOptions } from './contract.js';
import type { TestServer } from './test-server.js';

export interface DashboardUser {
  subject: string;
  email: string;
  name: string;
  token: string;
}

/** A dashboard user's token; the user row is made by the service on the token's first call. */
export async function dashboardUser(app: TestServer, name = 'Alice', email?: string): Promise<DashboardUser> {
  const subject = `${name.toLowerCase().replace(/[^a-z]/g, '') || 'user'}-${randomBytes(6).toString('hex')}`;
  const address = email ?? `${subject}@example.com`;
  const token = await app.server.tokens.signUserToken(
    { subject, email: address, name, permissions: [...DASHBOARD_USER_PERMISSIONS] },
    3600,
  );
  return { subject, email: address, name, token };
}

export type Caller = <T = any>(method: string, path: string, options?: CallOptions) => Promise<ApiResponse<T>>;

/** Calls the running app with `Authorization: Bearer <token>` (no token: anonymous). */
export function callerFor(app: TestServer, token?: string): Caller {
  return (method, path, options = {}) => call(app.url, method, path, { ...options, token: options.token ?? token });
}

export function expectStatus(response: ApiResponse, status: number): void {
  expect(response.status, `${response.status} ${response.text.slice(0, 400)}`).to.equal(status);
}

export async function createOrganization(as: Caller, name = 'Acme'): Promise<string> {
  const response = await as('POST', '/organizations', { json: { name } });
  expectStatus(response, 201);
  return response.body.id;
}

export async function createApplication(as: Caller, organizationId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await as('POST', '/applications', {
    json: { organization_id: organizationId, name: 'Checkout', region: 'EU', ...extra },
  });
  expectStatus(response, 201);
  return response.body.id;
}

export async function createApiKey(
  as: Caller,
  appId: string,
  permissions: string[] = ['read:traces'],
): Promise<{ apiKey: string; secret: string }> {
  const response = await as('POST', '/api-keys', { json: { app_id: appId, name: 'ingest', permissions } });
  expectStatus(response, 201);
  return { apiKey: response.body.api_key, secret: response.body.api_secret };
}

/** POST /auth/token with a JSON body; answers the whole response (200 or the OAuth error). */
export function exchange(app: TestServer, apiKey: string, secret: string): Promise<ApiResponse> {
  return call(app.url, 'POST', '/auth/token', { json: { grant_type: 'client_credentials', client_id: apiKey, client_secret: secret } });
}

export async function keyToken(app: TestServer, apiKey: string, secret: string): Promise<string> {
  const response = await exchange(app, apiKey, secret);
  expectStatus(response, 200);
  return response.body.access_token;
}

/** A user with an organization of their own (as its owner) and one application in it. */
export async function ownerWithApplication(
  app: TestServer,
  name = 'Owner',
): Promise<{ user: DashboardUser; as: Caller; orgId: string; appId: string }> {
  const user = await dashboardUser(app, name);
  const as = callerFor(app, user.token);
  const orgId = await createOrganization(as, `${name}'s organization`);
  const appId = await createApplication(as, orgId);
  return { user, as, orgId, appId };
}
