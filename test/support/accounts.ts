// Seeds accounts straight into the database (organizations, memberships, applications, API keys)
// so authentication and authorization tests do not depend on the management handlers.
import type { Knex } from 'knex';
import { newId, newSecret } from '../../src/storage/accounts/ids.js';
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import { hashSecret } from '../../src/accounts/secrets.js';
import { signInUser } from '../../src/storage/accounts/users.js';
import type { ResourceIds } from './operation-requests.js';
import type { TestServer } from './test-server.js';

const EMPTY_ADDRESS = JSON.stringify({ street: '', city: '', state: '', postal_code: '', country: '' });

export interface SeededUser {
  userId: string;
  subject: string;
  token: string;
}

export interface SeededKey {
  apiKey: string;
  secret: string;
}

/** A dashboard user known to the service, with a token signed by the service's own key. */
export async function seedUser(app: TestServer, name: string, permissions: readonly string[] = DASHBOARD_USER_PERMISSIONS): Promise<SeededUser> {
  const subject = `${name}-${newId('usr').slice(4, 12)}`;
  const email = `${subject}@example.com`;
  const user = await signInUser(app.server.knex, { issuer: app.config.auth.tokenIssuer, subject, email, name });
  const token = await app.server.tokens.signUserToken({ subject, email, name, permissions: permissions as never }, 3600);
  return { userId: user.id, subject, token };
}

export async function seedOrganization(knex: Knex, members: Array<[userId: string, role: 'owner' | 'member']>): Promise<string> {
  const id = newId('org');
  const now = Date.now();
  await knex('organizations').insert({ id, name: `Org ${id}`, address: EMPTY_ADDRESS, billing_address: EMPTY_ADDRESS, created_at: now, updated_at: now });
  for (const [userId, role] of members) {
    await knex('memberships').insert({ organization_id: id, user_id: userId, role, created_at: now, updated_at: now });
  }
  return id;
}

export async function seedApplication(knex: Knex, organizationId: string): Promise<string> {
  const id = newId('app');
  const now = Date.now();
  await knex('applications').insert({ id, organization_id: organizationId, name: `App ${id}`, region: 'EU', pricing_plan: 'free', created_at: now, updated_at: now });
  return id;
}

export async function seedApiKey(knex: Knex, applicationId: string, permissions: readonly string[]): Promise<SeededKey> {
  const apiKey = newId('ak');
  const secret = newSecret();
  const now = Date.now();
  await knex('api_keys').insert({
    id: apiKey,
    application_id: applicationId,
    name: `key ${apiKey}`,
    permissions: JSON.stringify(permissions),
    secret_hash: hashSecret(secret),
    secret_generation: 1,
    created_at: now,
    updated_at: now,
  });
  return { apiKey, secret };
}

/** Exchanges a key and secret for a token at POST /auth/token (JSON body). */
export async function apiKeyToken(app: TestServer, key: SeededKey): Promise<string> {
  const response = await fetch(new URL('/auth/token', app.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret }),
  });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * An owner with an organization and an application in it, as the ids a request builder fills in
 * (`test/support/operation-requests.ts`); the API key named is one that does not exist.
 */
export async function seedOwnedResources(app: TestServer): Promise<{ ids: ResourceIds; token: string }> {
  const owner = await seedUser(app, 'owner');
  const orgId = await seedOrganization(app.server.knex, [[owner.userId, 'owner']]);
  const appId = await seedApplication(app.server.knex, orgId);
  return { ids: { orgId, appId, apiKey: 'ak_unknown00000000000', userId: owner.userId }, token: owner.token };
}
