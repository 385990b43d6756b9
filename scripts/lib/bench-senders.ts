// Shared by the ingest benchmarks: the credentials an exporter sends (an application and an API
// key holding write:traces, seeded into the service's database) and concurrent senders that POST
// protobuf OTLP requests to /v1/traces over keep-alive connections, as the OTLP/HTTP exporters do.
import http from 'node:http';
import type { Knex } from 'knex';
import { apiKeyToken } from './bench-service.js';
import { seedApiKey, seedApplication, seedOrganization } from './seed-accounts.js';

/** How the credentials go: a token of the key (Bearer) or the key and its secret (Basic). */
export type Credential = 'bearer' | 'basic';

/**
 * An organization, an application (indexing `indexedAttributes`) and a key holding write:traces;
 * the headers that send with them as `credential` says.
 */
export async function ingestCaller(
  knex: Knex,
  serviceUrl: string,
  credential: Credential,
  indexedAttributes: string[] = [],
): Promise<Record<string, string>> {
  const applicationId = await seedApplication(knex, await seedOrganization(knex, { name: 'Bench' }), { name: 'Bench', indexedAttributes });
  if (credential === 'bearer') {
    const token = await apiKeyToken(knex, serviceUrl, applicationId, ['write:traces']);
    return { authorization: `Bearer ${token}`, 'x-vendor-app-id': applicationId };
  }
  // The secret checked on every request; no X-Vendor-App-Id: the spans go to the key's own application.
  const { apiKey, secret } = await seedApiKey(knex, applicationId, ['write:traces'], { name: 'bench' });
  return { authorization: `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}` };
}

/** Runs `send` over the items from `senders` concurrent loops; `sender` says which loop sends. Answers the seconds it took. */
export async function runSenders<T>(items: T[], senders: number, send: (item: T, sender: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async (_, sender) => {
      while (next < items.length) await send(items[next++], sender);
    }),
  );
  return (performance.now() - started) / 1000;
}

export interface Sender {
  send(body: Uint8Array, sender: number): Promise<void>;
  close(): void;
}

/** POST /v1/traces at `serviceUrl` over at most `connections` keep-alive connections; anything but a 200 with an empty body fails. */
export function httpSender(serviceUrl: string, headers: Record<string, string>, connections: number): Sender {
  // node:http with keep-alive connections, as the OpenTelemetry OTLP/HTTP exporters send (fetch
  // would cost the senders about twice the CPU, which the machine's two cores share with the service).
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL('/v1/traces', serviceUrl);
  const send = (body: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        target,
        { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/x-protobuf', 'content-length': body.length } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const answer = Buffer.concat(chunks);
            if (response.statusCode === 200 && answer.length === 0) resolve();
            else reject(new Error(`POST /v1/traces answered ${response.statusCode}: ${answer.toString('utf8').slice(0, 300)}`));
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  return { send, close: () => agent.destroy() };
}
