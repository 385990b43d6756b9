// The export formats and columns (src/exports/formats/, src/exports/columns.ts,
// src/exports/records.ts), without a database: the columns are the document's SpanRecord and
// TraceSummary properties in order, with the keys the engine's records have; NDJSON writes each
// record's columns in order with exact integers; CSV keeps null and the empty string apart and
// quotes what RFC 4180 says it must, writes JSON text as it is; batches written one after another make
// the file written at once.
import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { columnType, recordColumns, recordColumnsOf } from '../../src/exports/columns.js';
import { csvFormat } from '../../src/exports/formats/csv.js';
import type { ExportColumn, ExportFormat } from '../../src/exports/formats/format.js';
import { ndjsonFormat } from '../../src/exports/formats/ndjson.js';
import { exportRecord } from '../../src/exports/records.js';
import { spanRecord, traceSummary } from '../../src/engine/wire.js';
import { JsonInteger, RawJson } from '../../src/json/exact-json.js';
import type { StoredSpan } from '../../src/storage/spans/span-store.js';
import { spanRow } from '../support/span-rows.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

const COLUMNS: ExportColumn[] = [
  { name: 'id', type: 'string' },
  { name: 'start_unix_nano', type: 'integer' },
  { name: 'cost', type: 'number' },
  { name: 'ok', type: 'boolean' },
  { name: 'attributes', type: 'json' },
];

const RECORDS: Array<Record<string, unknown>> = [
  { id: 'a,b', start_unix_nano: 1795355100123456789n, cost: 0.1, ok: true, attributes: { big: 9007199254740993n, s: 'x"y' } },
  { id: '', start_unix_nano: '1795355100123456790', cost: null, ok: false, attributes: [1, 'two'] },
  { id: 'line\nbreak', start_unix_nano: null, cost: 1e21, ok: null, attributes: null },
  { id: 'cr\ronly', start_unix_nano: 5n, cost: -0.5, ok: true, attributes: {} },
  // JSON text, as a stored attribute map comes: written as it is, every digit kept.
  { id: 'text', start_unix_nano: 6n, cost: 0, ok: false, attributes: '{"t":1795355101600000000}' },
];

/** A format's whole file, written in batches of `size` records. */
function fileOf(format: ExportFormat, records: Array<Record<string, unknown>>, size: number): string {
  const head = format.head(COLUMNS);
  const chunks = [head.bytes];
  let state = head.state;
  let offset = head.bytes.length;
  for (let at = 0; at < records.length; at += size) {
    const batch = format.batch(COLUMNS, records.slice(at, at + size), state, offset);
    chunks.push(batch.bytes);
    offset += batch.bytes.length;
    state = batch.state;
  }
  chunks.push(format.tail(COLUMNS, state, offset));
  return chunks.map(text).join('');
}

describe('export formats', () => {
  it('NDJSON: one object a line, its columns in order, integers exact, null as null', () => {
    expect(fileOf(ndjsonFormat, RECORDS, 10).split('\n')).to.deep.equal([
      '{"id":"a,b","start_unix_nano":1795355100123456789,"cost":0.1,"ok":true,"attributes":{"big":9007199254740993,"s":"x\\"y"}}',
      '{"id":"","start_unix_nano":1795355100123456790,"cost":null,"ok":false,"attributes":[1,"two"]}',
      '{"id":"line\\nbreak","start_unix_nano":null,"cost":1e+21,"ok":null,"attributes":null}',
      '{"id":"cr\\ronly","start_unix_nano":5,"cost":-0.5,"ok":true,"attributes":{}}',
      '{"id":"text","start_unix_nano":6,"cost":0,"ok":false,"attributes":{"t":1795355101600000000}}',
      '',
    ]);
  });

  it('CSV: a header, CRLF rows, null empty and the empty string quoted, CR and LF quoted, JSON fields as text', () => {
    const file = fileOf(csvFormat, RECORDS, 10);
    expect(file).to.equal(
      'id,start_unix_nano,cost,ok,attributes\r\n' +
        '"a,b",1795355100123456789,0.1,true,"{""big"":9007199254740993,""s"":""x\\""y""}"\r\n' +
        '"",1795355100123456790,,false,"[1,""two""]"\r\n' +
        '"line\nbreak",,1e+21,,\r\n' +
        '"cr\ronly",5,-0.5,true,{}\r\n' +
        'text,6,0,false,"{""t"":1795355101600000000}"\r\n',
    );
    // An RFC 4180 reader reads the same fields back.
    const rows = parseCsv(file) as string[][];
    expect(rows.map((row) => row[0])).to.deep.equal(['id', 'a,b', '', 'line\nbreak', 'cr\ronly', 'text']);
  });

  for (const format of [ndjsonFormat, csvFormat]) {
    it(`${format.name}: batches of any size make the same file`, () => {
      const whole = fileOf(format, RECORDS, RECORDS.length);
      for (const size of [1, 2, 3]) expect(fileOf(format, RECORDS, size), String(size)).to.equal(whole);
    });
  }
});

describe('export columns', () => {
  const stored = (): StoredSpan => {
    // A stored span carries no application or receipt time; spanRecord reads neither.
    const row = spanRow({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) });
    return { ...row, seq: '1', resource_attributes: '{"n":12345678901234567890}', events: '[]' } as unknown as StoredSpan;
  };

  it("are the document's SpanRecord and TraceSummary properties, in order: the keys of the engine's records", () => {
    expect(recordColumns('spans').map((column) => column.name)).to.deep.equal(Object.keys(spanRecord(stored())));
    const summary = traceSummary({
      trace_id: 't',
      span_name: 'n',
      duration_ms: 1,
      spans_count: 2,
      total_cost: 0,
      error_count: 0,
      min_start_time_unix_nano: '1',
      service_name: null,
      unit: null,
      parent_unit: null,
    });
    expect(recordColumns('traces').map((column) => column.name)).to.deep.equal(Object.keys(summary));
  });

  it('are typed by their schemas', () => {
    const types = Object.fromEntries(recordColumns('spans').map((column) => [column.name, column.type]));
    expect(types).to.include({
      trace_id: 'string',
      span_start_time_unix_nano: 'integer',
      duration_ms: 'number',
      parent_span_id: 'string',
      span_kind: 'string',
      resource_attributes: 'json',
      cost: 'number',
      billing: 'json',
      cost_source: 'string',
      status_code: 'string',
      events: 'json',
      dropped_links_count: 'integer',
    });
    expect(Object.fromEntries(recordColumns('traces').map((column) => [column.name, column.type]))).to.include({
      spans_count: 'integer',
      total_cost: 'number',
      min_start_time_unix_nano: 'integer',
    });
  });

  it('refuse a schema without one non-null type', () => {
    const document = { components: { schemas: { R: { properties: { a: { type: ['string', 'number'] } } } } } };
    expect(() => recordColumnsOf(document, 'R')).to.throw('R.a');
    expect(columnType(document, { oneOf: [{ type: 'integer' }, { type: 'null' }] }, 'x')).to.equal('integer');
  });

  it('take the engine record as plain values: integers as bigints, stored JSON as its exact text, built objects as they are', () => {
    const record = exportRecord(spanRecord(stored()), recordColumns('spans'));
    expect(record.span_start_time_unix_nano).to.equal(1763800000123456789n);
    expect(record.resource_attributes).to.equal('{"n":12345678901234567890}');
    expect(record.events).to.equal('[]');
    expect(record.dropped_links_count).to.equal(0n);
    expect(record.billing).to.be.an('object');
    expect(
      exportRecord({ a: new JsonInteger('7'), b: new RawJson('{"x":1}') }, [
        { name: 'a', type: 'integer' },
        { name: 'b', type: 'json' },
      ]),
    ).to.deep.equal({ a: 7n, b: '{"x":1}' });
  });
});
