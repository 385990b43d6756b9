// The roll-ups per indexed attribute value behind POST /engine/analytics
// (src/storage/spans/rollups/slot-rollups.ts, slot-rollup-reads.ts) on every database: a request grouped
// by an indexed key is answered from slot_rollups (shown by changing stored rows and seeing the
// answer follow) and equals the reference evaluator's answer; a bucket not counted under the
// slot's current generation (spans stored before the key was indexed, until the backfill's
// rebuild), holding a value the slot does not keep, or below the purge edge is read from the spans;
// re-sent batches and late spans are counted once; an application without indexed keys sends the
// writer no statement more than before.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { parseIndexedAttributes, writtenSlots } from '../../../../src/storage/accounts/indexed-attributes.js';
import { backfillBatch, pendingSlot } from '../../../../src/storage/spans/slots/slot-backfill.js';
import { rebuildSlotRollups } from '../../../../src/storage/spans/rollups/slot-rollups.js';
import { rebuildDerivedData } from '../../../../src/storage/spans/derived/derived-rebuild.js';
import { rollUpStoredSpans } from '../../../../src/storage/migrations/20261128000100_slot_rollups.js';
import { purgeBatch } from '../../../../src/storage/spans/writes/span-purge.js';
import type { SpanRow } from '../../../../src/storage/spans/span-row.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../../../support/auth.js';
import { call } from '../../../support/contract.js';
import { clearSpans, nanosToRfc3339 } from '../../../support/engine-helpers.js';
import { setIndexedPaths, storeWithSlots, withSlotValues } from '../../../support/indexed-slots.js';
import { expectedAnalytics, type AnalyticsBody } from '../../../support/reference-evaluator.js';
import { spanRow } from '../../../support/span-rows.js';
import { statementsDuring } from '../../../support/statements.js';
import { onEachDatabase } from '../../../support/test-server.js';

const MINUTE = 60_000_000_000n;
const HOUR = 60n * MINUTE;
/** On the hour. */
const START = 1_763_798_400_000_000_000n;
const KEY = 'gen_ai.request.model';
const PATH = `span_attributes.${KEY}`;

// [model (undefined: no attribute), offset from START, cost]
type Drawn = [unknown, bigint, number | null];
const SPANS: Drawn[] = [
  ['gpt', 10_000_000_000n, 1],
  ['gpt', 50_000_000_000n, 2],
  ['claude', MINUTE + 5n, 4],
  [undefined, 30_000_000_000n, null],
  ['claude', HOUR + MINUTE, 8],
  ['gpt ', HOUR + 2n * MINUTE, 16],
];

function rows(applicationId: string, drawn: Drawn[] = SPANS, first = 0): SpanRow[] {
  return drawn.map(([model, offset, cost], index) => {
    const start = START + offset;
    const number = first + index + 1;
    return spanRow({
      application_id: applicationId,
      trace_id: `${number}`.padStart(32, '0'),
      span_id: `${number}`.padStart(16, '0'),
      start_time_unix_nano: start.toString(),
      end_time_unix_nano: (start + 5_000_000n).toString(),
      duration_ms: 5,
      cost,
      span_attributes: JSON.stringify(model === undefined ? { other: 'x' } : { [KEY]: model }),
    });
  });
}

const BODY: AnalyticsBody = {
  grain: 'spans',
  group_by: [PATH],
  granularity: 'hour',
  measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }, { fn: 'max', field: 'cost' }],
};

onEachDatabase('POST /engine/analytics from the roll-ups per indexed attribute value', (app) => {
  let caller: EngineCaller;
  const knex = () => app().server.knex;

  before(async () => {
    caller = await engineCaller(app());
  });

  beforeEach(async () => {
    await clearSpans(knex(), caller.appId);
    await knex()('applications').where({ id: caller.appId }).update({ indexed_attributes_state: null });
  });

  async function analytics(body: AnalyticsBody, start = START, end = START + 2n * HOUR): Promise<unknown> {
    const response = await call(app().url, 'POST', '/engine/analytics', {
      query: { start_time: nanosToRfc3339(start), end_time: nanosToRfc3339(end) },
      headers: caller.headers,
      json: body,
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text.replace(/"bucket_start_unix_nano":(-?\d+)/g, '"bucket_start_unix_nano":"$1"')) as {
      groups: unknown;
      other: unknown;
      truncated: boolean;
    };
    return { groups: answer.groups, other: answer.other, truncated: answer.truncated };
  }

  /** What the reference evaluator answers for the stored spans (costs are small integers: sums are exact). */
  function reference(stored: SpanRow[], body: AnalyticsBody, start = START, end = START + 2n * HOUR, widthNs = HOUR): unknown {
    return expectedAnalytics(stored, { startNs: start, endNs: end }, body, widthNs);
  }

  /** The application's indexed attributes as stored. */
  async function state() {
    const row = (await knex()('applications').where({ id: caller.appId }).first('indexed_attributes_state')) as {
      indexed_attributes_state: string;
    };
    return parseIndexedAttributes(row.indexed_attributes_state);
  }

  /** Makes every stored slot_rollups row's max(cost) 1000 (the counts stay, so the buckets still look counted). */
  async function tamper(): Promise<void> {
    await knex()('slot_rollups').where({ application_id: caller.appId }).update({ cost_max: 1000 });
  }

  async function slotRollupSpans(width = 60): Promise<number> {
    const [row] = (await knex()('slot_rollups')
      .where({ application_id: caller.appId, bucket_width_s: width })
      .sum({ n: 'span_count' })) as Array<{ n: number | string | null }>;
    return Number(row?.n ?? 0);
  }

  /** max(cost) of the first group's first point: 1000 when slot_rollups answered after tamper(). */
  function firstMax(answer: unknown): number {
    return ((answer as { groups: Array<{ points: Array<{ values: number[] }> }> }).groups[0]?.points[0]?.values[2] ?? 0) as number;
  }

  it('answers a request grouped by an indexed key from slot_rollups, equal to the reference', async () => {
    const stored = rows(caller.appId);
    await storeWithSlots(knex(), caller.appId, stored, [PATH], 'writer');
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    // A filter on the same key, minute buckets.
    const filtered: AnalyticsBody = {
      ...BODY,
      granularity: 'minute',
      filter: {
        or: [
          { field: PATH, op: 'in', value: ['gpt', 'gpt '] },
          { field: PATH, op: 'not_exists' },
        ],
      },
    };
    expect(await analytics(filtered)).to.deep.equal(reference(stored, filtered, START, START + 2n * HOUR, MINUTE));

    await tamper();
    expect(firstMax(await analytics(BODY))).to.equal(1000);
    // Read from the spans: a percentile, a window not on a minute, a second group key, a filter on another field.
    for (const body of [
      { ...BODY, measures: [...BODY.measures, { fn: 'p50', field: 'cost' }] },
      { ...BODY, group_by: [PATH, 'service_name'] },
      { ...BODY, filter: { field: 'service_name', op: 'exists' } },
    ] as AnalyticsBody[]) {
      expect(firstMax(await analytics(body)), JSON.stringify(body)).to.be.lessThan(1000);
    }
    const ragged = START + 2n * HOUR + 1n;
    expect(await analytics(BODY, START, ragged)).to.deep.equal(reference(stored, BODY, START, ragged));
  });

  it('reads the spans for a bucket holding a value the slot does not keep (a number, a long string)', async () => {
    const stored = rows(caller.appId, [...SPANS, [5, 20_000_000_000n, 32], ['x'.repeat(300), HOUR + 3n * MINUTE, 64]]);
    await storeWithSlots(knex(), caller.appId, stored, [PATH], 'writer');
    await tamper();
    const answer = await analytics(BODY);
    expect(answer).to.deep.equal(reference(stored, BODY));
    expect(JSON.stringify(answer)).to.include('"5"');
  });

  it('counts a key indexed after spans exist only once the backfill rebuilt its hours; the answer is the reference throughout', async () => {
    const before = rows(caller.appId);
    await storeSpans(knex(), before);
    await setIndexedPaths(knex(), caller.appId, [PATH], false);
    // Spans stored while the backfill runs carry the new key's values under its generation.
    const during = rows(caller.appId, [['claude', 20_000_000_000n, 128]], SPANS.length);
    await storeSpans(knex(), withSlotValues(during, [PATH]), { traceSlots: writtenSlots(await state()) });
    const stored = [...before, ...during];
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    const slot = pendingSlot(await state(), Date.now(), 0);
    if (!slot) throw new Error('no pending slot');
    expect(await backfillBatch(knex(), { applicationId: caller.appId, state: await state() }, slot, 3)).to.equal('progressed');
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    while ((await backfillBatch(knex(), { applicationId: caller.appId, state: await state() }, slot, 3)) !== 'ready');
    // Ready, not rebuilt yet: its generation counts 1 of the 7 spans; the spans answer.
    expect(await slotRollupSpans()).to.equal(1);
    await tamper();
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    expect(await rebuildSlotRollups(knex(), caller.appId, slot)).to.equal(2);
    expect(await slotRollupSpans()).to.equal(stored.length);
    expect(await slotRollupSpans(3600)).to.equal(stored.length);
    expect(await rebuildSlotRollups(knex(), caller.appId, slot)).to.equal(0);
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    await tamper();
    expect(firstMax(await analytics(BODY))).to.equal(1000);
  });

  it('leaves a slot still backfilling out of a derived rebuild, so its backfill recomputes the hour from filled columns', async () => {
    const stored = rows(caller.appId);
    await storeSpans(knex(), stored);
    await setIndexedPaths(knex(), caller.appId, [PATH], false);
    // A rebuild of the first hour (npm run rebuild, a re-pricing job) while the slot's column is not filled yet.
    await rebuildDerivedData(knex(), { applicationId: caller.appId, fromNs: START, toNs: START + HOUR });
    expect(await slotRollupSpans(3600)).to.equal(0);
    const slot = pendingSlot(await state(), Date.now(), 0);
    if (!slot) throw new Error('no pending slot');
    while ((await backfillBatch(knex(), { applicationId: caller.appId, state: await state() }, slot, 100)) !== 'ready');
    expect(await rebuildSlotRollups(knex(), caller.appId, slot)).to.equal(2);
    expect(await slotRollupSpans(3600)).to.equal(stored.length);
    expect(await analytics(BODY)).to.deep.equal(reference(stored, BODY));
    // Answered from the rows the backfill computed.
    await tamper();
    expect(firstMax(await analytics(BODY))).to.equal(1000);
  });

  it('counts re-sent batches and late spans once', async () => {
    const all = withSlotValues(rows(caller.appId), [PATH]);
    await setIndexedPaths(knex(), caller.appId, [PATH], true);
    const slots = writtenSlots(
      parseIndexedAttributes(
        (
          (await knex()('applications').where({ id: caller.appId }).first('indexed_attributes_state')) as {
            indexed_attributes_state: string;
          }
        ).indexed_attributes_state,
      ),
    );
    // The second hour first, then everything (the first hour late), then everything again.
    await storeSpans(knex(), all.slice(4), { traceSlots: slots });
    await storeSpans(knex(), all, { traceSlots: slots });
    await storeSpans(knex(), all, { traceSlots: slots });
    expect(await slotRollupSpans()).to.equal(all.length);
    expect(await slotRollupSpans(3600)).to.equal(all.length);
    expect(await analytics(BODY)).to.deep.equal(reference(all, BODY));
    await tamper();
    expect(firstMax(await analytics(BODY))).to.equal(1000);
  });

  it('answers a window reaching below the purge edge from the spans, one at or above it from slot_rollups, and drops the rows below it', async () => {
    const stored = rows(caller.appId);
    await storeWithSlots(knex(), caller.appId, stored, [PATH], 'writer');
    const slotRows = async (below: bigint) => {
      const [{ n }] = (await knex()('slot_rollups')
        .where({ application_id: caller.appId })
        .whereRaw('bucket_start_unix_nano < ?', [Number(below)])
        .count({ n: '*' })) as Array<{ n: number | string }>;
      return Number(n);
    };
    // The span at 0:10 goes; those at 0:30 and 0:50 stay in its minute, which is below the edge now.
    expect((await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + 20_000_000_000n, limit: 100 })).deleted).to.equal(1);
    expect(await slotRows(START + 20_000_000_000n)).to.equal(0);
    await tamper();
    expect(await analytics(BODY)).to.deep.equal(reference(stored.slice(1), BODY));
    // By whole hours: the first hour goes; the second hour is answered from slot_rollups again.
    expect((await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + HOUR, limit: 100 })).deleted).to.equal(3);
    expect(await slotRows(START + HOUR)).to.equal(0);
    const left = stored.slice(4);
    expect(await analytics(BODY)).to.deep.equal(reference(left, BODY));
    expect(firstMax(await analytics(BODY, START + HOUR))).to.equal(1000);
    await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: null, limit: 100 });
    const rest = (await knex()('slot_rollups').where({ application_id: caller.appId }).count({ rows: '*' })) as Array<{
      rows: number | string;
    }>;
    expect(Number(rest[0]?.rows)).to.equal(0);
  });

  it('rolls up the spans stored before its migration (run again here on stored spans)', async () => {
    const stored = rows(caller.appId);
    await storeWithSlots(knex(), caller.appId, stored, [PATH], 'writer');
    const snapshot = async () =>
      knex()('slot_rollups')
        .where({ application_id: caller.appId })
        .orderBy(['bucket_width_s', 'bucket_start_unix_nano', 'value_kind', 'value'])
        .select('*');
    const written = await snapshot();
    await knex()('slot_rollups').where({ application_id: caller.appId }).del();
    await rollUpStoredSpans(knex());
    expect(await snapshot()).to.deep.equal(written);
    await tamper();
    expect(firstMax(await analytics(BODY))).to.equal(1000);
  });

  it('sends no statement more for an application without indexed keys', async () => {
    const counted = async (write: () => Promise<void>) => {
      const statements = await countStatements(knex(), app().database, write);
      return {
        total: statements.length,
        slot: statements.filter((sql) => /slot_rollups|trace_slot_values|span_slot_values/.test(sql)).length,
      };
    };
    const plain = await counted(() => storeSpans(knex(), rows(caller.appId)));
    await clearSpans(knex(), caller.appId);
    const slots = writtenSlots(
      parseIndexedAttributes(
        JSON.stringify({ paths: [PATH], slots: [{ path: PATH, since: 0, ready: true, after_seq: null }, null, null] }),
      ),
    );
    const indexed = await counted(() => storeSpans(knex(), withSlotValues(rows(caller.appId), [PATH]), { traceSlots: slots }));
    expect(plain.slot).to.equal(0);
    expect(indexed.slot).to.be.greaterThan(0);
    // The same statements but the slot tables': the values of the spans and of the traces filed, their times copied, the roll-ups per value.
    expect(indexed.total - indexed.slot).to.equal(plain.total);
  });
});

/** The SQL texts a write sends: Knex's query events (SQLite), or the mysql2 connection's commands (MariaDB). */
async function countStatements(knex: Knex, database: string, write: () => Promise<void>): Promise<string[]> {
  const statements: string[] = [];
  if (database !== 'mysql') {
    return (await statementsDuring(knex, write)).filter((sql) => !/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i.test(sql.trim()));
  }
  type Sender = (sql: unknown, ...rest: unknown[]) => unknown;
  const client = knex.client as { acquireConnection: () => Promise<Record<string, Sender>> };
  const acquire = client.acquireConnection;
  const wrapped: Array<Record<string, Sender>> = [];
  client.acquireConnection = async function (this: unknown) {
    const connection = await acquire.call(client);
    for (const method of ['query', 'execute']) {
      const original = connection[method] as Sender;
      connection[method] = (sql: unknown, ...rest: unknown[]) => {
        const text = typeof sql === 'string' ? sql : String((sql as { sql?: string }).sql);
        if (!/^(SET TRANSACTION|START TRANSACTION|COMMIT|ROLLBACK)/i.test(text.trim())) statements.push(text);
        return original.call(connection, sql, ...rest);
      };
    }
    wrapped.push(connection);
    return connection;
  };
  try {
    await write();
  } finally {
    client.acquireConnection = acquire;
    for (const connection of wrapped) {
      delete connection.query;
      delete connection.execute;
    }
  }
  return statements;
}
