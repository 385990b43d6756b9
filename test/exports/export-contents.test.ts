// Export files on every database (POST /engine/exports, openapi/engine.yaml tag Exports): random
// spans exported as NDJSON and as CSV hold, record by record and in order, exactly what the
// pages of POST /engine/query (grain spans) and POST /traces (grain traces) answer for the same
// window and filter, with every column or a chosen few, batches small enough that a file spans
// many of them; and a request the engine refuses is refused the same way (422s with the same
// `loc`), with the exports' own rules (columns, format, search_child_spans) beside them.
import { expect } from 'chai';
import { recordColumns } from '../../src/exports/columns.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import {
  allPages,
  createExport,
  csvRecords,
  download,
  exportNow,
  ndjsonRecords,
  parquetRecords,
  pick,
  randomSpans,
  storeRandomSpans,
  WINDOW,
} from '../support/exports.js';
import { onEachDatabase } from '../support/test-server.js';

const BATCH_ROWS = 37;

type Case = {
  name: string;
  grain: 'spans' | 'traces';
  filter: unknown;
  columns?: string[];
  searchChildSpans?: boolean;
};

const CASES: Case[] = [
  { name: 'every span', grain: 'spans', filter: null },
  {
    name: 'spans of two services with a route attribute, some columns',
    grain: 'spans',
    filter: {
      and: [
        { field: 'service_name', op: 'in', value: ['checkout', 'search, v2'] },
        { field: 'span_attributes.http.route', op: 'exists' },
      ],
    },
    columns: ['span_start_time_unix_nano', 'trace_id', 'span_id', 'cost', 'span_attributes', 'events', 'status_code'],
  },
  {
    name: 'costly or failed spans',
    grain: 'spans',
    filter: {
      or: [
        { field: 'cost', op: 'gt', value: '0.05' },
        { field: 'status_code', op: 'eq', value: 'STATUS_CODE_ERROR' },
      ],
    },
  },
  { name: 'every trace', grain: 'traces', filter: null },
  {
    name: 'traces whose root is of a service, a few columns',
    grain: 'traces',
    filter: { field: 'service_name', op: 'neq', value: 'billing' },
    columns: ['trace_id', 'min_start_time_unix_nano', 'total_cost', 'spans_count', 'service_name'],
  },
  {
    name: 'traces holding an LLM call span (child-span search) with more than one span',
    grain: 'traces',
    filter: {
      and: [
        { field: 'span_name', op: 'eq', value: 'llm.call' },
        { field: 'trace.spans_count', op: 'gt', value: '1' },
      ],
    },
    searchChildSpans: true,
  },
];

onEachDatabase(
  'export files equal the query pages',
  (app) => {
    let caller: EngineCaller;

    before(async () => {
      caller = await engineCaller(app());
      await storeRandomSpans(app(), randomSpans(caller.appId, 36, 140));
    });

    for (const testCase of CASES) {
      it(`${testCase.name}: NDJSON, CSV and Parquet hold the pages' records in order`, async () => {
        const expected = pick(
          await allPages(
            app(),
            caller,
            testCase.filter,
            testCase.grain === 'traces' ? { searchChildSpans: testCase.searchChildSpans ?? false } : undefined,
          ),
          testCase.columns ?? null,
        );
        expect(expected.length, 'the case selects records').to.be.greaterThan(BATCH_ROWS);
        const body = {
          filter: testCase.filter,
          grain: testCase.grain,
          ...(testCase.columns ? { columns: testCase.columns } : {}),
          ...(testCase.searchChildSpans ? { search_child_spans: true } : {}),
        };
        const ndjson = await exportNow(app(), caller, { ...body, format: 'ndjson' });
        expect(ndjson).to.include({ state: 'succeeded', download_path: `/engine/exports/${ndjson.id}/file` });
        expect(ndjson.progress.rows).to.equal(expected.length);
        const ndjsonFile = await download(app(), caller, ndjson.id);
        expect(ndjsonFile.status).to.equal(200);
        expect(ndjsonFile.headers.get('content-type')).to.equal('application/x-ndjson');
        expect(ndjsonFile.headers.get('content-disposition')).to.equal(`attachment; filename="${ndjson.id}.ndjson"`);
        expect(ndjsonFile.bytes.length).to.equal(ndjson.progress.bytes);
        const lines = ndjsonRecords(ndjsonFile.bytes);
        // Key order too: the columns asked for, or the schema's.
        expect(lines.map((line) => Object.keys(line))).to.deep.equal(expected.map((record) => Object.keys(record)));
        expect(lines).to.deep.equal(expected);

        const csv = await exportNow(app(), caller, { ...body, format: 'csv' });
        expect(csv.state).to.equal('succeeded');
        const csvFile = await download(app(), caller, csv.id);
        expect(csvFile.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
        expect(csvFile.bytes.length).to.equal(csv.progress.bytes);
        const { header, records } = csvRecords(csvFile.bytes, testCase.grain);
        expect(header).to.deep.equal(testCase.columns ?? recordColumns(testCase.grain).map((column) => column.name));
        expect(records).to.deep.equal(expected);

        const parquet = await exportNow(app(), caller, { ...body, format: 'parquet' });
        expect(parquet.state).to.equal('succeeded');
        const parquetFile = await download(app(), caller, parquet.id);
        expect(parquetFile.headers.get('content-type')).to.equal('application/vnd.apache.parquet');
        expect(parquetFile.headers.get('content-disposition')).to.equal(`attachment; filename="${parquet.id}.parquet"`);
        expect(parquetFile.bytes.length).to.equal(parquet.progress.bytes);
        const read = await parquetRecords(parquetFile.bytes, testCase.grain);
        expect(read.header).to.deep.equal(testCase.columns ?? recordColumns(testCase.grain).map((column) => column.name));
        expect(read.records).to.deep.equal(expected);
      });
    }

    it('writes a file of the header alone (CSV) or nothing (NDJSON) when nothing matches', async () => {
      const filter = { field: 'service_name', op: 'eq', value: 'nobody' };
      const ndjson = await exportNow(app(), caller, { filter });
      expect(ndjson).to.deep.include({ state: 'succeeded', progress: { rows: 0, bytes: 0 } });
      const empty = await download(app(), caller, ndjson.id);
      expect([empty.status, empty.bytes.length, empty.headers.get('content-length')]).to.deep.equal([200, 0, '0']);
      const csv = await exportNow(app(), caller, { filter, format: 'csv', columns: ['trace_id', 'span_id'] });
      expect((await download(app(), caller, csv.id)).bytes.toString()).to.equal('trace_id,span_id\r\n');
    });

    it('takes a window reaching past the span times the service stores, as the query does', async () => {
      const wide = { start_time: '0001-01-01T00:00:00Z', end_time: '9999-12-31T23:59:59.999999999Z' };
      const created = await createExport(app(), caller, { grain: 'traces' }, wide);
      expect(created.status, created.text).to.equal(202);
      expect(created.body).to.include({ start_time: '0001-01-01T00:00:00.000Z', end_time: '9999-12-31T23:59:59.999999999Z' });
      await app().server.exporter.runOnce();
      const job = (await call(app().url, 'GET', `/engine/exports/${created.body.id}`, { headers: caller.headers })).body;
      const listed = await call(app().url, 'POST', '/traces', { query: { ...wide, limit: 1 }, headers: caller.headers, json: {} });
      expect(job).to.include({ state: 'succeeded' });
      expect(job.progress.rows).to.equal(listed.body.pagination.total).and.be.greaterThan(0);
    });

    describe('refusals', () => {
      const refusal = async (path: string, query: Record<string, string>, body: unknown) => {
        const response = await call(app().url, 'POST', path, { query, headers: caller.headers, json: body });
        expect(response.status, response.text).to.equal(422);
        return response.body.detail as Array<{ loc: unknown[]; type: string }>;
      };
      const BAD: Array<[string, Record<string, string>, unknown]> = [
        ['an end before the start', { start_time: WINDOW.end_time, end_time: WINDOW.start_time }, { filter: null }],
        ['a start that is no date-time', { start_time: 'yesterday', end_time: WINDOW.end_time }, { filter: null }],
        ['an unknown field', WINDOW, { filter: { field: 'nope', op: 'eq', value: 'x' } }],
        ['a numeric operator on text', WINDOW, { filter: { and: [{ field: 'span_name', op: 'gt', value: '1' }] } }],
        ['a bad node deep in the tree', WINDOW, { filter: { or: [{ and: [{ field: 'cost', op: 'like', value: '1' }] }] } }],
        ['a trace field at grain spans', WINDOW, { filter: { field: 'trace.spans_count', op: 'gt', value: '1' } }],
        ['a regex that could backtrack', WINDOW, { filter: { field: 'span_name', op: 'regex', value: '(a+)+' } }],
      ];
      for (const [name, query, body] of BAD) {
        it(`answers ${name} as POST /engine/query does`, async () => {
          const engine = await refusal('/engine/query', query, body);
          expect(await refusal('/engine/exports', query, body)).to.deep.equal(engine);
        });
      }

      it('answers a bad filter at grain traces as POST /traces does, where trace fields are allowed', async () => {
        const body = { filter: { and: [{ field: 'trace.spans_count', op: 'contains', value: '1' }] } };
        const traces = await refusal('/traces', WINDOW, body);
        expect(await refusal('/engine/exports', WINDOW, { ...body, grain: 'traces' })).to.deep.equal(traces);
        // The trace field itself is fine there.
        const ok = await createExport(app(), caller, { grain: 'traces', filter: { field: 'trace.spans_count', op: 'gt', value: '1' } });
        expect(ok.status, ok.text).to.equal(202);
        await app().server.exporter.runOnce();
      });

      it('refuses unknown and repeated columns at their index and a child-span search of spans, all at once', async () => {
        const detail = await refusal('/engine/exports', WINDOW, {
          columns: ['trace_id', 'nope', 'span_id', 'trace_id', 'spans_count'],
          format: 'parquet',
          search_child_spans: true,
        });
        expect(detail.map((issue) => issue.loc)).to.deep.equal([
          ['body', 'columns', 1],
          ['body', 'columns', 3],
          ['body', 'columns', 4],
          ['body', 'search_child_spans'],
        ]);
        // spans_count is a trace column: fine at grain traces.
        const traces = await refusal('/engine/exports', WINDOW, { grain: 'traces', columns: ['spans_count', 'span_id'] });
        expect(traces.map((issue) => issue.loc)).to.deep.equal([['body', 'columns', 1]]);
        const empty = await refusal('/engine/exports', WINDOW, { columns: [] });
        expect(empty.map((issue) => issue.loc)).to.deep.equal([['body', 'columns']]);
        const unknown = await refusal('/engine/exports', WINDOW, { grain: 'spans', compress: true });
        expect(unknown.map((issue) => issue.loc)).to.deep.include(['body', 'compress']);
        // A filter the schema takes but the engine refuses, and an export problem, are answered together.
        const both = await refusal('/engine/exports', WINDOW, {
          filter: { and: [{ field: 'span_name', op: 'gt', value: '1' }] },
          columns: ['nope'],
        });
        expect(both.map((issue) => issue.loc)).to.deep.equal([
          ['body', 'filter', 'and', 0, 'op'],
          ['body', 'columns', 0],
        ]);
      });
    });
  },
  {
    EXPORT_INTERVAL_SECONDS: '0',
    EXPORT_SETTLE_SECONDS: '0',
    EXPORT_BATCH_ROWS: String(BATCH_ROWS),
    EXPORT_MAX_ACTIVE_PER_ORGANIZATION: '50',
  },
);
