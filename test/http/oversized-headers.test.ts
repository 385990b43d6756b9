// Headers larger than the HTTP server reads are refused before any operation sees the request:
// with the 431 every operation of both documents declares, in the documents' error shape, and
// with the connection closed. A long X-Vendor-App-Id below that size stays the document's 422.
import http from 'node:http';
import { expect } from 'chai';
import { seedOwnedResources } from '../support/accounts.js';
import { assertMatchesContract, call, documentOperations } from '../support/contract.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase } from '../support/test-server.js';

const operations = await documentOperations();

/** One request over a fresh connection, so that the `Connection` header the server sends is seen as sent. */
function rawRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end();
  });
}

onEachDatabase('oversized headers', (app) => {
  let ids: ResourceIds;
  let token: string;
  before(async () => {
    ({ ids, token } = await seedOwnedResources(app()));
  });

  it('every operation declares 431', () => {
    const missing = operations.filter(({ operation }) => !('431' in (operation.responses ?? {}))).map(({ operationId }) => operationId);
    expect(missing).to.deep.equal([]);
  });

  for (const entry of operations) {
    it(`${entry.operationId}: 431 in the error shape, connection closed, for headers over ${http.maxHeaderSize} bytes`, async () => {
      const request = buildRequest(entry, ids);
      const url = new URL(request.path, app().url);
      for (const [name, value] of Object.entries(request.options.query ?? {})) url.searchParams.set(name, String(value));
      const response = await rawRequest(url, request.method, {
        ...request.options.headers,
        authorization: `Bearer ${token}`,
        'x-vendor-app-id': 'a'.repeat(http.maxHeaderSize),
      });
      expect(response.status, response.text).to.equal(431);
      expect(response.headers.connection).to.equal('close');
      const body = JSON.parse(response.text) as { detail: string };
      expect(body.detail).to.equal(`request headers exceed ${http.maxHeaderSize} bytes`);
      const checkedAgainst = await assertMatchesContract(request.method, url.pathname, {
        status: response.status,
        headers: new Headers(response.headers as Record<string, string>),
        body,
        text: response.text,
      });
      expect(checkedAgainst).to.equal(entry.operationId);
    });
  }

  it('a long X-Vendor-App-Id under the size the server reads is the 422 of its maxLength', async () => {
    const response = await call(app().url, 'POST', '/v1/traces', {
      headers: { 'x-vendor-app-id': 'a'.repeat(4096), 'content-type': 'application/json' },
      rawBody: '{"resourceSpans":[]}',
      token,
    });
    expect(response.status, response.text).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['header', 'x-vendor-app-id']);
  });
});
