// The derived-data seam on every database: a structure the writer, the purge and the rebuild have
// never heard of (spans and cost per trace, in a table this test creates) is kept right through
// stored batches, a re-sent batch, purges and a rebuild, given only through the `derived` list;
// and it commits or rolls back with the spans.
import { expect } from 'chai';
import type { DerivedData, DerivedStatements } from '../../../../src/storage/spans/derived/derived-data.js';
import { DERIVED_STRUCTURES } from '../../../../src/storage/spans/derived/derived-structures.js';
import { rebuildDerivedData } from '../../../../src/storage/spans/derived/derived-rebuild.js';
import { purgeBatch } from '../../../../src/storage/spans/writes/span-purge.js';
import { groupBy } from '../../../../src/storage/spans/span-row.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { spanRow } from '../../../support/span-rows.js';
import { onEachDatabase } from '../../../support/test-server.js';

const TABLE = 'test_trace_span_counts';
const START = 1763800000000000000n;
const SECOND = 1_000_000_000n;

/** Adds `spans` and `cost` to each trace's row, creating it, and drops the rows left with no span. */
async function addCounts(
  { db, run }: DerivedStatements,
  applicationId: string,
  perTrace: Map<string, { spans: number; cost: number }>,
): Promise<void> {
  for (const [traceId, { spans, cost }] of perTrace) {
    const key = { application_id: applicationId, trace_id: traceId };
    const found = await run<unknown[]>(db(TABLE).where(key).select('spans'));
    if (found.length === 0) await run(db(TABLE).insert({ ...key, spans, cost }));
    else
      await run(
        db(TABLE)
          .where(key)
          .update({ spans: db.raw('spans + ?', [spans]), cost: db.raw('cost + ?', [cost]) }),
      );
  }
  await run(db(TABLE).where({ application_id: applicationId, spans: 0 }).del());
}

function perTrace(spans: ReadonlyArray<{ trace_id: string; cost?: unknown }>, sign: 1 | -1): Map<string, { spans: number; cost: number }> {
  const totals = new Map<string, { spans: number; cost: number }>();
  for (const span of spans) {
    const total = totals.get(span.trace_id) ?? { spans: 0, cost: 0 };
    total.spans += sign;
    total.cost += sign * Number(span.cost ?? 0);
    totals.set(span.trace_id, total);
  }
  return totals;
}

const spanCounts: DerivedData = {
  name: 'span counts per trace (test)',
  async onStored({ fresh }, statements) {
    for (const [applicationId, rows] of groupBy(fresh, (row) => row.application_id))
      await addCounts(statements, applicationId, perTrace(rows, 1));
  },
  deletedColumns: () => ['cost'],
  async onDeleted({ applicationId, spans }, statements) {
    await addCounts(statements, applicationId, perTrace(spans, -1));
  },
  // The hour's traces counted anew from all their spans.
  async rebuild({ applicationId, traceIds }, { db, run }) {
    if (traceIds.length === 0) return;
    await run(db(TABLE).where('application_id', applicationId).whereIn('trace_id', traceIds).del());
    const counted = await run<Array<{ trace_id: string; spans: unknown; cost: unknown }>>(
      db('spans')
        .where('application_id', applicationId)
        .whereIn('trace_id', traceIds)
        .select('trace_id')
        .count({ spans: '*' })
        .sum({ cost: 'cost' })
        .groupBy('trace_id'),
    );
    const rows = counted.map((row) => ({
      application_id: applicationId,
      trace_id: row.trace_id,
      spans: Number(row.spans),
      cost: Number(row.cost),
    }));
    if (rows.length > 0) await run(db(TABLE).insert(rows));
  },
};

const failing = (hook: 'onStored' | 'onDeleted'): DerivedData => ({
  name: 'failing (test)',
  [hook]: async () => {
    throw new Error(`${hook} failed`);
  },
});

onEachDatabase('derived-data seam', (app) => {
  const knex = () => app().server.knex;
  const APP = 'app_seam';
  const derived = [...DERIVED_STRUCTURES, spanCounts];

  // Dropped with the test database.
  before(async () => {
    await knex().schema.createTable(TABLE, (table) => {
      table.string('application_id', 64).notNullable();
      table.string('trace_id', 32).notNullable();
      table.integer('spans').notNullable();
      table.integer('cost').notNullable();
      table.primary(['application_id', 'trace_id']);
    });
  });

  const row = (trace: string, span: number, seconds: bigint, cost: number) =>
    spanRow({
      application_id: APP,
      trace_id: trace.repeat(32),
      span_id: span.toString(16).padStart(16, '0'),
      start_time_unix_nano: (START + seconds * SECOND).toString(),
      cost,
    });

  async function kept() {
    const rows = (await knex()(TABLE).where({ application_id: APP }).select('trace_id', 'spans', 'cost').orderBy('trace_id')) as Array<{
      trace_id: string;
      spans: unknown;
      cost: unknown;
    }>;
    return rows.map((found) => ({ trace_id: found.trace_id, spans: Number(found.spans), cost: Number(found.cost) }));
  }

  async function fromSpans() {
    const rows = (await knex()('spans')
      .where({ application_id: APP })
      .select('trace_id')
      .count({ spans: '*' })
      .sum({ cost: 'cost' })
      .groupBy('trace_id')
      .orderBy('trace_id')) as Array<{ trace_id: string; spans: unknown; cost: unknown }>;
    return rows.map((found) => ({ trace_id: found.trace_id, spans: Number(found.spans), cost: Number(found.cost) }));
  }

  it('keeps a structure given only through the list right through stores, a re-sent batch and purges', async () => {
    const first = [row('a', 1, 0n, 1), row('a', 2, 10n, 2), row('b', 3, 20n, 4)];
    await storeSpans(knex(), first, { derived });
    // Re-sent with one span more: only the new span is handed on (the others are stored already).
    await storeSpans(knex(), [...first, row('b', 4, 30n, 8), row('c', 5, 40n, 16)], { derived });
    expect(await kept()).to.deep.equal([
      { trace_id: 'a'.repeat(32), spans: 2, cost: 3 },
      { trace_id: 'b'.repeat(32), spans: 2, cost: 12 },
      { trace_id: 'c'.repeat(32), spans: 1, cost: 16 },
    ]);
    expect(await kept()).to.deep.equal(await fromSpans());
    // The structures of the list keep working beside it.
    expect(await knex()('traces').where({ application_id: APP }).sum({ spans: 'spans_count' }).first()).to.satisfy(
      (sum: { spans: unknown }) => Number(sum.spans) === 5,
    );

    // Two spans at a time, up to 25 s: trace a goes, trace b loses a span.
    while ((await purgeBatch(knex(), { applicationId: APP, beforeNs: START + 25n * SECOND, limit: 2 }, derived)).full);
    expect(await kept()).to.deep.equal([
      { trace_id: 'b'.repeat(32), spans: 1, cost: 8 },
      { trace_id: 'c'.repeat(32), spans: 1, cost: 16 },
    ]);
    expect(await kept()).to.deep.equal(await fromSpans());

    await purgeBatch(knex(), { applicationId: APP, beforeNs: null, limit: 100 }, derived);
    expect(await kept()).to.deep.equal([]);
  });

  it('rebuilds a structure given only through the list from the spans, after spans changed by hand', async () => {
    await storeSpans(knex(), [row('f', 8, 0n, 1), row('f', 9, 4000n, 2), row('g', 10, 10n, 4)], { derived });
    await knex()('spans')
      .where({ application_id: APP, span_id: row('f', 9, 0n, 0).span_id })
      .del();
    await knex()(TABLE).where({ application_id: APP }).update({ spans: 99 });
    expect(await kept()).not.to.deep.equal(await fromSpans());

    await rebuildDerivedData(knex(), { applicationId: APP, structures: derived });
    expect(await kept()).to.deep.equal(await fromSpans());
    expect(await kept()).to.deep.equal([
      { trace_id: 'f'.repeat(32), spans: 1, cost: 1 },
      { trace_id: 'g'.repeat(32), spans: 1, cost: 4 },
    ]);
    await purgeBatch(knex(), { applicationId: APP, beforeNs: null, limit: 100 }, derived);
  });

  it('commits or rolls back with the spans: a hook that fails leaves the spans as they were', async () => {
    const rows = [row('d', 6, 0n, 1), row('e', 7, 10n, 2)];
    let refused: unknown;
    await storeSpans(knex(), rows, { derived: [...derived, failing('onStored')] }).catch((error: unknown) => (refused = error));
    expect(refused).to.be.an('error').with.property('message', 'onStored failed');
    expect(await fromSpans()).to.deep.equal([]);
    expect(await kept()).to.deep.equal([]);

    await storeSpans(knex(), rows, { derived });
    refused = undefined;
    await purgeBatch(knex(), { applicationId: APP, beforeNs: null, limit: 100 }, [...derived, failing('onDeleted')]).catch(
      (error: unknown) => (refused = error),
    );
    expect(refused).to.be.an('error').with.property('message', 'onDeleted failed');
    expect(await fromSpans()).to.have.length(2);
    expect(await kept()).to.deep.equal(await fromSpans());
    await purgeBatch(knex(), { applicationId: APP, beforeNs: null, limit: 100 }, derived);
  });
});
