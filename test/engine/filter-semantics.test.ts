// The filter semantics of docs/filter-semantics.md, case by case, through POST /engine/query on every
// database (table-driven): each pitfall of SQL string matching, absent values, attribute text
// forms and numeric readings, span kinds, empty groups and deep nesting. The reference
// evaluator must agree with every expectation too.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { expectFilterSelects } from '../support/filter-cases.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3_600_000_000_000n) };

interface Fixture {
  id: string;
  span: Partial<SpanRow>;
  attributes?: Record<string, unknown>;
  resource?: Record<string, unknown>;
}

// Span ids double as names in the table below.
const FIXTURES: Fixture[] = [
  {
    id: 'get',
    span: { span_name: 'GET /checkout', span_kind: 'SPAN_KIND_SERVER', service_name: 'checkout', cost: 0.5, usage_amount: 200 },
    attributes: { 'http.method': 'GET', 'http.status_code': 200, retry: true, tags: ['a', 'b'], meta: { k: 1 } },
    resource: { 'service.name': 'checkout' },
  },
  {
    id: 'getpad',
    span: { span_name: 'GET /checkout ', span_kind: 'SPAN_KIND_CLIENT', service_name: 'checkout ', cost: 1e8 + 0.25 },
    attributes: { 'http.method': 'GET ', 'http.status_code': '200', retry: false },
  },
  {
    id: 'lower',
    span: { span_name: 'get /checkout', span_kind: 'SPAN_KIND_INTERNAL', service_name: 'Checkout', unit: 'llm' },
    attributes: { 'http.method': 'get', 'http.status_code': '2e2', 'x.y': null },
  },
  {
    id: 'wild',
    span: { span_name: '50%_off\\now', span_kind: 'SPAN_KIND_PRODUCER', billing_sku_name: 'a!b*c?[d]' },
    attributes: { note: '50%_off\\now', 'http.status_code': ' 200' },
  },
  {
    id: 'plain',
    span: { span_name: '50 offxnow', span_kind: 'SPAN_KIND_CONSUMER', billing_sku_name: 'aXbYcZd' },
    attributes: { note: '50 offxnow', 'http.status_code': 'abc' },
  },
  {
    id: 'accent',
    span: { span_name: 'café ☕ 日本', span_kind: 'SPAN_KIND_UNSPECIFIED', parent_unit: 'O\'Brien "q"' },
    attributes: { note: 'CAFÉ ☕', big: 4611686018427387904, tiny: 1e-7 },
  },
  { id: 'bare', span: { span_name: '', span_kind: 'SPAN_KIND_SERVER', service_name: null, cost: null } },
];

const hexId = (index: number) => (index + 1).toString(16).padStart(16, '0');
const idOf = new Map(FIXTURES.map((fixture, index) => [hexId(index), fixture.id]));

function rows(applicationId: string): SpanRow[] {
  return FIXTURES.map((fixture, index) =>
    spanRow({
      application_id: applicationId,
      trace_id: 'f'.repeat(32),
      span_id: hexId(index),
      start_time_unix_nano: (BASE + BigInt(index) * 1_000_000_000n).toString(),
      service_name: null,
      ...fixture.span,
      span_attributes: fixture.attributes ? JSON.stringify(fixture.attributes) : null,
      resource_attributes: fixture.resource ? JSON.stringify(fixture.resource) : null,
    }),
  );
}

const c = (field: string, op: string, value: string) => ({ field, op, value });

function nested(depth: number, leaf: unknown): unknown {
  let node = leaf;
  for (let level = 1; level < depth; level += 1) node = level % 2 ? { and: [node] } : { or: [node] };
  return node;
}

type Case = [name: string, filter: unknown, want: string[]];

const CASES: Case[] = [
  ['eq is exact: no trailing-space padding', c('span_name', 'eq', 'GET /checkout'), ['get']],
  ['eq keeps a trailing space', c('span_name', 'eq', 'GET /checkout '), ['getpad']],
  ['eq is case-sensitive', c('service_name', 'eq', 'checkout'), ['get']],
  ['neq leaves out absent values', c('service_name', 'neq', 'checkout'), ['getpad', 'lower']],
  ['neq on a padded value', c('service_name', 'neq', 'checkout '), ['get', 'lower']],
  ['contains is case-sensitive', c('span_name', 'contains', 'GET'), ['get', 'getpad']],
  ['% is literal', c('span_name', 'contains', '50%'), ['wild']],
  ['_ is literal', c('span_name', 'contains', '%_off'), ['wild']],
  ['\\ is literal', c('span_name', 'ends_with', '\\now'), ['wild']],
  ['GLOB and LIKE-escape characters are literal', c('billing.sku_name', 'eq', 'a!b*c?[d]'), ['wild']],
  ['* ? [ are literal in contains', c('billing.sku_name', 'contains', '*c?['), ['wild']],
  ['starts_with with non-ASCII', c('span_name', 'starts_with', 'café ☕'), ['accent']],
  ['quotes are plain characters', c('parent_unit', 'eq', 'O\'Brien "q"'), ['accent']],
  [
    'empty starts_with matches every present value',
    c('span_name', 'starts_with', ''),
    ['get', 'getpad', 'lower', 'wild', 'plain', 'accent', 'bare'],
  ],
  ['empty string equals only the empty string', c('span_name', 'eq', ''), ['bare']],
  ['span_kind short name', c('span_kind', 'eq', 'SERVER'), ['get', 'bare']],
  ['span_kind full name', c('span_kind', 'eq', 'SPAN_KIND_SERVER'), ['get', 'bare']],
  ['span_kind short name, neq', c('span_kind', 'neq', 'CLIENT'), ['get', 'lower', 'wild', 'plain', 'accent', 'bare']],
  ['span_kind UNSPECIFIED', c('span_kind', 'eq', 'UNSPECIFIED'), ['accent']],
  ['span_kind other operators use the stored name', c('span_kind', 'starts_with', 'SERVER'), []],
  ['span_kind short names are case-sensitive', c('span_kind', 'eq', 'server'), []],
  ['numeric field eq', c('cost', 'eq', '0.5'), ['get']],
  ['numeric field neq leaves out absent values', c('cost', 'neq', '0.5'), ['getpad']],
  ['numeric field above 1e8', c('cost', 'gt', '100000000.2'), ['getpad']],
  ['numeric field in exponent notation', c('usage.amount', 'gte', '2e2'), ['get']],
  ['attribute text form of a number', c('span_attributes.http.status_code', 'eq', '200'), ['get', 'getpad']],
  ['attribute text form of a boolean', c('span_attributes.retry', 'eq', 'true'), ['get']],
  ['attribute text form of false', c('span_attributes.retry', 'eq', 'false'), ['getpad']],
  ['attribute boolean is not 1', c('span_attributes.retry', 'eq', '1'), []],
  ['attribute text form of an array', c('span_attributes.tags', 'eq', '["a","b"]'), ['get']],
  ['attribute text form of an object', c('span_attributes.meta', 'contains', '"k":1'), ['get']],
  ['attribute eq keeps padding', c('span_attributes.http.method', 'eq', 'GET'), ['get']],
  ['attribute eq is case-sensitive', c('span_attributes.http.method', 'neq', 'GET'), ['getpad', 'lower']],
  ['attribute contains literal wildcards', c('span_attributes.note', 'contains', '%_off\\'), ['wild']],
  ['attribute non-ASCII, case-sensitive', c('span_attributes.note', 'starts_with', 'CAFÉ'), ['accent']],
  ['attribute JSON null is absent', c('span_attributes.x.y', 'neq', 'anything'), []],
  ['missing attribute matches nothing, neq included', c('span_attributes.nope', 'neq', 'x'), []],
  ['numeric reading of numbers and number-like text', c('span_attributes.http.status_code', 'gte', '200'), ['get', 'getpad', 'lower']],
  ['text that is not a JSON number has no numeric reading', c('span_attributes.http.status_code', 'lt', '1e9'), ['get', 'getpad', 'lower']],
  [
    'booleans, arrays and objects have no numeric reading',
    { or: [c('span_attributes.retry', 'gte', '0'), c('span_attributes.tags', 'gte', '0'), c('span_attributes.meta', 'lt', '9')] },
    [],
  ],
  // 2^62 is written by JSON.stringify as 4611686018427388000, and compares as that double.
  ['large integer attribute keeps its written form', c('span_attributes.big', 'eq', '4611686018427388000'), ['accent']],
  ['large integer attribute, numerically', c('span_attributes.big', 'gte', '4611686018427387904'), ['accent']],
  ['large integer attribute, numerically, strict', c('span_attributes.big', 'gt', '4611686018427387904'), []],
  ['tiny attribute keeps its written form', c('span_attributes.tiny', 'eq', '1e-7'), ['accent']],
  ['tiny attribute, numerically', c('span_attributes.tiny', 'lt', '0.000001'), ['accent']],
  ['resource attribute', c('resource_attributes.service.name', 'eq', 'checkout'), ['get']],
  ['and: [] matches everything', { and: [] }, ['get', 'getpad', 'lower', 'wild', 'plain', 'accent', 'bare']],
  ['or: [] matches nothing', { or: [] }, []],
  ['or of an empty or and a condition', { or: [{ or: [] }, c('span_name', 'eq', '')] }, ['bare']],
  ['and with an empty and', { and: [{ and: [] }, c('span_kind', 'eq', 'SERVER')] }, ['get', 'bare']],
  ['nesting 64 levels deep', nested(64, c('span_name', 'contains', 'check')), ['get', 'getpad', 'lower']],
  [
    'nesting 100 levels deep (the documented limit)',
    nested(98, { or: [c('span_id', 'eq', hexId(6)), c('unit', 'eq', 'llm')] }),
    ['lower', 'bare'],
  ],
  // Engine API 1.2: in / not_in, exists / not_exists, not.
  ['in is exact: no padding, case-sensitive', { field: 'span_name', op: 'in', value: ['GET /checkout', 'get'] }, ['get']],
  ['in keeps a trailing space', { field: 'service_name', op: 'in', value: ['checkout ', 'Checkout'] }, ['getpad', 'lower']],
  ['in with literal wildcards', { field: 'billing.sku_name', op: 'in', value: ['a!b*c?[d]', 'a_b%c'] }, ['wild']],
  [
    'in with span_kind short and full names',
    { field: 'span_kind', op: 'in', value: ['SERVER', 'SPAN_KIND_CLIENT', 'server'] },
    ['get', 'getpad', 'bare'],
  ],
  ['in on a number field, numerically', { field: 'cost', op: 'in', value: ['5e-1', '7'] }, ['get']],
  [
    'in on an attribute: the text form',
    { field: 'span_attributes.http.status_code', op: 'in', value: ['200', '2e2'] },
    ['get', 'getpad', 'lower'],
  ],
  ['not_in leaves out absent values', { field: 'service_name', op: 'not_in', value: ['checkout'] }, ['getpad', 'lower']],
  ['not_in on an attribute with padding', { field: 'span_attributes.http.method', op: 'not_in', value: ['GET'] }, ['getpad', 'lower']],
  ['not_in on a number field leaves out absent values', { field: 'cost', op: 'not_in', value: ['0.5'] }, ['getpad']],
  ['exists on a column', { field: 'cost', op: 'exists' }, ['get', 'getpad']],
  ['not_exists on a column', { field: 'service_name', op: 'not_exists' }, ['wild', 'plain', 'accent', 'bare']],
  ['exists on an attribute: JSON null is absent', { field: 'span_attributes.x.y', op: 'exists' }, []],
  [
    'not_exists on an attribute: missing, JSON null, or no attributes at all',
    { field: 'span_attributes.retry', op: 'not_exists' },
    ['lower', 'wild', 'plain', 'accent', 'bare'],
  ],
  [
    'not matches the absent values eq leaves out',
    { not: c('span_attributes.http.method', 'eq', 'GET') },
    ['getpad', 'lower', 'wild', 'plain', 'accent', 'bare'],
  ],
  ['not of neq: the equal and the absent', { not: c('service_name', 'neq', 'checkout') }, ['get', 'wild', 'plain', 'accent', 'bare']],
  [
    'not of a group with absent values',
    { not: { or: [c('cost', 'gt', '1'), c('span_attributes.nope', 'eq', 'x')] } },
    ['get', 'lower', 'wild', 'plain', 'accent', 'bare'],
  ],
  ['not not is the member', { not: { not: c('cost', 'lt', '1') } }, ['get']],
  ['not of and: [] matches nothing', { not: { and: [] } }, []],
  ['not inside and', { and: [c('span_kind', 'eq', 'SERVER'), { not: c('span_name', 'eq', '') }] }, ['get']],
  // Engine API 1.2: numeric values as JSON numbers.
  ['JSON number on a number field means its string', { field: 'cost', op: 'eq', value: 0.5 }, ['get']],
  [
    'JSON number eq on an attribute: the numeric reading',
    { field: 'span_attributes.http.status_code', op: 'eq', value: 200 },
    ['get', 'getpad', 'lower'],
  ],
  ['string eq on an attribute keeps the text form', c('span_attributes.http.status_code', 'eq', '200'), ['get', 'getpad']],
  [
    'JSON number neq on an attribute: only values with a numeric reading',
    { field: 'span_attributes.http.status_code', op: 'neq', value: 201 },
    ['get', 'getpad', 'lower'],
  ],
  ['JSON number gte on an attribute', { field: 'span_attributes.http.status_code', op: 'gte', value: 200 }, ['get', 'getpad', 'lower']],
  [
    'in with a string and a JSON number on an attribute',
    { field: 'span_attributes.http.status_code', op: 'in', value: ['abc', 2e2] },
    ['get', 'getpad', 'lower', 'plain'],
  ],
  ['not_in with JSON numbers on a number field', { field: 'cost', op: 'not_in', value: [1, 2] }, ['get', 'getpad']],
];

onEachDatabase('filter semantics', (app) => {
  let caller: EngineCaller;
  let stored: SpanRow[];
  before(async () => {
    caller = await engineCaller(app());
    stored = rows(caller.appId);
    await storeSpans(app().server.knex, stored);
  });

  for (const [name, filter, want] of CASES) {
    it(name, async () => {
      await expectFilterSelects({ url: app().url, caller, window: WINDOW, stored, labelOf: idOf }, filter, want);
    });
  }

  for (const value of [' 5', '+5', '0x10', '5 ', '.5', '1e400']) {
    it(`answers 422 at the value to the numeric value "${value}", which is no finite JSON number`, async () => {
      for (const field of ['cost', 'span_attributes.http.status_code']) {
        const response = await call(app().url, 'POST', '/engine/query', {
          query: WINDOW,
          headers: caller.headers,
          json: { filter: { and: [c(field, 'gte', value)] } },
        });
        expect(response.status, response.text).to.equal(422);
        expect(response.body.detail).to.deep.include({
          loc: ['body', 'filter', 'and', 0, 'value'],
          msg: `"gte" on "${field}" needs a finite number, got "${value}"`,
          type: 'float_parsing',
        });
      }
    });
  }

  it('answers 422 to a JSON-number integer past 2^53 - 1 and to a JSON number on a text field, saying to send a string', async () => {
    const big = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: { ...caller.headers, 'content-type': 'application/json' },
      rawBody: '{"filter": {"field": "cost", "op": "eq", "value": 12345678901234567891}}',
    });
    expect(big.status, big.text).to.equal(422);
    expect(big.body.detail[0]).to.include({ type: 'value_error' });
    expect(big.body.detail[0].msg).to.include('send it as a string');
    const text = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: caller.headers,
      json: { filter: { field: 'span_name', op: 'eq', value: 5 } },
    });
    expect(text.status, text.text).to.equal(422);
    expect(text.body.detail).to.deep.equal([
      {
        loc: ['body', 'filter', 'value'],
        msg: '"span_name" holds text: send the value as a string, not the JSON number 5',
        type: 'value_error',
      },
    ]);
  });

  describe('trace-level fields', () => {
    const TRACE = 'f'.repeat(32);
    async function tracesFor(filter: unknown, searchChildSpans: boolean): Promise<string[]> {
      const response = await call(app().url, 'POST', '/traces', {
        query: { ...WINDOW, search_child_spans: searchChildSpans },
        headers: caller.headers,
        json: { filter },
      });
      expect(response.status, response.text).to.equal(200);
      return response.body.data.map((trace: { trace_id: string }) => trace.trace_id);
    }

    it('read the trace of any span with search_child_spans=true, composed with span fields', async () => {
      expect(await tracesFor({ and: [{ field: 'trace.spans_count', op: 'eq', value: 7 }, c('span_name', 'eq', '')] }, true)).to.deep.equal([
        TRACE,
      ]);
      expect(
        await tracesFor({ and: [{ field: 'trace.spans_count', op: 'gt', value: '7' }, c('span_name', 'eq', '')] }, true),
      ).to.deep.equal([]);
      expect(await tracesFor({ not: { field: 'trace.error_count', op: 'eq', value: 0 } }, true)).to.deep.equal([]);
      expect(
        await tracesFor(
          {
            or: [
              { field: 'trace.total_cost', op: 'gte', value: 100000000 },
              { field: 'trace.duration_ms', op: 'lt', value: 0 },
            ],
          },
          true,
        ),
      ).to.deep.equal([TRACE]);
    });

    it('read the root span and its trace with search_child_spans=false', async () => {
      expect(
        await tracesFor({ and: [{ field: 'trace.spans_count', op: 'in', value: ['7'] }, c('span_name', 'eq', 'GET /checkout')] }, false),
      ).to.deep.equal([TRACE]);
      expect(
        await tracesFor({ and: [{ field: 'trace.spans_count', op: 'in', value: ['7'] }, c('span_name', 'eq', '')] }, false),
      ).to.deep.equal([]);
    });

    it('count in POST /engine/metrics', async () => {
      const response = await call(app().url, 'POST', '/engine/metrics', {
        query: WINDOW,
        headers: caller.headers,
        json: { filter: { field: 'trace.spans_count', op: 'gte', value: 7 } },
      });
      expect(response.status, response.text).to.equal(200);
      expect(response.body.trace_count).to.equal(1);
    });

    it('are a 422 in POST /engine/query, saying where they are usable', async () => {
      const response = await call(app().url, 'POST', '/engine/query', {
        query: WINDOW,
        headers: caller.headers,
        json: { filter: { field: 'trace.duration_ms', op: 'gt', value: 1 } },
      });
      expect(response.status, response.text).to.equal(422);
      expect(response.body.detail).to.deep.equal([
        {
          loc: ['body', 'filter', 'field'],
          msg: '"trace.duration_ms" reads the summary of a trace: it is usable in POST /traces, POST /engine/metrics and trace-grain POST /engine/analytics, not in a read of spans',
          type: 'value_error',
        },
      ]);
    });
  });

  it('answers 422, never 500, one level past the nesting limit', async () => {
    const response = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: caller.headers,
      json: { filter: nested(101, c('span_name', 'eq', 'x')) },
    });
    expect(response.status).to.equal(422);
  });
});
