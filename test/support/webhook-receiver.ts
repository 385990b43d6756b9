// A real webhook receiver on 127.0.0.1 for the delivery tests: it records every request (headers
// and raw body), verifies signatures with the recipe the documents give, de-duplicates by
// `webhook-id` as they tell receivers to, and answers as the test says (a status, a redirect,
// a closed connection, or never).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectStatus, type Caller } from './management.js';

export type Answer = { status: number; location?: string } | 'close' | 'hang';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The verification recipe of docs/webhooks.md and openapi/management.yaml ("Webhooks"), as written there. */
export function verify(secret: string, headers: http.IncomingHttpHeaders, rawBody: string): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false; // 5 minutes
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const offered = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && offered.length === expected.length && timingSafeEqual(offered, expected);
    });
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** The event ids processed once each, as a de-duplicating receiver would. */
  processed: Set<string>;
  /** What the next requests get, in order; once used up, `fallback`. */
  answers: Answer[];
  fallback: Answer;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Answer = { status: 200 }): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: Omit<Receiver, 'url' | 'port' | 'close'> = { requests: [], processed: new Set(), answers: [], fallback };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ headers: request.headers, body });
      const answer = receiver.answers.shift() ?? receiver.fallback;
      if (answer === 'hang') return void hanging.add(response);
      if (answer === 'close') return void request.socket.destroy();
      if (answer.status >= 200 && answer.status < 300) receiver.processed.add(String(request.headers['webhook-id']));
      response.writeHead(answer.status, answer.location ? { location: answer.location } : {});
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Fast retries for tests: four attempts about a second apart, a one-second timeout. */
export const FAST_WEBHOOKS = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1',
  WEBHOOK_TIMEOUT_SECONDS: '1',
  WEBHOOK_DELIVERY_INTERVAL_SECONDS: '1',
};

export interface Delivery {
  id: string;
  state: string;
  event: { id: string; type: string; data: Record<string, unknown> };
  attempts: Array<{ at: string; status_code: number | null; error: string | null; duration_ms: number }>;
  next_attempt_at: string | null;
}

/** Polls the endpoint's deliveries until `done` holds for them (or fails after `timeoutMs`). */
export async function waitForDeliveries(
  as: Caller,
  path: string,
  done: (deliveries: Delivery[]) => boolean,
  timeoutMs = 15_000,
): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await as('GET', `${path}/deliveries`, { query: { limit: 100 } });
    expectStatus(listed, 200);
    const deliveries = listed.body.data as Delivery[];
    if (done(deliveries)) return deliveries;
    if (Date.now() > deadline) throw new Error(`deliveries never got there: ${JSON.stringify(deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
