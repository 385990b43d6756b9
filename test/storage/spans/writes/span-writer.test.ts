// Span storage on every database: idempotent writes, exact nanoseconds, and trace summaries
// that stay right whatever order (and concurrency) the spans arrive in.
import { expect } from 'chai';
import { bigintAsText } from '../../../../src/storage/database.js';
import { FIGURES, rollupDeltas } from '../../../../src/storage/spans/rollups/span-rollups.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { spanRow } from '../../../support/span-rows.js';
import { onEachDatabase } from '../../../support/test-server.js';

onEachDatabase('span writer', (app) => {
  const knex = () => app().server.knex;

  async function summary(traceId: string) {
    return knex()('traces')
      .where({ application_id: 'app_test', trace_id: traceId })
      .select('root_span_id', 'span_name', 'service_name', 'spans_count', 'total_cost', 'duration_ms')
      .select({
        min_start: bigintAsText(knex(), 'min_start_time_unix_nano'),
        root_start: bigintAsText(knex(), 'root_start_time_unix_nano'),
      })
      .first();
  }

  it('keeps 19-digit nanoseconds exact and stores a re-sent span once', async () => {
    const row = spanRow({
      trace_id: 'a'.repeat(32),
      span_id: '1'.repeat(16),
      start_time_unix_nano: '1763800000123456789',
      end_time_unix_nano: '1763800000987654321',
    });
    await storeSpans(knex(), [row]);
    await storeSpans(knex(), [row, row]);
    const stored = await knex()('spans')
      .where({ trace_id: row.trace_id })
      .select({ start: bigintAsText(knex(), 'start_time_unix_nano'), end: bigintAsText(knex(), 'end_time_unix_nano') });
    expect(stored).to.deep.equal([{ start: '1763800000123456789', end: '1763800000987654321' }]);
    expect(await summary(row.trace_id)).to.include({ spans_count: 1, root_span_id: row.span_id });
  });

  it('stores a span repeated within one batch once, as its last row says, in small and large traces', async () => {
    // 3 spans (compared pairwise) and 20 spans (compared through a set), each with one span sent twice.
    for (const [trace, spans] of [
      ['e'.repeat(32), 3],
      ['8'.repeat(32), 20],
    ] as const) {
      const rows = Array.from({ length: spans }, (_, index) =>
        spanRow({ trace_id: trace, span_id: (index + 1).toString(16).padStart(16, '0'), cost: 1 }),
      );
      const again = { ...(rows[1] as (typeof rows)[number]), cost: 5, span_name: 'sent again' };
      await storeSpans(knex(), [...rows, again]);
      const stored = await knex()('spans').where({ trace_id: trace }).select('span_id', 'span_name', 'cost').orderBy('span_id');
      expect(stored, trace).to.have.length(spans);
      expect(stored[1], trace).to.deep.equal({ span_id: again.span_id, span_name: 'sent again', cost: 5 });
      expect(await summary(trace), trace).to.include({ spans_count: spans, total_cost: spans - 1 + 5 });
    }
  });

  it('builds the summary from spans that arrive child first, across batches', async () => {
    const trace = 'b'.repeat(32);
    const child = spanRow({
      trace_id: trace,
      span_id: '2'.repeat(16),
      parent_span_id: '1'.repeat(16),
      start_time_unix_nano: '1763800000000000100',
      end_time_unix_nano: '1763800000050000100',
      cost: 0.25,
      span_name: 'db',
      service_name: 'db',
    });
    await storeSpans(knex(), [child]);
    const beforeRoot = await summary(trace);
    expect(beforeRoot).to.include({ root_span_id: null, spans_count: 1 });
    const server = spanRow({
      trace_id: trace,
      span_id: '3'.repeat(16),
      parent_span_id: '9'.repeat(16),
      span_kind: 'SPAN_KIND_SERVER',
      start_time_unix_nano: '1763800000000000050',
      end_time_unix_nano: '1763800000010000000',
      cost: 1.5,
      span_name: 'server',
      service_name: 'api',
    });
    await storeSpans(knex(), [server]);
    expect(await summary(trace)).to.include({ root_span_id: '3'.repeat(16), span_name: 'server', spans_count: 2 });
    const root = spanRow({
      trace_id: trace,
      span_id: '1'.repeat(16),
      start_time_unix_nano: '1763800000000000000',
      end_time_unix_nano: '1763800000020000000',
      span_name: 'root',
      service_name: 'web',
    });
    await storeSpans(knex(), [root]);
    const complete = await summary(trace);
    expect(complete).to.include({
      root_span_id: '1'.repeat(16),
      span_name: 'root',
      service_name: 'web',
      spans_count: 3,
      min_start: '1763800000000000000',
      root_start: '1763800000000000000',
    });
    expect(complete?.total_cost).to.be.closeTo(1.75, 1e-12);
    // latest end (…050000100) minus earliest start (…000000000), in milliseconds
    expect(complete?.duration_ms).to.be.closeTo(50.0001, 1e-9);
  });

  it('stores a batch larger than one insert statement, and stores it again once', async () => {
    // 1,300 rows: SQLite writes them as 500 + 500 + 300, MariaDB as 1,024 + 256 + 16 + 4.
    const rows = Array.from({ length: 1300 }, (_, index) =>
      spanRow({
        trace_id: (index % 13).toString(16).padStart(32, 'd'),
        span_id: (index + 1).toString(16).padStart(16, '0'),
        parent_span_id: 'f'.repeat(16),
        cost: 0.5,
      }),
    );
    await storeSpans(knex(), rows);
    await storeSpans(knex(), rows);
    const [{ count }] = await knex()('spans')
      .whereIn('trace_id', [...new Set(rows.map((row) => row.trace_id))])
      .count({ count: '*' });
    expect(Number(count)).to.equal(1300);
    expect(await summary('0'.padStart(32, 'd'))).to.include({ spans_count: 100, total_cost: 50 });
  });

  it('refreshes the summaries of a batch touching more traces than one statement holds', async () => {
    const rows = Array.from({ length: 1100 }, (_, index) =>
      spanRow({ trace_id: `7${(index + 1).toString(16).padStart(31, '0')}`, span_id: 'a'.repeat(16), cost: 1 }),
    );
    await storeSpans(knex(), rows);
    const [{ traces, counted }] = await knex()('traces')
      .whereIn(
        'trace_id',
        rows.map((row) => row.trace_id),
      )
      .count({ traces: '*' })
      .sum({ counted: 'spans_count' });
    expect([Number(traces), Number(counted)]).to.deep.equal([1100, 1100]);
    expect(await summary(rows[1099].trace_id)).to.include({ root_span_id: 'a'.repeat(16), spans_count: 1, total_cost: 1 });
  });

  it('keeps every summary equal to one computed from all the spans, whatever the batches, order, re-sends and concurrency', async () => {
    // A seeded generator: the same case on every run.
    let state = 12345;
    const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const kinds = ['SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT'];
    const traces = Array.from({ length: 6 }, (_, index) => `5${index.toString(16).padStart(31, '0')}`);
    const all = Array.from({ length: 240 }, (_, index) => {
      const start = 1_763_800_000_000_000_000n + BigInt(Math.floor(random() * 1e9));
      return spanRow({
        trace_id: traces[index % traces.length],
        span_id: (index + 1).toString(16).padStart(16, '0'),
        parent_span_id: random() < 0.1 ? null : 'f'.repeat(16),
        span_kind: kinds[Math.floor(random() * kinds.length)],
        start_time_unix_nano: start.toString(),
        end_time_unix_nano: (start + BigInt(Math.floor(random() * 1e8))).toString(),
        cost: random() < 0.3 ? null : Math.round(random() * 1000) / 100,
        span_name: `span ${index}`,
      });
    });
    const shuffled = [...all].sort(() => random() - 0.5);
    const batches: (typeof all)[] = [];
    for (let offset = 0; offset < shuffled.length; offset += 17) {
      const batch = shuffled.slice(offset, offset + 17);
      if (offset > 0 && random() < 0.5) batch.push(...batches[batches.length - 1].slice(0, 5)); // re-sent spans
      batches.push(batch);
    }
    for (let offset = 0; offset < batches.length; offset += 4)
      await Promise.all(batches.slice(offset, offset + 4).map((batch) => storeSpans(knex(), batch)));

    for (const traceId of traces) {
      const spans = all.filter((row) => row.trace_id === traceId);
      const earliest = (rows: typeof spans) =>
        [...rows].sort((a, b) =>
          BigInt(a.start_time_unix_nano) < BigInt(b.start_time_unix_nano)
            ? -1
            : BigInt(a.start_time_unix_nano) > BigInt(b.start_time_unix_nano)
              ? 1
              : a.span_id < b.span_id
                ? -1
                : 1,
        )[0];
      const root =
        earliest(spans.filter((row) => row.parent_span_id === null)) ??
        earliest(spans.filter((row) => row.span_kind === 'SPAN_KIND_SERVER'));
      const minStart = spans.reduce(
        (min, row) => (BigInt(row.start_time_unix_nano) < min ? BigInt(row.start_time_unix_nano) : min),
        BigInt(spans[0].start_time_unix_nano),
      );
      const maxEnd = spans.reduce((max, row) => (BigInt(row.end_time_unix_nano) > max ? BigInt(row.end_time_unix_nano) : max), 0n);
      const got = await summary(traceId);
      expect(got, traceId).to.include({
        root_span_id: root?.span_id ?? null,
        span_name: root?.span_name ?? null,
        spans_count: spans.length,
        min_start: minStart.toString(),
      });
      expect(got?.total_cost).to.be.closeTo(
        spans.reduce((sum, row) => sum + (row.cost ?? 0), 0),
        1e-9,
      );
      expect(got?.duration_ms).to.be.closeTo(Number(maxEnd - minStart) / 1e6, 1e-6);
    }
  });

  it('keeps summaries right when many batches of one trace are written at once', async () => {
    const trace = 'c'.repeat(32);
    const batches = Array.from({ length: 8 }, (_, batch) =>
      Array.from({ length: 25 }, (_, index) =>
        spanRow({
          trace_id: trace,
          span_id: (batch * 100 + index + 1).toString(16).padStart(16, '0'),
          parent_span_id: 'f'.repeat(16),
          cost: 1,
        }),
      ),
    );
    await Promise.all(batches.map((rows) => storeSpans(knex(), rows)));
    expect(await summary(trace)).to.include({ spans_count: 200, total_cost: 200 });
  });

  it('keeps the roll-ups equal to those of all the spans at once, through upserts filled up with rows that add nothing', async () => {
    // 13 combinations (span names) per batch: each upsert of 26 rows is filled up to 32, its
    // fillers meeting rows the same statement inserted (the first batch) or found stored (later ones).
    const batches = [0, 1, 2].map((batch) =>
      Array.from({ length: 39 }, (_, index) =>
        spanRow({
          application_id: 'app_rollups',
          trace_id: `${batch}${(index % 5).toString(16)}`.padStart(32, 'e'),
          span_id: `${batch}${index.toString(16)}`.padStart(16, '0'),
          parent_span_id: 'f'.repeat(16),
          span_name: `step ${index % 13}`,
          start_time_unix_nano: String(1763800000000000000n + BigInt(batch * 7 + index) * 1_000_000_000n),
          cost: index % 3 === 0 ? null : (batch + 1) * (index + 0.5),
          usage_amount: index % 4 === 0 ? index - 20 : null,
        }),
      ),
    );
    for (const rows of batches) await storeSpans(knex(), rows);
    const measures = ['span_count', ...FIGURES.flatMap(([name]) => ['count', 'sum', 'min', 'max'].map((part) => `${name}_${part}`))];
    const expected = rollupDeltas(batches.flat()).map((delta) => ({
      width: delta.bucket_width_s,
      start: delta.bucket_start_unix_nano,
      hash: delta.dimensions_hash,
      ...Object.fromEntries(measures.map((column) => [column, delta[column]])),
    }));
    const stored = (await knex()('span_rollups')
      .where({ application_id: 'app_rollups' })
      .orderBy(['bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'])
      .select(
        { width: 'bucket_width_s', start: bigintAsText(knex(), 'bucket_start_unix_nano'), hash: 'dimensions_hash' },
        ...measures,
      )) as Array<Record<string, unknown>>;
    const byKey = (rows: Array<Record<string, unknown>>) =>
      new Map(rows.map((row) => [`${String(row.width)}/${String(row.start)}/${String(row.hash)}`, row]));
    const storedByKey = byKey(stored);
    expect([...storedByKey.keys()].sort()).to.deep.equal([...byKey(expected).keys()].sort());
    for (const [key, row] of byKey(expected)) {
      const found = storedByKey.get(key) as Record<string, unknown>;
      for (const column of measures) {
        const want = row[column] as number | null;
        if (want === null) expect(found[column], `${key} ${column}`).to.equal(null);
        else expect(Number(found[column]), `${key} ${column}`).to.be.closeTo(want, 1e-9 * Math.max(1, Math.abs(want)));
      }
    }
  });
});
