// Accounts for tests: a thin layer over scripts/lib/seed-accounts.ts (which writes through the
// storage repositories) keeping the signatures the tests call, plus what only tests need: user
// tokens signed by the test server's own key and the key-for-token exchange at POST /auth/token.
import type { Knex } from 'knex';
import { newId } from '../../src/storage/accounts/ids.js';
import { queuedExport } from '../../src/exports/export-jobs.js';
import { EXPORTS, insertExportJob } from '../../src/storage/exports/export-jobs.js';
import { hoursOfWindow, insertRepricingJob, REPRICING_JOBS } from '../../src/storage/repricing/repricing-jobs.js';
import { insertWebhookEndpoint } from '../../src/storage/webhooks/webhook-endpoints.js';
import { newWebhookSecret } from '../../src/webhooks/signature.js';
import { DASHBOARD_USER_PERMISSIONS, type Permission, type Role } from '../../src/permissions.js';
import * as seed from '../../scripts/lib/seed-accounts.js';
import type { ResourceIds } from './operation-requests.js';
import type { TestServer } from './test-server.js';

export interface SeededUser {
  userId: string;
  subject: string;
  token: string;
}

export type SeededKey = seed.SeededApiKey;

/** A dashboard user known to the service, with a token signed by the service's own key. */
export async function seedUser(
  app: TestServer,
  name: string,
  permissions: readonly string[] = DASHBOARD_USER_PERMISSIONS,
): Promise<SeededUser> {
  const subject = `${name}-${newId('usr').slice(4, 12)}`;
  const email = `${subject}@example.com`;
  const user = await seed.seedUser(app.server.knex, { issuer: app.config.auth.tokenIssuer, subject, email, name });
  const token = await app.server.tokens.signUserToken({ subject, email, name, permissions: permissions as never }, 3600);
  return { userId: user.id, subject, token };
}

/** An organization with these members; without an owner among them, the seed owner owns it. */
export async function seedOrganization(knex: Knex, members: Array<[userId: string, role: Role]>): Promise<string> {
  return seed.seedOrganization(knex, { members });
}

export async function seedApplication(
  knex: Knex,
  organizationId: string,
  input: Parameters<typeof seed.seedApplication>[2] = {},
): Promise<string> {
  return seed.seedApplication(knex, organizationId, input);
}

/**
 * A price entry of the organization (scripts/lib/seed-accounts.ts: by default `seed-model` of any
 * provider, always in force), with the fields given and created at `now`.
 */
export async function seedPriceEntry(
  knex: Knex,
  organizationId: string,
  input: Parameters<typeof seed.seedPriceEntry>[2] = {},
  now?: number,
): Promise<string> {
  return seed.seedPriceEntry(knex, organizationId, input, now);
}

export async function seedApiKey(knex: Knex, applicationId: string, permissions: readonly string[]): Promise<SeededKey> {
  // The tests name permissions as plain strings; they are stored as given.
  return seed.seedApiKey(knex, applicationId, permissions as readonly Permission[]);
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

/**
 * A re-pricing job of the application over 2026-10-01 (a window no document example overlaps),
 * running and held by another instance for an hour, so that no worker of the test server changes
 * it meanwhile; written through storage, without an audit event, as the other seeds.
 */
export async function seedRepricingJob(knex: Knex, applicationId: string): Promise<string> {
  const id = newId('rpj');
  const [fromNs, toNs] = [1_790_812_800_000_000_000n, 1_790_899_200_000_000_000n];
  const now = Date.now();
  await knex.transaction(async (trx) => {
    await insertRepricingJob(trx, {
      id,
      applicationId,
      fromNs,
      toNs,
      status: 'running',
      spansExamined: 0,
      spansRepriced: 0,
      hoursDone: 0,
      hoursTotal: hoursOfWindow(fromNs, toNs),
      createdAt: now,
      startedAt: now,
      finishedAt: null,
      error: null,
    });
    await trx(REPRICING_JOBS)
      .where({ id })
      .update({ lease_owner: 'another-instance', lease_expires_at: now + 3_600_000 });
  });
  return id;
}

/** A queued export of the application, held by another instance so that no worker of the test's server takes it. */
export async function seedExport(knex: Knex, organizationId: string, applicationId: string): Promise<string> {
  const now = Date.now();
  const job = queuedExport(
    {
      applicationId,
      organizationId,
      startNs: 1_790_812_800_000_000_000n,
      endNs: 1_790_899_200_000_000_000n,
      filter: null,
      grain: 'spans',
      format: 'ndjson',
      compression: 'none',
      columns: null,
      searchChildSpans: false,
    },
    now,
  );
  await knex.transaction(async (trx) => {
    await insertExportJob(trx, job);
    await trx(EXPORTS)
      .where({ id: job.id })
      .update({ lease_owner: 'another-instance', lease_expires_at: now + 3_600_000 });
  });
  return job.id;
}

/** A webhook endpoint of the organization (https://hooks.example.com/x, subscribed to test events only). */
export async function seedWebhookEndpoint(knex: Knex, organizationId: string): Promise<string> {
  const now = Date.now();
  const id = newId('whe');
  await knex.transaction((trx) =>
    insertWebhookEndpoint(trx, {
      id,
      organization_id: organizationId,
      url: 'https://hooks.example.com/x',
      description: null,
      event_types: ['webhook.test'],
      enabled: true,
      secret: newWebhookSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    }),
  );
  return id;
}

/** A budget of the whole organization (100 USD a month, the default thresholds). */
export async function seedBudget(knex: Knex, organizationId: string): Promise<string> {
  return seed.seedBudget(knex, organizationId);
}
