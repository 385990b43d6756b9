// An integer parameter (query, path or header, of any operation of both documents) accepts the
// decimal digits of an integer and nothing else: `1e309`, `1e3`, `1.0`, `0x10` are a 422
// `int_parsing` at the parameter, never a coerced (or infinite) number.
import { expect } from 'chai';
import type { ApiResponse } from '../support/contract.js';
import { seedOwnedResources, seedWebhookEndpoint } from '../support/accounts.js';
import { call, documentOperations } from '../support/contract.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase } from '../support/test-server.js';

interface Parameter {
  name: string;
  in: string;
  schema?: { type?: unknown };
}

const integerOperations = (await documentOperations())
  .map((entry) => ({
    entry,
    integers: ((entry.operation.parameters ?? []) as Parameter[]).filter((parameter) => parameter.schema?.type === 'integer'),
  }))
  .filter(({ integers }) => integers.length > 0);

const NOT_INTEGERS = ['1e309', '1e3', '1E1', '1.0', '1.5', '0x10', '0b1', '1_000', ' 1', '1 ', '', '+1', 'Infinity', 'NaN', '１'];

function issuesAt(response: ApiResponse, loc: string[]): Array<{ type: string; msg: string }> {
  const detail = Array.isArray(response.body?.detail) ? (response.body.detail as Array<{ loc: unknown[]; type: string; msg: string }>) : [];
  return detail.filter((issue) => JSON.stringify(issue.loc) === JSON.stringify(loc));
}

onEachDatabase('integer parameters', (app) => {
  let ids: ResourceIds;
  let token: string;
  before(async () => {
    ({ ids, token } = await seedOwnedResources(app()));
    // listWebhookDeliveries pages the deliveries of an endpoint that exists.
    ids.webhookEndpointId = await seedWebhookEndpoint(app().server.knex, ids.orgId);
  });

  it('covers the paginated lists of both documents', () => {
    expect(integerOperations.map(({ entry }) => entry.operationId)).to.include.members([
      'querySpans',
      'listTraces',
      'listLiveSpans',
      'listOrganizations',
      'listMembers',
      'listApplications',
      'listApiKeys',
    ]);
  });

  for (const { entry, integers } of integerOperations) {
    for (const parameter of integers) {
      const loc = [parameter.in, parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name];
      it(`${entry.operationId}: ${parameter.name} refuses anything but the digits of an integer`, async () => {
        for (const value of NOT_INTEGERS) {
          const request = buildRequest(entry, ids, parameter.in === 'query' ? { [parameter.name]: value } : {});
          if (parameter.in === 'header') request.options.headers = { ...request.options.headers, [parameter.name]: value };
          const response = await call(app().url, request.method, request.path, { ...request.options, token });
          expect(response.status, `${parameter.name}=${JSON.stringify(value)}: ${response.text}`).to.equal(422);
          const issues = issuesAt(response, loc);
          expect(
            issues.map((issue) => issue.type),
            `${parameter.name}=${JSON.stringify(value)}: ${response.text}`,
          ).to.deep.equal(['int_parsing']);
          expect(issues[0]?.msg).to.match(/valid integer/);
        }
      });
    }
  }

  it('reads leading zeros as the integer they write, and a negative page as below the minimum', async () => {
    const listMembers = integerOperations.find(({ entry }) => entry.operationId === 'listMembers')!.entry;
    const request = buildRequest(listMembers, ids, { page: '007', limit: '0010' });
    const zeros = await call(app().url, request.method, request.path, { ...request.options, token });
    expect(zeros.status, zeros.text).to.equal(200);
    expect(zeros.body.pagination).to.include({ page: 7, limit: 10 });
    const negative = await call(app().url, request.method, request.path, { ...request.options, query: { page: '-5' }, token });
    expect(negative.status, negative.text).to.equal(422);
    expect(issuesAt(negative, ['query', 'page']).map((issue) => issue.type)).to.deep.equal(['greater_than_equal']);
  });

  // A page past 2^53 − 1 was read as the nearest double and echoed rounded.
  for (const { entry } of integerOperations.filter(({ integers }) => integers.some((parameter) => parameter.name === 'page'))) {
    it(`${entry.operationId}: echoes the largest page digit for digit and refuses one past it at the parameter`, async () => {
      const largest = buildRequest(entry, ids, { page: '9007199254740991' });
      const echoed = await call(app().url, largest.method, largest.path, { ...largest.options, token });
      expect(echoed.status, echoed.text).to.equal(200);
      expect(echoed.text).to.include('"page":9007199254740991,');
      for (const page of ['9007199254740992', '9007199254740993', '100000000000000000001']) {
        const request = buildRequest(entry, ids, { page });
        const response = await call(app().url, request.method, request.path, { ...request.options, token });
        expect(response.status, `page=${page}: ${response.text}`).to.equal(422);
        expect(issuesAt(response, ['query', 'page']).map((issue) => [issue.type, issue.msg])).to.deep.equal([
          ['less_than_equal', 'Input should be less than or equal to 9007199254740991'],
        ]);
      }
    });
  }
});
