// An over-large JSON or form body must not wedge a keep-alive connection: the client gets its 413,
// and the next request through the same keep-alive agent gets its answer.
import http from 'node:http';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request through `agent`; an error after the whole response arrived (the server closing) is not a failure. */
function send(
  agent: http.Agent,
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(new URL(path, url), { agent, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        answered = true;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString() });
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.end(body);
  });
}

/** Guards against the defect itself (a request that is never answered), not a timing assertion. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref()),
  ]);
}

const SPACES = 256 * 1024 * 1024;

onEachDatabase('over-large bodies on a keep-alive connection', (app) => {
  let gzipBomb: Buffer;
  let plain: Buffer;
  before(function () {
    // A JSON string holding 256 MiB of spaces: about 256 KiB on the wire.
    gzipBomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(SPACES, ' '), Buffer.from('"}')]), { level: 1 });
    plain = Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(app().config.jsonBodyLimitBytes * 8, 'a'), Buffer.from('"}')]);
  });

  const cases: Array<[string, string, () => { headers: Record<string, string>; body: Buffer }]> = [
    [
      'a gzip JSON body on POST /engine/query',
      '/engine/query',
      () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipBomb }),
    ],
    [
      'a gzip JSON body on POST /organizations',
      '/organizations',
      () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipBomb }),
    ],
    [
      'a plain JSON body on POST /organizations',
      '/organizations',
      () => ({ headers: { 'content-type': 'application/json' }, body: plain }),
    ],
    [
      'a form body on POST /auth/token',
      '/auth/token',
      () => ({
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.concat([Buffer.from('grant_type='), plain]),
      }),
    ],
  ];
  for (const [name, path, given] of cases) {
    it(`answers 413 to ${name}, then answers the next request`, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const { headers, body } = given();
        const first = await within(send(agent, app().url, 'POST', path, headers, body), 20_000, 'the oversized request');
        expect(first.status, first.text).to.equal(413);
        expect(JSON.parse(first.text).detail).to.be.a('string');
        expect(first.headers.connection, 'the rest of the body is never read: the connection closes').to.equal('close');
        const second = await within(send(agent, app().url, 'GET', '/healthz'), 10_000, 'the request after the 413');
        expect(second.status).to.equal(200);
      } finally {
        agent.destroy();
      }
    });
  }
});
