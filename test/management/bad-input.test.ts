// Every bound of the management contract answers 422 in the `detail` shape with `loc` at the
// offending value: one case per bad input, table-driven.
import { expect } from 'chai';
import type { CallOptions } from '../support/contract.js';
import { callerFor, createApiKey, expectStatus, ownerWithApplication, type Caller } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

interface Ids {
  orgId: string;
  appId: string;
  apiKey: string;
}

type Case = [
  name: string,
  method: string,
  path: (ids: Ids) => string,
  given: (ids: Ids) => CallOptions,
  want: { loc: Array<string | number>; type?: string; msg?: RegExp },
];

const LONG = 'x'.repeat(256);

const CASES: Case[] = [
  [
    'organization name of length 0',
    'POST',
    () => '/organizations',
    () => ({ json: { name: '' } }),
    { loc: ['body', 'name'], type: 'string_too_short' },
  ],
  [
    'organization name of length 256',
    'POST',
    () => '/organizations',
    () => ({ json: { name: LONG } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  ['organization without a name', 'POST', () => '/organizations', () => ({ json: {} }), { loc: ['body', 'name'], type: 'missing' }],
  [
    'unknown property on organization create',
    'POST',
    () => '/organizations',
    () => ({ json: { name: 'A', plan: 'pro' } }),
    { loc: ['body', 'plan'], type: 'extra_forbidden' },
  ],
  [
    'renaming an organization to length 0',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { name: '' } }),
    { loc: ['body', 'name'], type: 'string_too_short' },
  ],
  [
    'renaming an organization to length 256',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { name: LONG } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'a 256-character contract_email',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { contract_email: `${'c'.repeat(244)}@example.com` } }),
    { loc: ['body', 'contract_email'], type: 'string_too_long' },
  ],
  [
    'a 51-character tax_id',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { tax_id: '1'.repeat(51) } }),
    { loc: ['body', 'tax_id'], type: 'string_too_long' },
  ],
  [
    'a tax_id with $',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { tax_id: 'DE-123$' } }),
    { loc: ['body', 'tax_id'], type: 'string_pattern_mismatch' },
  ],
  [
    'an empty organization PATCH',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: {} }),
    { loc: ['body'], type: 'too_short' },
  ],
  [
    'unknown property on organization PATCH',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { owner: 'me' } }),
    { loc: ['body', 'owner'], type: 'extra_forbidden' },
  ],
  [
    'unknown address field',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}`,
    () => ({ json: { address: { planet: 'Mars' } } }),
    { loc: ['body', 'address', 'planet'], type: 'extra_forbidden' },
  ],
  [
    'page 0 on organizations',
    'GET',
    () => '/organizations',
    () => ({ query: { page: 0 } }),
    { loc: ['query', 'page'], type: 'greater_than_equal' },
  ],
  [
    'limit 101 on organizations',
    'GET',
    () => '/organizations',
    () => ({ query: { limit: 101 } }),
    { loc: ['query', 'limit'], type: 'less_than_equal' },
  ],
  [
    'page 0 on members',
    'GET',
    (ids) => `/organizations/${ids.orgId}/members`,
    () => ({ query: { page: 0 } }),
    { loc: ['query', 'page'], type: 'greater_than_equal' },
  ],
  [
    'limit 101 on members',
    'GET',
    (ids) => `/organizations/${ids.orgId}/members`,
    () => ({ query: { limit: 101 } }),
    { loc: ['query', 'limit'], type: 'less_than_equal' },
  ],
  [
    'a member e-mail that is not one',
    'POST',
    (ids) => `/organizations/${ids.orgId}/members`,
    () => ({ json: { email: 'bob-at-example' } }),
    { loc: ['body', 'email'], type: 'value_error' },
  ],
  [
    'a member role that does not exist',
    'POST',
    (ids) => `/organizations/${ids.orgId}/members`,
    () => ({ json: { email: 'bob@example.com', role: 'admin' } }),
    { loc: ['body', 'role'], type: 'enum' },
  ],
  [
    'unknown property on member add',
    'POST',
    (ids) => `/organizations/${ids.orgId}/members`,
    () => ({ json: { email: 'bob@example.com', note: 'hi' } }),
    { loc: ['body', 'note'], type: 'extra_forbidden' },
  ],
  [
    'a member PATCH without role',
    'PATCH',
    (ids) => `/organizations/${ids.orgId}/members/usr_x`,
    () => ({ json: {} }),
    { loc: ['body', 'role'], type: 'missing' },
  ],
  [
    'application name of length 0',
    'POST',
    () => '/applications',
    (ids) => ({ json: { organization_id: ids.orgId, name: '', region: 'EU' } }),
    { loc: ['body', 'name'], type: 'string_too_short' },
  ],
  [
    'application name of length 256',
    'POST',
    () => '/applications',
    (ids) => ({ json: { organization_id: ids.orgId, name: LONG, region: 'EU' } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'region ASIA',
    'POST',
    () => '/applications',
    (ids) => ({ json: { organization_id: ids.orgId, name: 'A', region: 'ASIA' } }),
    { loc: ['body', 'region'], type: 'enum' },
  ],
  [
    'an unknown pricing plan',
    'POST',
    () => '/applications',
    (ids) => ({ json: { organization_id: ids.orgId, name: 'A', region: 'US', pricing_plan: 'gold' } }),
    { loc: ['body', 'pricing_plan'], type: 'enum' },
  ],
  [
    'an application without organization_id',
    'POST',
    () => '/applications',
    () => ({ json: { name: 'A', region: 'US' } }),
    { loc: ['body', 'organization_id'], type: 'missing' },
  ],
  [
    'unknown property on application create',
    'POST',
    () => '/applications',
    (ids) => ({ json: { organization_id: ids.orgId, name: 'A', region: 'US', tier: 1 } }),
    { loc: ['body', 'tier'], type: 'extra_forbidden' },
  ],
  [
    'region ASIA as a list filter',
    'GET',
    () => '/applications',
    () => ({ query: { region: 'ASIA' } }),
    { loc: ['query', 'region'], type: 'enum' },
  ],
  [
    'page 0 on applications',
    'GET',
    () => '/applications',
    () => ({ query: { page: 0 } }),
    { loc: ['query', 'page'], type: 'greater_than_equal' },
  ],
  [
    'limit 101 on applications',
    'GET',
    () => '/applications',
    () => ({ query: { limit: 101 } }),
    { loc: ['query', 'limit'], type: 'less_than_equal' },
  ],
  [
    'renaming an application to length 0',
    'PATCH',
    (ids) => `/applications/${ids.appId}`,
    () => ({ json: { name: '' } }),
    { loc: ['body', 'name'], type: 'string_too_short' },
  ],
  [
    'renaming an application to length 256',
    'PATCH',
    (ids) => `/applications/${ids.appId}`,
    () => ({ json: { name: LONG } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'changing an application region',
    'PATCH',
    (ids) => `/applications/${ids.appId}`,
    () => ({ json: { name: 'A', region: 'US' } }),
    { loc: ['body', 'region'], msg: /region cannot be changed after creation/ },
  ],
  [
    'changing an application pricing plan',
    'PATCH',
    (ids) => `/applications/${ids.appId}`,
    () => ({ json: { name: 'A', pricing_plan: 'pro' } }),
    { loc: ['body', 'pricing_plan'], msg: /pricing_plan cannot be changed after creation/ },
  ],
  [
    'unknown property on application PATCH',
    'PATCH',
    (ids) => `/applications/${ids.appId}`,
    () => ({ json: { name: 'A', colour: 'red' } }),
    { loc: ['body', 'colour'], type: 'extra_forbidden' },
  ],
  [
    'API key name of length 0',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: '', permissions: ['read:traces'] } }),
    { loc: ['body', 'name'], type: 'string_too_short' },
  ],
  [
    'API key name of length 256',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: LONG, permissions: ['read:traces'] } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'an empty permission list',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: 'k', permissions: [] } }),
    { loc: ['body', 'permissions'], type: 'too_short' },
  ],
  [
    'an unknown permission',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: 'k', permissions: ['read:traces', 'fly:kites'] } }),
    { loc: ['body', 'permissions', 1], type: 'enum' },
  ],
  [
    'create:organizations on a key',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: 'k', permissions: ['create:organizations'] } }),
    { loc: ['body', 'permissions', 0], type: 'enum' },
  ],
  [
    'delete:api_credentials on a key',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: 'k', permissions: ['delete:api_credentials'] } }),
    { loc: ['body', 'permissions', 0], type: 'enum' },
  ],
  [
    'unknown property on API key create',
    'POST',
    () => '/api-keys',
    (ids) => ({ json: { app_id: ids.appId, name: 'k', permissions: ['read:traces'], secret: 's' } }),
    { loc: ['body', 'secret'], type: 'extra_forbidden' },
  ],
  ['listing API keys without app_id', 'GET', () => '/api-keys', () => ({}), { loc: ['query', 'app_id'], type: 'missing' }],
  [
    'page 0 on API keys',
    'GET',
    () => '/api-keys',
    (ids) => ({ query: { app_id: ids.appId, page: 0 } }),
    { loc: ['query', 'page'], type: 'greater_than_equal' },
  ],
  [
    'limit 101 on API keys',
    'GET',
    () => '/api-keys',
    (ids) => ({ query: { app_id: ids.appId, limit: 101 } }),
    { loc: ['query', 'limit'], type: 'less_than_equal' },
  ],
  ['an empty API key PATCH', 'PATCH', (ids) => `/api-keys/${ids.apiKey}`, () => ({ json: {} }), { loc: ['body'], type: 'too_short' }],
  [
    'an empty permission list on PATCH',
    'PATCH',
    (ids) => `/api-keys/${ids.apiKey}`,
    () => ({ json: { permissions: [] } }),
    { loc: ['body', 'permissions'], type: 'too_short' },
  ],
  [
    'create:organizations on a key PATCH',
    'PATCH',
    (ids) => `/api-keys/${ids.apiKey}`,
    () => ({ json: { permissions: ['create:organizations'] } }),
    { loc: ['body', 'permissions', 0], type: 'enum' },
  ],
  [
    'API key renamed to length 256',
    'PATCH',
    (ids) => `/api-keys/${ids.apiKey}`,
    () => ({ json: { name: LONG } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'unknown property on API key PATCH',
    'PATCH',
    (ids) => `/api-keys/${ids.apiKey}`,
    () => ({ json: { app_id: 'app_other' } }),
    { loc: ['body', 'app_id'], type: 'extra_forbidden' },
  ],
  [
    'a profile e-mail that is not one',
    'PUT',
    () => '/users',
    () => ({ json: { name: 'Alice', email: 'alice' } }),
    { loc: ['body', 'email'], type: 'value_error' },
  ],
  [
    'a profile without a name',
    'PUT',
    () => '/users',
    () => ({ json: { email: 'alice@example.com' } }),
    { loc: ['body', 'name'], type: 'missing' },
  ],
  [
    'a profile name of length 256',
    'PUT',
    () => '/users',
    () => ({ json: { name: LONG, email: 'alice@example.com' } }),
    { loc: ['body', 'name'], type: 'string_too_long' },
  ],
  [
    'unknown property on profile',
    'PUT',
    () => '/users',
    () => ({ json: { name: 'Alice', email: 'alice@example.com', admin: true } }),
    { loc: ['body', 'admin'], type: 'extra_forbidden' },
  ],
  [
    'malformed JSON',
    'POST',
    () => '/organizations',
    () => ({ rawBody: '{"name":', headers: { 'content-type': 'application/json' } }),
    { loc: ['body'] },
  ],
];

onEachDatabase('management bad input answers 422', (app) => {
  let as: Caller;
  let ids: Ids;
  before(async () => {
    const owner = await ownerWithApplication(app());
    as = owner.as;
    const key = await createApiKey(as, owner.appId);
    ids = { orgId: owner.orgId, appId: owner.appId, apiKey: key.apiKey };
  });

  for (const [name, method, path, given, want] of CASES) {
    it(name, async () => {
      const response = await as(method, path(ids), given(ids));
      expectStatus(response, 422);
      const issue = response.body.detail.find((entry: { loc: unknown }) => JSON.stringify(entry.loc) === JSON.stringify(want.loc));
      expect(issue, `no issue at ${JSON.stringify(want.loc)} in ${response.text}`).to.exist;
      if (want.type) expect(issue.type, response.text).to.equal(want.type);
      if (want.msg) expect(issue.msg).to.match(want.msg);
    });
  }

  // name became optional (retention_days can change alone), so no field is reported missing.
  it('names both immutable fields, once each', async () => {
    const response = await as('PATCH', `/applications/${ids.appId}`, { json: { region: 'US', pricing_plan: 'pro' } });
    expectStatus(response, 422);
    expect(response.body.detail).to.deep.include.members([
      { loc: ['body', 'region'], msg: 'region cannot be changed after creation', type: 'frozen_field' },
      { loc: ['body', 'pricing_plan'], msg: 'pricing_plan cannot be changed after creation', type: 'frozen_field' },
    ]);
    expect(response.body.detail).to.have.length(2);
  });

  it('reports an unknown permission once, not once per schema it failed', async () => {
    const response = await as('POST', '/api-keys', { json: { app_id: ids.appId, name: 'k', permissions: ['fly:kites'] } });
    expectStatus(response, 422);
    expect(response.body.detail).to.have.length(1);
  });

  it('changes nothing when a request is refused', async () => {
    const application = await as('GET', `/applications/${ids.appId}`);
    expect(application.body).to.include({ region: 'EU', pricing_plan: 'free', name: 'Checkout' });
  });

  it('answers 401, not 422, to a bad body without a token', async () => {
    expectStatus(await callerFor(app())('POST', '/organizations', { json: { name: '' } }), 401);
  });
});
