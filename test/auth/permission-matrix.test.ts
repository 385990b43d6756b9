// Authorization as the documents write it, for every operation of both documents (read from the
// documents, so a new operation cannot escape): the principal with the permission is let through,
// one without it is refused, a caller of the wrong kind is refused, a member where an owner is
// needed is refused; and nobody reaches another tenant's resources.
import { expect } from 'chai';
import { newId } from '../../src/storage/accounts/ids.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { spanRow } from '../support/span-rows.js';
import { ASSIGNABLE_PERMISSIONS, DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import {
  apiKeyToken,
  seedApiKey,
  seedApplication,
  seedOrganization,
  seedPriceEntry,
  seedRepricingJob,
  seedUser,
  seedWebhookEndpoint,
  seedBudget,
  seedExport,
} from '../support/accounts.js';
import { call, documentOperations, type CallOptions, type DocumentOperation } from '../support/contract.js';
import { accessOf, buildRequest, SOME_TRACE_ID, touchesResource, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const operations = await documentOperations();
const protectedOperations = operations.filter((entry) => accessOf(entry));

/** Status of one call; for the live stream, as soon as its headers arrive. */
async function statusOf(
  app: TestServer,
  entry: DocumentOperation,
  ids: ResourceIds,
  token: string,
  extraQuery?: Record<string, string>,
): Promise<number> {
  const request = buildRequest(entry, ids, extraQuery);
  const options: CallOptions = { ...request.options, token };
  if (entry.operationId === 'streamLiveSpans') {
    const url = new URL(request.path, app.url);
    const controller = new AbortController();
    const response = await fetch(url, { headers: { ...options.headers, authorization: `Bearer ${token}` }, signal: controller.signal });
    controller.abort();
    return response.status;
  }
  const response = await call(app.url, request.method, request.path, options);
  return response.status;
}

interface World {
  ids: ResourceIds;
  owner: string;
  member: string;
}

/** A fresh organization with an owner, a member, an application, a key and a price entry, for one check. */
async function seedWorld(app: TestServer, ownerPermissions: readonly string[] = DASHBOARD_USER_PERMISSIONS): Promise<World> {
  const owner = await seedUser(app, 'owner', ownerPermissions);
  const member = await seedUser(app, 'member');
  const orgId = await seedOrganization(app.server.knex, [
    [owner.userId, 'owner'],
    [member.userId, 'member'],
  ]);
  const appId = await seedApplication(app.server.knex, orgId);
  const { apiKey } = await seedApiKey(app.server.knex, appId, ['read:traces']);
  const priceEntryId = await seedPriceEntry(app.server.knex, orgId);
  // The trace GET /traces/{trace_id} names, so that a caller let through finds it.
  await storeSpans(app.server.knex, [spanRow({ application_id: appId, trace_id: SOME_TRACE_ID, span_id: '00f067aa0ba902b7' })]);
  // The re-pricing job the job operations name.
  const jobId = await seedRepricingJob(app.server.knex, appId);
  const webhookEndpointId = await seedWebhookEndpoint(app.server.knex, orgId);
  const budgetId = await seedBudget(app.server.knex, orgId);
  // The export the export operations name.
  const exportId = await seedExport(app.server.knex, orgId, appId);
  return {
    ids: { orgId, appId, apiKey, userId: member.userId, priceEntryId, jobId, webhookEndpointId, budgetId, exportId },
    owner: owner.token,
    member: member.token,
  };
}

async function keyToken(app: TestServer, appId: string, permissions: readonly string[]): Promise<string> {
  return apiKeyToken(app, await seedApiKey(app.server.knex, appId, permissions));
}

const REFUSED = [401, 403, 404];

/** Engine operations name their application in X-Vendor-App-Id. */
function namesApplicationInHeader(entry: DocumentOperation): boolean {
  return ((entry.operation.parameters ?? []) as Array<{ name: string; in: string }>).some(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'x-vendor-app-id',
  );
}

onEachDatabase('permission matrix from the documents', (app) => {
  it('covers every protected operation of both documents', () => {
    expect(protectedOperations.length).to.be.greaterThan(25);
    for (const entry of protectedOperations) expect(accessOf(entry)?.principals, entry.operationId).to.not.be.empty;
  });

  for (const entry of protectedOperations) {
    const access = accessOf(entry)!;
    const refusal = access.declaresForbidden ? 403 : 404;
    describe(entry.operationId, () => {
      if (access.principals.includes('user')) {
        it(`lets an owner holding ${access.permission ?? 'no particular permission'} through`, async () => {
          const world = await seedWorld(app());
          expect(await statusOf(app(), entry, world.ids, world.owner)).not.to.be.oneOf(REFUSED);
        });
        if (access.permission) {
          it(`refuses an owner without ${access.permission} (${refusal})`, async () => {
            const world = await seedWorld(
              app(),
              DASHBOARD_USER_PERMISSIONS.filter((permission) => permission !== access.permission),
            );
            expect(await statusOf(app(), entry, world.ids, world.owner)).to.equal(refusal);
          });
        }
        if (access.role === 'owner') {
          it(`refuses a member: owners only (${refusal})`, async () => {
            const world = await seedWorld(app());
            expect(await statusOf(app(), entry, world.ids, world.member)).to.equal(refusal);
          });
        } else if (access.role === 'member') {
          it('lets a member through', async () => {
            const world = await seedWorld(app());
            expect(await statusOf(app(), entry, world.ids, world.member)).not.to.be.oneOf(REFUSED);
          });
        }
      }
      if (access.principals.includes('api_key')) {
        it(`lets an API key holding only ${access.permission} through`, async () => {
          const world = await seedWorld(app());
          expect(await statusOf(app(), entry, world.ids, await keyToken(app(), world.ids.appId, [access.permission!]))).not.to.be.oneOf(
            REFUSED,
          );
        });
        it(`refuses an API key without ${access.permission}`, async () => {
          const world = await seedWorld(app());
          const others = ASSIGNABLE_PERMISSIONS.filter((permission) => permission !== access.permission);
          expect(await statusOf(app(), entry, world.ids, await keyToken(app(), world.ids.appId, others))).to.equal(refusal);
        });
      } else {
        it(`refuses API keys: it is for dashboard users (${refusal})`, async () => {
          const world = await seedWorld(app());
          expect(await statusOf(app(), entry, world.ids, await keyToken(app(), world.ids.appId, ASSIGNABLE_PERMISSIONS))).to.equal(refusal);
        });
      }
      if (touchesResource(entry)) {
        it("answers 404 to a user of another organization, for this organization's resources", async () => {
          const victim = await seedWorld(app());
          const intruder = await seedWorld(app());
          const extraQuery = entry.operationId === 'listApplications' ? { organization_id: victim.ids.orgId } : undefined;
          expect(await statusOf(app(), entry, victim.ids, intruder.owner, extraQuery)).to.equal(404);
        });
        if (access.principals.includes('api_key')) {
          it('refuses an API key of another application of the same organization', async () => {
            const world = await seedWorld(app());
            const sibling = await seedApplication(app().server.knex, world.ids.orgId);
            const status = await statusOf(app(), entry, world.ids, await keyToken(app(), sibling, [access.permission!]));
            const touchesApplication =
              entry.path.includes('{app_id}') ||
              entry.path.includes('{api_key}') ||
              entry.path.startsWith('/engine') ||
              entry.path.startsWith('/traces') ||
              entry.path === '/v1/traces';
            if (namesApplicationInHeader(entry))
              expect(status, 'the key can see the organization: the application is not hidden').to.equal(403);
            else if (touchesApplication) expect(status).to.be.oneOf([403, 404]);
            else expect(status, 'organization-level operations are open to keys of the organization').not.to.be.oneOf(REFUSED);
          });
          if (namesApplicationInHeader(entry)) {
            it('answers 404 to an API key naming an application of another organization (existence is never revealed)', async () => {
              const victim = await seedWorld(app());
              const intruder = await seedWorld(app());
              const status = await statusOf(app(), entry, victim.ids, await keyToken(app(), intruder.ids.appId, [access.permission!]));
              expect(status).to.equal(404);
            });
            it('answers 404 to an API key naming an application that does not exist', async () => {
              const world = await seedWorld(app());
              const status = await statusOf(
                app(),
                entry,
                { ...world.ids, appId: newId('app') },
                await keyToken(app(), world.ids.appId, [access.permission!]),
              );
              expect(status).to.equal(404);
            });
          }
        }
      }
    });
  }
});
