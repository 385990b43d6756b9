// The 422 shape on real operations: FastAPI-style `detail` entries whose `loc` points at the
// offending query parameter, header or body node.
import { expect } from 'chai';
import { call, type CallOptions } from '../support/contract.js';
import { seedUser } from '../support/accounts.js';
import { engineCaller } from '../support/auth.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };
const APP_HEADER = { 'X-Vendor-App-Id': 'app_demo' };

type Case = [name: string, given: CallOptions, want: { loc: Array<string | number>; type?: string }];

const CASES: Case[] = [
  ['limit=0', { query: { ...WINDOW, limit: 0 }, headers: APP_HEADER, json: {} }, { loc: ['query', 'limit'], type: 'greater_than_equal' }],
  ['limit=101', { query: { ...WINDOW, limit: 101 }, headers: APP_HEADER, json: {} }, { loc: ['query', 'limit'], type: 'less_than_equal' }],
  ['page=0', { query: { ...WINDOW, page: 0 }, headers: APP_HEADER, json: {} }, { loc: ['query', 'page'], type: 'greater_than_equal' }],
  ['limit=abc', { query: { ...WINDOW, limit: 'abc' }, headers: APP_HEADER, json: {} }, { loc: ['query', 'limit'], type: 'int_parsing' }],
  [
    'missing start_time',
    { query: { end_time: WINDOW.end_time }, headers: APP_HEADER, json: {} },
    { loc: ['query', 'start_time'], type: 'missing' },
  ],
  [
    'non-date start_time',
    { query: { ...WINDOW, start_time: 'yesterday' }, headers: APP_HEADER, json: {} },
    { loc: ['query', 'start_time'], type: 'datetime_parsing' },
  ],
  ['missing X-Vendor-App-Id', { query: WINDOW, json: {} }, { loc: ['header', 'x-vendor-app-id'], type: 'missing' }],
  [
    'filter with an unknown field',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { and: [{ field: 'colour', op: 'eq', value: 'red' }] } } },
    { loc: ['body', 'filter', 'and', 0, 'field'] },
  ],
  [
    'filter with an unknown operator',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { or: [{ field: 'span_name', op: 'like', value: 'a' }] } } },
    { loc: ['body', 'filter', 'or', 0, 'op'] },
  ],
  [
    'condition without value',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { and: [{ or: [{ field: 'span_name', op: 'eq' }] }] } } },
    { loc: ['body', 'filter', 'and', 0, 'or', 0, 'value'], type: 'missing' },
  ],
  [
    'exists with a value (engine API 1.2)',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { not: { field: 'span_name', op: 'exists', value: 'a' } } } },
    { loc: ['body', 'filter', 'not', 'value'], type: 'extra_forbidden' },
  ],
  [
    'in with a string instead of a list (engine API 1.2)',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { field: 'span_name', op: 'in', value: 'a' } } },
    { loc: ['body', 'filter', 'value'], type: 'list_type' },
  ],
  [
    'eq with a list (engine API 1.2)',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { field: 'span_name', op: 'eq', value: ['a'] } } },
    { loc: ['body', 'filter', 'value'], type: 'string_type' },
  ],
  [
    'attribute path with a forbidden character',
    { query: WINDOW, headers: APP_HEADER, json: { filter: { field: 'span_attributes.http-method', op: 'eq', value: 'GET' } } },
    { loc: ['body', 'filter', 'field'] },
  ],
  [
    'unknown body property',
    { query: WINDOW, headers: APP_HEADER, json: { filter: null, sort: 'asc' } },
    { loc: ['body', 'sort'], type: 'extra_forbidden' },
  ],
];

onEachDatabase('request validation answers 422 in the detail shape', (app) => {
  let authorization: Record<string, string>;
  let appId: string;
  before(async () => {
    const caller = await engineCaller(app(), ['read:traces']);
    authorization = { Authorization: caller.headers.Authorization as string };
    appId = caller.appId;
  });
  const authorized = (given: CallOptions): CallOptions => ({ ...given, headers: { ...authorization, ...given.headers } });

  for (const [name, given, want] of CASES) {
    it(name, async () => {
      const response = await call(app().url, 'POST', '/engine/query', authorized(given));
      expect(response.status, response.text).to.equal(422);
      expect(response.body.detail).to.be.an('array').that.is.not.empty;
      for (const issue of response.body.detail) {
        expect(issue).to.have.all.keys('loc', 'msg', 'type');
        expect(issue.msg).to.be.a('string').that.is.not.empty;
      }
      const locs = response.body.detail.map((issue: { loc: unknown }) => JSON.stringify(issue.loc));
      expect(locs, response.text).to.include(JSON.stringify(want.loc));
      // One problem is reported once, not once per schema branch Ajv tried.
      expect(response.body.detail, response.text).to.have.length(1);
      if (want.type) expect(response.body.detail[0].type).to.equal(want.type);
    });
  }

  it('reports every bad query parameter of one request', async () => {
    const response = await call(
      app().url,
      'POST',
      '/engine/query',
      authorized({ query: { ...WINDOW, page: 0, limit: 500 }, headers: APP_HEADER, json: {} }),
    );
    expect(response.status).to.equal(422);
    const locs = response.body.detail.map((issue: { loc: unknown }) => JSON.stringify(issue.loc));
    expect(locs).to.include.members([JSON.stringify(['query', 'page']), JSON.stringify(['query', 'limit'])]);
  });

  it('lets a valid request through validation (the feature itself answers)', async () => {
    const response = await call(
      app().url,
      'POST',
      '/engine/query',
      authorized({
        query: WINDOW,
        headers: { 'X-Vendor-App-Id': appId },
        json: { filter: { and: [{ field: 'span_attributes.http.method', op: 'eq', value: 'GET' }, { or: [] }] } },
      }),
    );
    expect(response.status, response.text).not.to.be.oneOf([401, 403, 404, 422]);
  });

  it('answers a body nested past any sane depth with 422, never a crash', async () => {
    const depth = 20_000;
    const rawBody = `{"filter":${'{"and":['.repeat(depth)}{"field":"span_name","op":"eq","value":"x"}${']}'.repeat(depth)}}`;
    const response = await call(
      app().url,
      'POST',
      '/engine/query',
      authorized({ query: WINDOW, headers: { 'X-Vendor-App-Id': appId, 'content-type': 'application/json' }, rawBody }),
    );
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].type).to.equal('too_deep');
  });

  it('validates management bodies too: a 256-character organization name', async () => {
    const { token } = await seedUser(app(), 'validator');
    const response = await call(app().url, 'POST', '/organizations', { token, json: { name: 'x'.repeat(256) } });
    expect(response.status).to.equal(422);
    expect(response.body.detail).to.deep.equal([
      { loc: ['body', 'name'], msg: 'String should have at most 255 characters', type: 'string_too_long' },
    ]);
  });
});
