// POST /auth/token answers every malformed request as RFC 6749 section 5.2 promises (400
// invalid_request or unsupported_grant_type, 401 invalid_client), never the API's 422 or 415:
// malformed or too-deep JSON, wrong types, missing fields, a body of another media type.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { loadDocument } from '../../src/api/documents.js';
import { seedApiKey, seedApplication, seedOrganization } from '../support/accounts.js';
import { call, type CallOptions } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

type Want = { status: number; error: string };

const json = (body: unknown): CallOptions => ({ rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const raw = (rawBody: string, type = 'application/json'): CallOptions => ({ rawBody, headers: { 'content-type': type } });

const CASES: Array<[string, CallOptions, Want]> = [
  ['malformed JSON', raw('{"grant_type": "client_credentials",'), { status: 400, error: 'invalid_request' }],
  [
    'JSON nested past the depth limit',
    raw(`{"grant_type":"client_credentials","x":${'['.repeat(1000)}${']'.repeat(1000)}}`),
    { status: 400, error: 'invalid_request' },
  ],
  ['a JSON array', json([{ grant_type: 'client_credentials' }]), { status: 400, error: 'invalid_request' }],
  [
    'client_id as a number',
    json({ grant_type: 'client_credentials', client_id: 5, client_secret: 'as_x' }),
    { status: 400, error: 'invalid_request' },
  ],
  [
    'client_secret as an object',
    json({ grant_type: 'client_credentials', client_id: 'ak_x', client_secret: { a: 1 } }),
    { status: 400, error: 'invalid_request' },
  ],
  ['grant_type as a number', json({ grant_type: 5, client_id: 'ak_x', client_secret: 'as_x' }), { status: 400, error: 'invalid_request' }],
  ['no grant_type', json({ client_id: 'ak_x', client_secret: 'as_x' }), { status: 400, error: 'invalid_request' }],
  ['an empty grant_type', json({ grant_type: '', client_id: 'ak_x', client_secret: 'as_x' }), { status: 400, error: 'invalid_request' }],
  [
    'another grant_type',
    json({ grant_type: 'password', client_id: 'ak_x', client_secret: 'as_x' }),
    { status: 400, error: 'unsupported_grant_type' },
  ],
  ['no body at all', {}, { status: 400, error: 'invalid_request' }],
  ['an empty JSON object', json({}), { status: 400, error: 'invalid_request' }],
  ['no client_secret', json({ grant_type: 'client_credentials', client_id: 'ak_x' }), { status: 401, error: 'invalid_client' }],
  ['no credentials', json({ grant_type: 'client_credentials' }), { status: 401, error: 'invalid_client' }],
  [
    'a text/plain body',
    raw('grant_type=client_credentials&client_id=ak_x&client_secret=as_x', 'text/plain'),
    { status: 400, error: 'invalid_request' },
  ],
  [
    'a body without Content-Type',
    { rawBody: new TextEncoder().encode('grant_type=client_credentials') },
    { status: 400, error: 'invalid_request' },
  ],
  [
    'a repeated form parameter',
    raw('grant_type=client_credentials&client_id=ak_x&client_id=ak_y&client_secret=as_x', 'application/x-www-form-urlencoded'),
    { status: 400, error: 'invalid_request' },
  ],
  [
    'a form body without grant_type',
    raw('client_id=ak_x&client_secret=as_x', 'application/x-www-form-urlencoded'),
    { status: 400, error: 'invalid_request' },
  ],
];

/** A form body as a validator sees it: one string per field, a list for a repeated one. */
function formFields(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const seen = fields[key];
    fields[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return fields;
}

onEachDatabase('POST /auth/token malformed requests', (app) => {
  type Schema = { type?: string; properties?: Record<string, { type?: string }> };
  type Definition = {
    paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { $ref: string } }> } }>>;
    components: { schemas: Record<string, Schema> };
  };

  it('types the parameters for generated clients (TokenRequest) and declares a body that accepts every other body too (TokenRequestBody)', () => {
    const definition = loadDocument('management').definition as unknown as Definition;
    const content = definition.paths['/auth/token']!.post!.requestBody.content;
    expect(Object.keys(content)).to.have.members(['application/x-www-form-urlencoded', 'application/json']);
    for (const [type, media] of Object.entries(content)) expect(media.schema.$ref, type).to.equal('#/components/schemas/TokenRequestBody');
    const parameters = definition.components.schemas.TokenRequest!;
    expect(parameters.type).to.equal('object');
    for (const name of ['grant_type', 'client_id', 'client_secret', 'scope'])
      expect(parameters.properties?.[name]?.type, name).to.equal('string');
  });

  it('lets a gateway that validates requests against the document forward every body this operation answers itself', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(loadDocument('management').definition as object, 'management');
    const validate = ajv.getSchema('management#/components/schemas/TokenRequestBody')!;
    const bodies = CASES.flatMap(([name, options]) => {
      const type = (options.headers as Record<string, string> | undefined)?.['content-type'] ?? '';
      if (typeof options.rawBody !== 'string') return [];
      if (type === 'application/x-www-form-urlencoded') return [[name, formFields(options.rawBody)] as const];
      if (type !== 'application/json') return [];
      try {
        return [[name, JSON.parse(options.rawBody) as unknown] as const];
      } catch {
        return []; // not JSON at all: no schema applies
      }
    });
    const scalars = [5, 'client_credentials', null, true].map((body) => [`the JSON value ${JSON.stringify(body)}`, body] as const);
    expect(bodies.length).to.be.greaterThan(10);
    for (const [name, body] of [...bodies, ...scalars])
      expect(validate(body), `${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  });

  for (const [name, options, want] of CASES) {
    it(`answers ${name} with ${want.status} ${want.error}`, async () => {
      const response = await call(app().url, 'POST', '/auth/token', options);
      expect(response.status, response.text).to.equal(want.status);
      expect(response.body.error, response.text).to.equal(want.error);
      expect(response.headers.get('cache-control')).to.equal('no-store');
    });
  }

  it('still exchanges a form body, and a JSON body with a charset', async () => {
    const orgId = await seedOrganization(app().server.knex, []);
    const key = await seedApiKey(app().server.knex, await seedApplication(app().server.knex, orgId), ['read:traces']);
    const credentials = { grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret };
    const form = await call(
      app().url,
      'POST',
      '/auth/token',
      raw(new URLSearchParams(credentials).toString(), 'application/x-www-form-urlencoded'),
    );
    expect(form.status, form.text).to.equal(200);
    const charset = await call(app().url, 'POST', '/auth/token', raw(JSON.stringify(credentials), 'application/json; charset=utf-8'));
    expect(charset.status, charset.text).to.equal(200);
  });
});
