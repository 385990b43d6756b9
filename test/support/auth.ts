// What an engine test needs to call the engine as someone who may: an application id and the
// headers (Authorization + X-Vendor-App-Id). Each call seeds a fresh organization, application
// and API key holding `permissions`, and exchanges the key for a token at POST /auth/token.
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization } from './accounts.js';
import type { TestServer } from './test-server.js';

export interface EngineCaller {
  appId: string;
  headers: Record<string, string>;
}

export async function engineCaller(app: TestServer, permissions: string[] = ['read:traces', 'write:traces']): Promise<EngineCaller> {
  const organizationId = await seedOrganization(app.server.knex, []);
  const appId = await seedApplication(app.server.knex, organizationId);
  const token = await apiKeyToken(app, await seedApiKey(app.server.knex, appId, permissions));
  return { appId, headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId } };
}
