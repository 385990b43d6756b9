// What an engine test needs to call the engine as someone who may: an application id and the
// headers (Authorization + X-Vendor-App-Id). Until authentication lands this only names a
// fresh application id; afterwards it creates a real organization, application and API key.
import { randomBytes } from 'node:crypto';
import type { TestServer } from './test-server.js';

export interface EngineCaller {
  appId: string;
  headers: Record<string, string>;
}

export async function engineCaller(_app: TestServer, _permissions: string[] = ['read:traces', 'write:traces']): Promise<EngineCaller> {
  const appId = `app_${randomBytes(8).toString('hex')}`;
  return { appId, headers: { 'X-Vendor-App-Id': appId } };
}
