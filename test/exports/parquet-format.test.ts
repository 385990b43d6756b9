// The Parquet format of exports: files written head, batches, tail are read back by an
// independent reader (hyparquet) as the records they were given, and a state stored as JSON
// after any batch continues to the same bytes.
import { expect } from 'chai';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { ExportColumn } from '../../src/exports/formats/format.js';
import { parquetFormat } from '../../src/exports/parquet/parquet-format.js';

type ExportRecord = Record<string, unknown>;

const COLUMNS: ExportColumn[] = [
  { name: 'span_id', type: 'string' },
  { name: 'span_start_time_unix_nano', type: 'integer' },
  { name: 'duration_ms', type: 'number' },
  { name: 'is_root', type: 'boolean' },
  { name: 'span_attributes', type: 'json' },
  { name: 'events', type: 'json' },
];

/** Nanosecond times past 2^53: a double would round every one of them. */
const NANOS = 1_763_800_000_123_456_789n;

function record(index: number): ExportRecord {
  return {
    span_id: `${index.toString(16).padStart(16, '0')}`,
    // given as bigint and as decimal text by turns: the interface allows both
    span_start_time_unix_nano: index % 2 === 0 ? NANOS + BigInt(index) : String(NANOS + BigInt(index)),
    duration_ms: index % 5 === 0 ? null : index * 0.125 - 3,
    is_root: index % 3 === 0 ? null : index % 3 === 1,
    span_attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': index, nested: { list: [1, 'two', null] } },
    events: index % 4 === 0 ? null : [{ name: 'gen_ai.choice', attributes: { index } }],
  };
}

/** Records that exercise what a writer gets wrong: nulls in every column, a missing key, unicode, edge numbers. */
const ODD_RECORDS: ExportRecord[] = [
  {
    span_id: 'ünïcödé 🚀 \u2028 漢字 e\u0301',
    span_start_time_unix_nano: 9_223_372_036_854_775_807n,
    duration_ms: 1e300,
    is_root: false,
    span_attributes: {},
    events: [],
  },
  {
    span_id: null,
    span_start_time_unix_nano: null,
    duration_ms: null,
    is_root: null,
    span_attributes: null,
    events: null,
  },
  // a record without some keys: those columns are null
  { span_id: '', span_start_time_unix_nano: '-9223372036854775808', duration_ms: -0.5 },
];

/** What the reader should give back for a record: integers as bigints, JSON columns as their values. */
function expected(columns: readonly ExportColumn[], source: ExportRecord): ExportRecord {
  return Object.fromEntries(
    columns.map(({ name, type }) => {
      const value = source[name] ?? null;
      return [name, value !== null && type === 'integer' ? BigInt(value as string) : value];
    }),
  );
}

/** A reader's row with its JSON columns parsed. */
function parsed(columns: readonly ExportColumn[], row: ExportRecord): ExportRecord {
  return Object.fromEntries(
    columns.map(({ name, type }) => {
      const value = row[name];
      return [name, type === 'json' && typeof value === 'string' ? JSON.parse(value) : value];
    }),
  );
}

interface Written {
  file: Buffer;
  /** The state after each batch as the format returned it, and as the job would store it. */
  states: unknown[];
  stored: string[];
}

/**
 * Writes the file as the export job does. A batch k in `resumeAfter` continues, as a fresh process
 * would, from the state of batch k stored as JSON text; the others get the state object itself.
 */
function write(columns: readonly ExportColumn[], batches: ExportRecord[][], resumeAfter: number[] = []): Written {
  const head = parquetFormat.head(columns);
  const parts = [Buffer.from(head.bytes)];
  let state = head.state;
  let offset = head.bytes.length;
  const states: unknown[] = [];
  const stored: string[] = [];
  batches.forEach((records, k) => {
    const written = parquetFormat.batch(columns, records, state, offset);
    parts.push(Buffer.from(written.bytes));
    offset += written.bytes.length;
    states.push(written.state);
    stored.push(JSON.stringify(written.state));
    state = resumeAfter.includes(k) ? JSON.parse(stored[k]) : written.state;
  });
  parts.push(Buffer.from(parquetFormat.tail(columns, state, offset)));
  return { file: Buffer.concat(parts), states, stored };
}

function arrayBuffer(file: Buffer): ArrayBuffer {
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.length) as ArrayBuffer;
}

async function read(columns: readonly ExportColumn[], file: Buffer): Promise<ExportRecord[]> {
  const rows = (await parquetReadObjects({ file: arrayBuffer(file), compressors })) as ExportRecord[];
  return rows.map((row) => parsed(columns, row));
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, index) => record(from + index));

describe('the Parquet export format', () => {
  const batches = [range(0, 7), [], ODD_RECORDS, range(7, 1), range(8, 300)];
  const all = batches.flat();

  it('writes a file that a reader gives back as the records, batch after batch', async () => {
    const { file } = write(COLUMNS, batches);
    expect(file.subarray(0, 4).toString('latin1')).to.equal('PAR1');
    expect(file.subarray(-4).toString('latin1')).to.equal('PAR1');
    const rows = await read(COLUMNS, file);
    expect(rows).to.have.length(all.length);
    rows.forEach((row, index) => expect(row, `row ${index}`).to.deep.equal(expected(COLUMNS, all[index])));
  });

  it('keeps 19-digit integers to the digit', async () => {
    const rows = await read(COLUMNS, write(COLUMNS, batches).file);
    expect(rows.map((row) => String(row.span_start_time_unix_nano))).to.include.members([
      '1763800000123456789',
      '1763800000123457096',
      '9223372036854775807',
      '-9223372036854775808',
    ]);
  });

  it('types the columns and makes every one of them nullable', () => {
    const { schema, row_groups: rowGroups } = parquetMetadata(arrayBuffer(write(COLUMNS, batches).file));
    expect(
      schema.slice(1).map(({ name, type, converted_type: converted, repetition_type: repetition }) => [name, type, converted, repetition]),
    ).to.deep.equal([
      ['span_id', 'BYTE_ARRAY', 'UTF8', 'OPTIONAL'],
      ['span_start_time_unix_nano', 'INT64', undefined, 'OPTIONAL'],
      ['duration_ms', 'DOUBLE', undefined, 'OPTIONAL'],
      ['is_root', 'BOOLEAN', undefined, 'OPTIONAL'],
      ['span_attributes', 'BYTE_ARRAY', 'UTF8', 'OPTIONAL'],
      ['events', 'BYTE_ARRAY', 'UTF8', 'OPTIONAL'],
    ]);
    expect(new Set(rowGroups.flatMap((group) => group.columns.map((column) => column.meta_data?.codec)))).to.deep.equal(new Set(['GZIP']));
  });

  it('writes one row group per batch that has records, with its own counts and bounds in the footer', () => {
    const { row_groups: rowGroups, num_rows: rows } = parquetMetadata(arrayBuffer(write(COLUMNS, batches).file));
    const written = batches.filter((records) => records.length > 0);
    expect(rows).to.equal(BigInt(all.length));
    expect(rowGroups.map((group) => group.num_rows)).to.deep.equal(written.map((records) => BigInt(records.length)));
    rowGroups.forEach((group, index) => {
      const times = written[index]
        .map((each) => each.span_start_time_unix_nano)
        .filter((time) => time != null)
        .map((time) => BigInt(time as string));
      const statistics = group.columns[1].meta_data?.statistics;
      expect(statistics?.min_value, `group ${index} min`).to.equal(times.reduce((a, b) => (b < a ? b : a)));
      expect(statistics?.max_value, `group ${index} max`).to.equal(times.reduce((a, b) => (b > a ? b : a)));
      expect(statistics?.null_count, `group ${index} nulls`).to.equal(BigInt(written[index].length - times.length));
    });
  });

  it('writes a file of one row', async () => {
    const rows = await read(COLUMNS, write(COLUMNS, [[record(42)]]).file);
    expect(rows).to.deep.equal([expected(COLUMNS, record(42))]);
  });

  it('writes a readable file of no rows, with or without empty batches', async () => {
    for (const empty of [[], [[], []]]) {
      const { file } = write(COLUMNS, empty);
      expect(await read(COLUMNS, file)).to.deep.equal([]);
      expect(parquetMetadata(arrayBuffer(file)).schema).to.have.length(COLUMNS.length + 1);
    }
  });

  it('writes a subset of the columns in another order', async () => {
    const subset: ExportColumn[] = [COLUMNS[4], COLUMNS[1], COLUMNS[0]];
    const { file } = write(subset, batches);
    expect(
      parquetMetadata(arrayBuffer(file))
        .schema.slice(1)
        .map((element) => element.name),
    ).to.deep.equal(['span_attributes', 'span_start_time_unix_nano', 'span_id']);
    const rows = await read(subset, file);
    rows.forEach((row, index) => expect(row, `row ${index}`).to.deep.equal(expected(subset, all[index])));
  });

  it('keeps JSON text it is given as text exactly, big integers included', async () => {
    const text = '{"big":123456789012345678901234567890,"s":"x"}';
    const rows = (await parquetReadObjects({
      file: arrayBuffer(write(COLUMNS, [[{ span_attributes: text }]]).file),
      compressors,
    })) as ExportRecord[];
    expect(rows[0].span_attributes).to.equal(text);
  });

  describe('resuming', () => {
    let uninterrupted: Written;
    before(() => {
      uninterrupted = write(COLUMNS, batches);
    });

    for (let k = 0; k < batches.length; k += 1) {
      it(`continues from the state stored after batch ${k} to the same bytes`, () => {
        const resumed = write(COLUMNS, batches, [k]);
        expect(resumed.file.equals(uninterrupted.file)).to.equal(true);
      });
    }

    it('returns states that are plain JSON, growing by one string per row group', () => {
      const states = uninterrupted.stored.map((text) => JSON.parse(text));
      expect(states).to.deep.equal(uninterrupted.states);
      expect(states.map((state) => state.row_groups.length)).to.deep.equal([1, 1, 2, 3, 4]);
      expect(states.flatMap((state) => state.row_groups).every((group: unknown) => typeof group === 'string')).to.equal(true);
      // the earlier row groups are carried as they were
      expect(states[4].row_groups.slice(0, 3)).to.deep.equal(states[3].row_groups);
    });

    it('refuses a state for other columns or another offset rather than writing a broken file', () => {
      const head = parquetFormat.head(COLUMNS);
      const first = parquetFormat.batch(COLUMNS, range(0, 3), head.state, head.bytes.length);
      const offset = head.bytes.length + first.bytes.length;
      expect(() => parquetFormat.batch(COLUMNS.slice(1), range(3, 1), first.state, offset)).to.throw(/other columns/);
      expect(() => parquetFormat.tail(COLUMNS, first.state, offset - 1)).to.throw(/continues the file at byte/);
      expect(() => parquetFormat.tail(COLUMNS, { version: 0 }, offset)).to.throw(/not a parquet export state/);
    });
  });

  it('refuses a value of another type than its column, naming the column', () => {
    const head = parquetFormat.head(COLUMNS);
    const cases: Array<[string, unknown]> = [
      ['span_start_time_unix_nano', 1.5],
      ['span_start_time_unix_nano', '12e3'],
      ['duration_ms', '3'],
      ['is_root', 1],
      ['span_id', 7],
      ['events', 3],
    ];
    for (const [column, value] of cases)
      expect(
        () => parquetFormat.batch(COLUMNS, [{ [column]: value }], head.state, head.bytes.length),
        `${column} = ${String(value)}`,
      ).to.throw(TypeError, column);
  });
});
