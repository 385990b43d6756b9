// Span storage on every database: idempotent writes, exact nanoseconds, and trace summaries
// that stay right whatever order (and concurrency) the spans arrive in.
import { expect } from 'chai';
import { bigintAsText } from '../../src/storage/database.js';
import { storeSpans } from '../../src/storage/spans/span-writer.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

onEachDatabase('span writer', (app) => {
  const knex = () => app().server.knex;

  async function summary(traceId: string) {
    return knex()('traces')
      .where({ application_id: 'app_test', trace_id: traceId })
      .select('root_span_id', 'span_name', 'service_name', 'spans_count', 'total_cost', 'duration_ms')
      .select({ min_start: bigintAsText(knex(), 'min_start_time_unix_nano'), root_start: bigintAsText(knex(), 'root_start_time_unix_nano') })
      .first();
  }

  it('keeps 19-digit nanoseconds exact and stores a re-sent span once', async () => {
    const row = spanRow({ trace_id: 'a'.repeat(32), span_id: '1'.repeat(16), start_time_unix_nano: '1763800000123456789', end_time_unix_nano: '1763800000987654321' });
    await storeSpans(knex(), [row]);
    await storeSpans(knex(), [row, row]);
    const stored = await knex()('spans').where({ trace_id: row.trace_id }).select({ start: bigintAsText(knex(), 'start_time_unix_nano'), end: bigintAsText(knex(), 'end_time_unix_nano') });
    expect(stored).to.deep.equal([{ start: '1763800000123456789', end: '1763800000987654321' }]);
    expect(await summary(row.trace_id)).to.include({ spans_count: 1, root_span_id: row.span_id });
  });

  it('builds the summary from spans that arrive child first, across batches', async () => {
    const trace = 'b'.repeat(32);
    const child = spanRow({ trace_id: trace, span_id: '2'.repeat(16), parent_span_id: '1'.repeat(16), start_time_unix_nano: '1763800000000000100', end_time_unix_nano: '1763800000050000100', cost: 0.25, span_name: 'db', service_name: 'db' });
    await storeSpans(knex(), [child]);
    const beforeRoot = await summary(trace);
    expect(beforeRoot).to.include({ root_span_id: null, spans_count: 1 });
    const server = spanRow({ trace_id: trace, span_id: '3'.repeat(16), parent_span_id: '9'.repeat(16), span_kind: 'SPAN_KIND_SERVER', start_time_unix_nano: '1763800000000000050', end_time_unix_nano: '1763800000010000000', cost: 1.5, span_name: 'server', service_name: 'api' });
    await storeSpans(knex(), [server]);
    expect(await summary(trace)).to.include({ root_span_id: '3'.repeat(16), span_name: 'server', spans_count: 2 });
    const root = spanRow({ trace_id: trace, span_id: '1'.repeat(16), start_time_unix_nano: '1763800000000000000', end_time_unix_nano: '1763800000020000000', span_name: 'root', service_name: 'web' });
    await storeSpans(knex(), [root]);
    const complete = await summary(trace);
    expect(complete).to.include({ root_span_id: '1'.repeat(16), span_name: 'root', service_name: 'web', spans_count: 3, min_start: '1763800000000000000', root_start: '1763800000000000000' });
    expect(complete?.total_cost).to.be.closeTo(1.75, 1e-12);
    // latest end (…050000100) minus earliest start (…000000000), in milliseconds
    expect(complete?.duration_ms).to.be.closeTo(50.0001, 1e-9);
  });

  it('keeps summaries right when many batches of one trace are written at once', async () => {
    const trace = 'c'.repeat(32);
    const batches = Array.from({ length: 8 }, (_, batch) =>
      Array.from({ length: 25 }, (_, index) =>
        spanRow({ trace_id: trace, span_id: (batch * 100 + index + 1).toString(16).padStart(16, '0'), parent_span_id: 'f'.repeat(16), cost: 1 }),
      ),
    );
    await Promise.all(batches.map((rows) => storeSpans(knex(), rows)));
    expect(await summary(trace)).to.include({ spans_count: 200, total_cost: 200 });
  });
});
