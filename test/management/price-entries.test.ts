// Price entries through HTTP on every database: create, list, get, update and delete; every 422 of
// the document (validity window, currency, prices, model texts, millisecond bounds, overlap, also
// against concurrent creates); 404 for unknown entries and for another organization's; and the
// effective price of a model from an entry, the default book, or none.
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import { createOrganization, dashboardUser, callerFor, expectStatus, type Caller } from '../support/management.js';

const GPT = { provider: 'openai', model: 'gpt-4o-mini*', input_price: 0.14, output_price: 0.55, currency: 'EUR' };

onEachDatabase('price entries', (app) => {
  async function owner(): Promise<{ as: Caller; orgId: string; path: string }> {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    return { as, orgId, path: `/organizations/${orgId}/price-entries` };
  }

  it('creates an entry with every optional field null, gets it, lists it, changes and deletes it', async () => {
    const { as, orgId, path } = await owner();
    const created = await as('POST', path, { json: GPT });
    expectStatus(created, 201);
    expect(created.body.id).to.match(/^pe_[A-Za-z0-9]{20}$/);
    expect(created.body).to.deep.include({
      organization_id: orgId,
      ...GPT,
      cache_read_price: null,
      cache_creation_price: null,
      request_price: null,
      valid_from: null,
      valid_to: null,
    });
    expect(created.body.updated_at).to.equal(created.body.created_at);
    const entryPath = `${path}/${created.body.id}`;
    expect((await as('GET', entryPath)).body).to.deep.equal(created.body);

    const second = await as('POST', path, {
      json: {
        provider: null,
        model: 'llama-3',
        input_price: 0,
        output_price: 1e6,
        cache_read_price: 0.1,
        cache_creation_price: 0.2,
        request_price: 0.003,
        currency: 'JPY',
        valid_from: '2026-01-01T00:00:00+02:00',
        valid_to: '2027-01-01T00:00:00.500Z',
      },
    });
    expectStatus(second, 201);
    expect(second.body).to.deep.include({ provider: null, valid_from: '2025-12-31T22:00:00.000Z', valid_to: '2027-01-01T00:00:00.500Z' });

    const listed = await as('GET', path, { query: { limit: 1 } });
    expectStatus(listed, 200);
    expect(listed.body.pagination).to.deep.equal({ page: 1, limit: 1, total: 2 });
    expect(listed.body.data).to.deep.equal([created.body]);
    const next = await as('GET', path, { query: { limit: 1, cursor: listed.body.next_cursor } });
    expect(next.body.data).to.deep.equal([second.body]);
    expect(next.body.next_cursor).to.equal(null);

    // Only what is sent changes; null clears an optional field.
    const changed = await as('PATCH', entryPath, { json: { cache_read_price: 0.07, valid_to: '2027-01-01T00:00:00Z' } });
    expectStatus(changed, 200);
    expect(changed.body).to.deep.include({ ...GPT, cache_read_price: 0.07, valid_to: '2027-01-01T00:00:00.000Z' });
    const cleared = await as('PATCH', entryPath, { json: { valid_to: null, provider: null } });
    expect(cleared.body).to.deep.include({ provider: null, valid_to: null, cache_read_price: 0.07 });
    expect((await as('GET', entryPath)).body).to.deep.equal(cleared.body);

    const deleted = await as('DELETE', entryPath);
    expectStatus(deleted, 204);
    expect(deleted.text).to.equal('');
    expectStatus(await as('GET', entryPath), 404);
    expectStatus(await as('PATCH', entryPath, { json: { input_price: 1 } }), 404);
    expectStatus(await as('DELETE', entryPath), 404);
    expect((await as('GET', path)).body.data.map((entry: { id: string }) => entry.id)).to.deep.equal([second.body.id]);
  });

  it('keeps prices to 15 significant digits, as every database reads them back', async () => {
    const { as, path } = await owner();
    const created = await as('POST', path, { json: { ...GPT, input_price: 0.1 + 0.2, output_price: 1 / 3 } });
    expectStatus(created, 201);
    expect(created.body).to.include({ input_price: 0.3, output_price: 0.333333333333333 });
    expect((await as('GET', `${path}/${created.body.id}`)).body).to.deep.equal(created.body);
  });

  describe('refuses bad input with a 422 at the field', () => {
    const CASES: Array<[string, Record<string, unknown>, Array<string | number>, RegExp?]> = [
      [
        'valid_to equal to valid_from',
        { valid_from: '2026-01-01T00:00:00Z', valid_to: '2026-01-01T00:00:00.000Z' },
        ['body', 'valid_to'],
        /after valid_from/,
      ],
      ['valid_to before valid_from', { valid_from: '2026-02-01T00:00:00Z', valid_to: '2026-01-01T00:00:00Z' }, ['body', 'valid_to']],
      ['a currency that is not ISO 4217', { currency: 'XYZ' }, ['body', 'currency'], /ISO 4217/],
      ['a currency in small letters', { currency: 'eur' }, ['body', 'currency']],
      ['a currency of four letters', { currency: 'EURO' }, ['body', 'currency']],
      ['a negative price', { input_price: -0.01 }, ['body', 'input_price']],
      ['a price above 10^6', { output_price: 1_000_001 }, ['body', 'output_price']],
      ['a negative cache price', { cache_read_price: -1 }, ['body', 'cache_read_price']],
      ['a negative per-call price', { request_price: -1 }, ['body', 'request_price']],
      ['a price that is text', { input_price: '0.1' }, ['body', 'input_price']],
      ['a pattern with two stars in a row', { model: 'gpt-**' }, ['body', 'model'], /\*\*/],
      ['a blank model', { model: '   ' }, ['body', 'model']],
      ['a model with a control character', { model: 'gpt\t4o' }, ['body', 'model'], /control/],
      ['a model over 256 characters', { model: 'm'.repeat(257) }, ['body', 'model']],
      ['an empty model', { model: '' }, ['body', 'model']],
      ['an empty provider', { provider: '' }, ['body', 'provider']],
      ['a valid_from finer than the millisecond', { valid_from: '2026-01-01T00:00:00.0001Z' }, ['body', 'valid_from'], /millisecond/],
      ['a valid_to that is no date-time', { valid_to: 'tomorrow' }, ['body', 'valid_to']],
      ['a field the entry does not have', { discount: 0.5 }, ['body', 'discount']],
    ];
    for (const [name, fields, loc, message] of CASES) {
      it(name, async () => {
        const { as, path } = await owner();
        const response = await as('POST', path, { json: { ...GPT, ...fields } });
        expectStatus(response, 422);
        const issue = response.body.detail.find((entry: { loc: unknown[] }) => JSON.stringify(entry.loc) === JSON.stringify(loc));
        expect(issue, response.text).to.not.equal(undefined);
        if (message) expect(issue.msg).to.match(message);
        expect((await as('GET', path)).body.data).to.deep.equal([]);
      });
    }

    it('a required field missing, and a price too large for a double (1e400)', async () => {
      const { as, path } = await owner();
      const missing = await as('POST', path, { json: { model: 'x', input_price: 1, currency: 'USD' } });
      expectStatus(missing, 422);
      expect(missing.body.detail).to.deep.include({ loc: ['body', 'output_price'], msg: 'Field required', type: 'missing' });
      const huge = await as('POST', path, {
        rawBody: '{"model": "x", "input_price": 1e400, "output_price": 1, "currency": "USD"}',
        headers: { 'content-type': 'application/json' },
      });
      expectStatus(huge, 422);
      expect(huge.body.detail.map((entry: { loc: unknown[] }) => entry.loc)).to.deep.include(['body', 'input_price']);
    });

    it('an update that leaves the entry invalid, checked on the merged entry; an empty update; a required field set to null', async () => {
      const { as, path } = await owner();
      const created = await as('POST', path, { json: { ...GPT, valid_from: '2026-06-01T00:00:00Z' } });
      const entryPath = `${path}/${created.body.id}`;
      const early = await as('PATCH', entryPath, { json: { valid_to: '2026-05-01T00:00:00Z' } });
      expectStatus(early, 422);
      expect(early.body.detail.map((entry: { loc: unknown[] }) => entry.loc)).to.deep.equal([['body', 'valid_to']]);
      expectStatus(await as('PATCH', entryPath, { json: {} }), 422);
      expectStatus(await as('PATCH', entryPath, { json: { model: null } }), 422);
      expectStatus(await as('PATCH', entryPath, { json: { currency: 'ABC' } }), 422);
      expect((await as('GET', entryPath)).body).to.deep.equal(created.body);
    });
  });

  describe('overlap', () => {
    const windowed = (fields: Record<string, unknown>, from: string | null, to: string | null) => ({
      ...GPT,
      ...fields,
      valid_from: from,
      valid_to: to,
    });

    it('refuses a second entry of the same provider and model text in force at the same time, naming the first', async () => {
      const { as, path } = await owner();
      const first = await as('POST', path, { json: windowed({}, '2026-01-01T00:00:00Z', '2026-07-01T00:00:00Z') });
      expectStatus(first, 201);
      for (const [name, fields, from, to] of [
        ['the same texts', {}, '2026-06-30T23:59:59.999Z', null],
        ['the provider and model in other cases', { provider: 'OpenAI', model: 'GPT-4O-MINI*' }, null, '2026-01-01T00:00:00.001Z'],
        ['inside', {}, '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z'],
        ['around, unbounded', {}, null, null],
      ] as const) {
        const response = await as('POST', path, { json: windowed(fields, from, to) });
        expectStatus(response, 422);
        expect(response.body.detail, name).to.have.length(1);
        expect(response.body.detail[0]).to.include({ type: 'overlap' });
        expect(response.body.detail[0].loc).to.deep.equal(['body', 'valid_from']);
        expect(response.body.detail[0].msg).to.include(first.body.id);
      }
      expect((await as('GET', path)).body.pagination.total).to.equal(1);
    });

    it('takes entries that meet at a bound (valid_to is exclusive), of other providers or texts, and null beside a named provider', async () => {
      const { as, path } = await owner();
      for (const [fields, from, to] of [
        [{}, null, '2026-07-01T00:00:00Z'],
        [{}, '2026-07-01T00:00:00Z', null],
        [{ provider: 'azure.ai.openai' }, null, null],
        [{ provider: null }, null, null],
        [{ model: 'gpt-4o-mini' }, null, null],
      ] as const) {
        expectStatus(await as('POST', path, { json: windowed(fields, from, to) }), 201);
      }
      // null equals null.
      const again = await as('POST', path, { json: windowed({ provider: null }, '2030-01-01T00:00:00Z', null) });
      expectStatus(again, 422);
    });

    it("checks an update against the organization's other entries, not against itself", async () => {
      const { as, path } = await owner();
      const before = await as('POST', path, { json: windowed({}, null, '2026-07-01T00:00:00Z') });
      const after = await as('POST', path, { json: windowed({}, '2026-07-01T00:00:00Z', null) });
      const moved = await as('PATCH', `${path}/${before.body.id}`, { json: { valid_to: '2026-07-02T00:00:00Z' } });
      expectStatus(moved, 422);
      expect(moved.body.detail[0].msg).to.include(after.body.id);
      expectStatus(await as('PATCH', `${path}/${before.body.id}`, { json: { valid_to: '2026-06-01T00:00:00Z', input_price: 0.2 } }), 200);
      // Once the other is deleted, nothing is in the way.
      expectStatus(await as('DELETE', `${path}/${after.body.id}`), 204);
      expectStatus(await as('PATCH', `${path}/${before.body.id}`, { json: { valid_to: null } }), 200);
    });

    it('lets exactly one of several concurrent overlapping creates through', async () => {
      const { as, path } = await owner();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          as('POST', path, { json: windowed({ input_price: index }, `2026-0${index + 1}-01T00:00:00Z`, null) }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([201, 422, 422, 422, 422, 422]);
      expect((await as('GET', path)).body.pagination.total).to.equal(1);
    });

    it("never compares with another organization's entries", async () => {
      const first = await owner();
      const second = await owner();
      expectStatus(await first.as('POST', first.path, { json: GPT }), 201);
      expectStatus(await second.as('POST', second.path, { json: GPT }), 201);
    });
  });

  it("answers 404 for an unknown entry and for another organization's entry, even to an owner of both", async () => {
    const { as, orgId, path } = await owner();
    const otherOrg = await createOrganization(as, 'Other');
    const entry = await as('POST', path, { json: GPT });
    const elsewhere = `/organizations/${otherOrg}/price-entries/${entry.body.id}`;
    expectStatus(await as('GET', elsewhere), 404);
    expectStatus(await as('PATCH', elsewhere, { json: { input_price: 9 } }), 404);
    expectStatus(await as('DELETE', elsewhere), 404);
    expectStatus(await as('GET', `${path}/pe_doesnotexist00000000`), 404);
    expect((await as('GET', `/organizations/${orgId}/price-entries/${entry.body.id}`)).body.input_price).to.equal(0.14);
    expect((await as('GET', `/organizations/${otherOrg}/price-entries`)).body.data).to.deep.equal([]);
  });

  describe('effective price', () => {
    it('answers the entry in force, with the cache prices that apply, and the time it is for', async () => {
      const { as, orgId, path } = await owner();
      const entry = await as('POST', path, {
        json: { ...GPT, cache_read_price: 0.07, request_price: 0.001, valid_from: '2026-01-01T00:00:00Z' },
      });
      const response = await as('GET', `/organizations/${orgId}/effective-price`, {
        query: { model: 'GPT-4o-mini-2024-07-18', provider: 'OpenAI', at: '2026-01-01T00:00:00.000999Z' },
      });
      expectStatus(response, 200);
      expect(response.body).to.deep.equal({
        at: '2026-01-01T00:00:00.000Z',
        source: 'entry',
        entry_id: entry.body.id,
        book: null,
        provider: 'openai',
        model: 'gpt-4o-mini*',
        currency: 'EUR',
        input_price: 0.14,
        output_price: 0.55,
        cache_read_price: 0.07,
        cache_creation_price: 0.14,
        request_price: 0.001,
        unpriced_reason: null,
      });
    });

    it("answers the default book's prices before the entry is in force, and for another provider", async () => {
      const { as, orgId, path } = await owner();
      await as('POST', path, { json: { ...GPT, valid_from: '2026-01-01T00:00:00Z' } });
      const book = {
        source: 'default_book',
        entry_id: null,
        book: 'genai-prices 0.1.8',
        provider: 'openai',
        model: 'gpt-4o-mini',
        currency: 'USD',
        input_price: 0.15,
        output_price: 0.6,
        cache_read_price: 0.075,
        cache_creation_price: 0.15,
        request_price: null,
        unpriced_reason: null,
      };
      const before = await as('GET', `/organizations/${orgId}/effective-price`, {
        query: { model: 'gpt-4o-mini', provider: 'openai', at: '2025-12-31T23:59:59.999Z' },
      });
      expect(before.body).to.deep.equal({ at: '2025-12-31T23:59:59.999Z', ...book });
      // A provider text the book does not know: the book picks the provider from the model's name.
      const other = await as('GET', `/organizations/${orgId}/effective-price`, { query: { model: 'gpt-4o-mini', provider: 'acme-cloud' } });
      expect(other.body).to.deep.include(book);
      // Without `at`: now, to the millisecond.
      expect(Math.abs(Date.parse(other.body.at) - Date.now())).to.be.below(60_000);
    });

    it('says why there is no price: no price in force, or an unknown model', async () => {
      const { as, orgId, path } = await owner();
      await as('POST', path, {
        json: { model: 'acme-*', input_price: 1, output_price: 1, currency: 'USD', valid_to: '2026-01-01T00:00:00Z' },
      });
      const none = {
        entry_id: null,
        book: null,
        provider: null,
        model: null,
        currency: null,
        input_price: null,
        output_price: null,
        cache_read_price: null,
        cache_creation_price: null,
        request_price: null,
      };
      const late = await as('GET', `/organizations/${orgId}/effective-price`, {
        query: { model: 'acme-large', at: '2026-01-01T00:00:00Z' },
      });
      expect(late.body).to.deep.equal({ at: '2026-01-01T00:00:00.000Z', source: null, ...none, unpriced_reason: 'no_price_in_force' });
      const early = await as('GET', `/organizations/${orgId}/effective-price`, {
        query: { model: 'acme-large', at: '2025-12-31T00:00:00Z' },
      });
      expect(early.body).to.include({ source: 'entry' });
      const unknown = await as('GET', `/organizations/${orgId}/effective-price`, { query: { model: 'nobody-knows-1' } });
      expect(unknown.body).to.deep.include({ source: null, ...none, unpriced_reason: 'unknown_model' });
    });

    it('refuses a request without a model, or with a time that is no date-time (422)', async () => {
      const { as, orgId } = await owner();
      const missing = await as('GET', `/organizations/${orgId}/effective-price`);
      expectStatus(missing, 422);
      expect(missing.body.detail[0].loc).to.deep.equal(['query', 'model']);
      expectStatus(await as('GET', `/organizations/${orgId}/effective-price`, { query: { model: 'x', at: 'yesterday' } }), 422);
    });
  });
});
