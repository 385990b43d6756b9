// POST /engine/query over HTTP on every database: the record shape, exact nanoseconds, order,
// the window's bounds, pagination and the 422s that only the handler can see.
import { expect } from 'chai';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineSchemas, nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_123_456_789n;
const HOUR = 3_600_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + HOUR) };

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

onEachDatabase('POST /engine/query', (app) => {
  let caller: EngineCaller;
  const query = (options: { query?: Record<string, string | number>; json?: unknown }) =>
    call(app().url, 'POST', '/engine/query', { query: { ...WINDOW, ...options.query }, headers: caller.headers, json: options.json ?? {} });

  before(async () => {
    caller = await engineCaller(app());
    const rows = [];
    // 25 spans in the window; pairs share a start time so that ties order by trace_id, span_id.
    for (let index = 0; index < 25; index += 1) {
      const start = BASE + BigInt(Math.floor(index / 2)) * 60_000_000_000n;
      rows.push(
        spanRow({
          application_id: caller.appId,
          trace_id: hex(100 - (index % 3), 32),
          span_id: hex(index + 1, 16),
          parent_span_id: index % 3 === 0 ? null : hex(1, 16),
          start_time_unix_nano: start.toString(),
          end_time_unix_nano: (start + 1_500_000_001n).toString(),
          span_name: `op-${index}`,
        }),
      );
    }
    // On the bounds: exactly at start_time is in, exactly at end_time is out.
    rows.push(
      spanRow({
        application_id: caller.appId,
        trace_id: hex(7, 32),
        span_id: hex(900, 16),
        start_time_unix_nano: (BASE + HOUR).toString(),
        span_name: 'at-end',
      }),
    );
    rows.push(
      spanRow({
        application_id: caller.appId,
        trace_id: hex(7, 32),
        span_id: hex(901, 16),
        start_time_unix_nano: (BASE - 1n).toString(),
        span_name: 'before',
      }),
    );
    // Another application's span in the same window is never seen.
    rows.push(
      spanRow({ application_id: 'app_someone_else', trace_id: hex(8, 32), span_id: hex(902, 16), start_time_unix_nano: BASE.toString() }),
    );
    await storeSpans(app().server.knex, rows);
  });

  it('answers every field of the record, with exact 19-digit nanoseconds', async () => {
    const trace = hex(5, 32);
    await storeSpans(app().server.knex, [
      spanRow({
        application_id: caller.appId,
        trace_id: trace,
        span_id: hex(5, 16),
        parent_span_id: hex(4, 16),
        start_time_unix_nano: '1763800000999999999',
        end_time_unix_nano: '1763800001000000001',
        span_name: 'gemini.generate_content',
        span_kind: 'SPAN_KIND_CLIENT',
        service_name: 'summarizer',
        unit: 'llm',
        parent_unit: 'summarizer',
        cost: 0.0042,
        billing_resource_type: 'llm_generate_content',
        billing_region: 'europe-west4',
        usage_amount: 1680,
        usage_unit: 'tokens',
        model: 'gemini-2.5-flash',
        provider: 'gcp.gemini',
        input_tokens: 5120,
        output_tokens: 1680,
        cache_read_tokens: 4096,
        cache_creation_tokens: 0,
        total_tokens: 1_000_000_000_000,
        cost_source: 'computed',
        price_model: 'gemini-2.5-flash',
        price_provider: 'google',
        price_book: 'genai-prices 0.1.8',
        unpriced_reason: null,
        price_entry_id: null,
        price_currency: 'USD',
        resource_attributes: JSON.stringify({ 'service.name': 'summarizer' }),
        span_attributes: '{"vendor.unit":"llm","big":12345678901234567890,"nested":{"a":[1,"x"]}}',
        status_code: 'STATUS_CODE_ERROR',
        status_message: 'quota exceeded',
        scope_name: '@google/genai',
        scope_version: '1.30.0',
        events:
          '[{"name":"exception","time_unix_nano":1763800000999999999,"attributes":{"exception.type":"QuotaError"},"dropped_attributes_count":0}]',
        links:
          '[{"trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331","trace_state":null,"attributes":null,"dropped_attributes_count":0}]',
        dropped_attributes_count: 1,
        dropped_events_count: 2,
        dropped_links_count: 3,
      }),
    ]);
    try {
      await expectEveryField(trace);
    } finally {
      await app().server.knex('spans').where({ application_id: caller.appId, trace_id: trace }).del();
      await app().server.knex('traces').where({ application_id: caller.appId, trace_id: trace }).del();
    }
  });

  async function expectEveryField(trace: string) {
    const response = await query({ json: { filter: { field: 'trace_id', op: 'eq', value: trace } } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(response.text).to.include('"span_start_time_unix_nano":1763800000999999999');
    expect(response.text).to.include('"span_end_time_unix_nano":1763800001000000001');
    // Stored attribute JSON is passed through verbatim: its own big integers keep every digit.
    expect(response.text).to.include('"big":12345678901234567890');
    expect(response.text).to.include('"time_unix_nano":1763800000999999999');
    const body = parseEngineRead('/engine/query', response.text);
    expect(body).to.deep.include({ total: 1, page: 1, limit: 20 });
    expect(body.data[0]).to.deep.equal({
      trace_id: trace,
      span_id: hex(5, 16),
      span_start_time_unix_nano: '1763800000999999999',
      span_end_time_unix_nano: '1763800001000000001',
      duration_ms: 0.000002,
      parent_span_id: hex(4, 16),
      span_name: 'gemini.generate_content',
      span_kind: 'SPAN_KIND_CLIENT',
      service_name: 'summarizer',
      unit: 'llm',
      parent_unit: 'summarizer',
      resource_attributes: { 'service.name': 'summarizer' },
      span_attributes: { 'vendor.unit': 'llm', big: 12345678901234567000, nested: { a: [1, 'x'] } }, // big: parsed through a double here
      cost: 0.0042,
      billing: {
        resource_type: 'llm_generate_content',
        resource_name: null,
        service_id: null,
        service_name: null,
        sku_id: null,
        sku_name: null,
        region: 'europe-west4',
      },
      usage: { amount: 1680, unit: 'tokens' },
      model: 'gemini-2.5-flash',
      provider: 'gcp.gemini',
      tokens: { input: 5120, output: 1680, cache_read: 4096, cache_creation: 0, total: 1_000_000_000_000 },
      cost_source: 'computed',
      pricing: {
        book: 'genai-prices 0.1.8',
        provider: 'google',
        model: 'gemini-2.5-flash',
        unpriced_reason: null,
        entry_id: null,
        currency: 'USD',
      },
      status_code: 'STATUS_CODE_ERROR',
      status_message: 'quota exceeded',
      scope_name: '@google/genai',
      scope_version: '1.30.0',
      events: [
        {
          name: 'exception',
          time_unix_nano: '1763800000999999999',
          attributes: { 'exception.type': 'QuotaError' },
          dropped_attributes_count: 0,
        },
      ],
      links: [
        {
          trace_id: '0af7651916cd43dd8448eb211c80319c',
          span_id: 'b7ad6b7169203331',
          trace_state: null,
          attributes: null,
          dropped_attributes_count: 0,
        },
      ],
      dropped_attributes_count: 1,
      dropped_events_count: 2,
      dropped_links_count: 3,
    });
  }

  it('orders newest first, then by trace_id and span_id, within [start_time, end_time)', async () => {
    const body = parseEngineRead('/engine/query', (await query({ query: { limit: 100 } })).text);
    expect(body.total).to.equal(25);
    const names: string[] = body.data.map((span: { span_name: string }) => span.span_name);
    expect(names).not.to.include.members(['at-end', 'before']);
    const keys = body.data.map((span) => [BigInt(span.span_start_time_unix_nano), span.trace_id, span.span_id] as const);
    for (let index = 1; index < keys.length; index += 1) {
      const [start, trace, spanId] = keys[index - 1];
      const [nextStart, nextTrace, nextSpan] = keys[index];
      const ordered = start > nextStart || (start === nextStart && (trace < nextTrace || (trace === nextTrace && spanId < nextSpan)));
      expect(ordered, `row ${index} out of order`).to.equal(true);
    }
  });

  it('pages: totals, a last partial page, a page past the end, the same order as one big page', async () => {
    const all = parseEngineRead('/engine/query', (await query({ query: { limit: 100 } })).text).data.map((span) => span.span_id);
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const body = parseEngineRead('/engine/query', (await query({ query: { limit: 10, page } })).text);
      expect(body).to.deep.include({ total: 25, page, limit: 10 });
      pages.push(body.data.map((span) => span.span_id));
    }
    expect(pages.map((page) => page.length)).to.deep.equal([10, 10, 5, 0]);
    expect(pages.flat()).to.deep.equal(all);
    const farAway = parseEngineRead('/engine/query', (await query({ query: { limit: 10, page: 1000 } })).text);
    expect(farAway).to.deep.equal({ data: [], total: 25, page: 1000, limit: 10, next_cursor: null });
  });

  it('takes no body, or a null filter, as "everything in the window"', async () => {
    const noBody = await call(app().url, 'POST', '/engine/query', { query: WINDOW, headers: caller.headers });
    expect(noBody.status).to.equal(200);
    expect(noBody.body.total).to.equal(25);
    expect((await query({ json: { filter: null } })).body.total).to.equal(25);
  });

  it('is a 422 on end_time when the window is empty or reversed', async () => {
    for (const end_time of [WINDOW.start_time, nanosToRfc3339(BASE - 1n)]) {
      const response = await query({ query: { end_time } });
      expect(response.status).to.equal(422);
      expect(response.body.detail).to.have.length(1);
      expect(response.body.detail[0]).to.include({ type: 'value_error' });
      expect(response.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
    }
  });

  it('is a 422 at the node for a rule the schema cannot express, together with a bad window', async () => {
    const response = await query({
      query: { end_time: WINDOW.start_time },
      json: {
        filter: {
          and: [
            { field: 'span_name', op: 'eq', value: 'x' },
            { field: 'span_name', op: 'gt', value: '5' },
          ],
        },
      },
    });
    expect(response.status).to.equal(422);
    expect((response.body as EngineSchemas['HTTPValidationError']).detail.map((issue) => issue.loc)).to.deep.equal([
      ['query', 'end_time'],
      ['body', 'filter', 'and', 1, 'op'],
    ]);
  });

  it('takes windows reaching past the 64-bit nanosecond range (years 0001 and 9999) as they are', async () => {
    // Stored times are signed 64-bit nanoseconds (years 1677 to 2262); MariaDB's CAST would wrap
    // a bound beyond that to a wrong number, so such a bound is applied as what it means.
    const total = async (start_time: string, end_time: string) => {
      const response = await query({ query: { start_time, end_time } });
      expect(response.status).to.equal(200);
      return response.body.total as number;
    };
    const everything = await total('1970-01-01T00:00:00Z', '2200-01-01T00:00:00Z');
    expect(everything).to.be.greaterThan(25);
    expect(await total('0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z')).to.equal(everything);
    expect(await total('2025-01-01T00:00:00Z', '9999-12-31T23:59:59Z')).to.equal(everything);
    expect(await total('2263-01-01T00:00:00Z', '9999-12-31T23:59:59Z')).to.equal(0);
    expect(await total('0001-01-01T00:00:00Z', '1000-01-01T00:00:00Z')).to.equal(0);
    const traces = await call(app().url, 'POST', '/traces', {
      query: { start_time: '0001-01-01T00:00:00Z', end_time: '9999-12-31T23:59:59Z' },
      headers: caller.headers,
      json: {},
    });
    expect(traces.status).to.equal(200);
    expect(traces.body.pagination.total).to.be.greaterThan(0);
  });

  it('accepts offsets and sub-millisecond fractions in the window', async () => {
    // BASE + 1 ns, written in +02:00: the span exactly at BASE is left out.
    const seconds = Number(BASE / 1_000_000_000n) + 2 * 3600;
    const local = new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', 'T');
    const start_time = `${local}.${((BASE % 1_000_000_000n) + 1n).toString().padStart(9, '0')}+02:00`;
    const body = parseEngineRead('/engine/query', (await query({ query: { start_time, limit: 100 } })).text);
    expect(body.total).to.equal(23);
  });
});
