// The rebuild of derived data (src/storage/spans/derived/derived-rebuild.ts, `npm run rebuild`) on
// every database: spans deleted and inserted by hand leave every derived table wrong; after the
// rebuild each one equals, row by row, the tables of a second application that stored the same
// spans through the span writer, whether the rebuild runs as a function, as the script, after an
// interruption, or while spans of the same hours are being stored; and retention followed by a
// rebuild leaves no spend row (hour or day) below the purge edge.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { parseIndexedAttributes, writtenSlots } from '../../../../src/storage/accounts/indexed-attributes.js';
import type { DerivedData } from '../../../../src/storage/spans/derived/derived-data.js';
import { DERIVED_STRUCTURES } from '../../../../src/storage/spans/derived/derived-structures.js';
import { rebuildDerivedData, REBUILD_PROGRESS, type RebuildOptions } from '../../../../src/storage/spans/derived/derived-rebuild.js';
import { foldApplication } from '../../../../src/storage/spans/fold/trace-folding.js';
import type { SpanRow } from '../../../../src/storage/spans/span-row.js';
import { purgeBatch } from '../../../../src/storage/spans/writes/span-purge.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { seedApplication, seedOrganization } from '../../../support/accounts.js';
import { INDEXABLE_PATHS, setIndexedPaths, withSlotValues } from '../../../support/indexed-slots.js';
import { derivedRows } from '../../../support/derived-rows.js';
import { spanRow } from '../../../support/span-rows.js';
import { expectFoldedFiguresMatchSummaries, expectSummariesMatchSpans } from '../../../support/summary-check.js';
import { onEachDatabase, type TestServer } from '../../../support/test-server.js';

const PATHS = INDEXABLE_PATHS(['model']).slice(0, 1);
const HOUR = 3_600_000_000_000n;
const MINUTE = 60_000_000_000n;
/** A whole hour (2025-11-22T08:00:00Z). */
const H0 = 1763798400n * 1_000_000_000n;

/** The spans of the scenario: traces over three hours, some across two, with indexed and unkept model values. */
function scenarioSpans(applicationId: string, salt: string): { kept: SpanRow[]; deleted: SpanRow[]; restored: SpanRow[] } {
  const trace = (name: string) => `${salt}${name}`.padEnd(32, '0');
  const span = (traceName: string, id: number, at: bigint, fields: Omit<Partial<SpanRow>, 'model'> & { model?: unknown } = {}): SpanRow => {
    const { model, ...rest } = fields;
    return spanRow({
      application_id: applicationId,
      trace_id: trace(traceName),
      span_id: id.toString(16).padStart(16, '0'),
      start_time_unix_nano: at.toString(),
      end_time_unix_nano: (at + BigInt(id) * 1_000_000n).toString(),
      cost: (id % 4) * 0.25,
      service_name: id % 2 === 0 ? 'checkout' : 'billing',
      span_name: `op ${id % 3}`,
      status_code: id % 5 === 0 ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_UNSET',
      span_attributes: model === undefined ? null : JSON.stringify({ model }),
      parent_span_id: '00000000000000ff',
      ...rest,
    });
  };
  const root = { parent_span_id: null };
  const kept = [
    // a: across H0 and H1.
    span('a', 1, H0 + 10n * MINUTE, { ...root, model: 'small' }),
    span('a', 2, H0 + 20n * MINUTE, { model: 'large' }),
    // b: in H1, its root deleted below.
    span('b', 5, H1() + 31n * MINUTE, { model: 'small' }),
    span('b', 6, H1() + 32n * MINUTE, { model: 7 }),
    // c: a server span as its root, in H2.
    span('c', 8, H0 + 2n * HOUR + MINUTE, { parent_span_id: '00000000000000aa', span_kind: 'SPAN_KIND_SERVER', model: 'small' }),
    span('c', 9, H0 + 2n * HOUR + 2n * MINUTE),
  ];
  const deleted = [
    span('a', 3, H1() + 5n * MINUTE, { model: 'medium' }),
    span('b', 4, H1() + 30n * MINUTE, { ...root, model: 'large' }),
    // d: gone whole.
    span('d', 10, H0 + 2n * HOUR + 40n * MINUTE, { ...root, model: 'gone' }),
    span('d', 11, H0 + 2n * HOUR + 41n * MINUTE, { model: 'gone' }),
  ];
  const restored = [
    // c gains an earlier span, in H0: its summary moves to H0.
    span('c', 12, H0 + 50n * MINUTE, { model: 'large' }),
    // e: a new trace, in H1 and a later hour than any.
    span('e', 13, H1() + 45n * MINUTE, { ...root, model: 'small' }),
    span('e', 14, H0 + 4n * HOUR + 3n * MINUTE, { model: 'new' }),
  ];
  return { kept, deleted, restored };
}

function H1(): bigint {
  return H0 + HOUR;
}

function runScript(server: TestServer, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/rebuild.ts', ...args], {
    env: { PATH, HOME, DATABASE_URL: server.config.databaseUrl ?? '', DATA_DIR: server.config.dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

onEachDatabase('rebuild of derived data', (app) => {
  const knex = () => app().server.knex;
  let organizationId: string;

  before(async () => {
    organizationId = await seedOrganization(knex(), []);
  });

  /** A new application indexing `model`, ready, and the slots its spans are stored with. */
  async function indexingApplication() {
    const applicationId = await seedApplication(knex(), organizationId);
    await setIndexedPaths(knex(), applicationId, PATHS, true);
    const row = (await knex()('applications').where({ id: applicationId }).first('indexed_attributes_state')) as {
      indexed_attributes_state: string;
    };
    const traceSlots = writtenSlots(parseIndexedAttributes(row.indexed_attributes_state));
    const store = (rows: SpanRow[]) => storeSpans(knex(), withSlotValues(rows, PATHS), { traceSlots });
    return { applicationId, store };
  }

  /**
   * `edited` stores the scenario's spans through the writer, then loses some and gains others by
   * hand; `reference` stores what `edited` holds in the end through the writer. Both are folded.
   */
  async function editedAndReference() {
    const edited = await indexingApplication();
    const reference = await indexingApplication();
    const mine = scenarioSpans(edited.applicationId, 'e');
    const theirs = scenarioSpans(reference.applicationId, 'e');
    await edited.store([...mine.kept, ...mine.deleted]);
    for (const span of mine.deleted)
      await knex()('spans').where({ application_id: edited.applicationId, trace_id: span.trace_id, span_id: span.span_id }).del();
    await knex()('spans').insert(withSlotValues(mine.restored, PATHS));
    await reference.store([...theirs.kept, ...theirs.restored]);
    return { edited: edited.applicationId, reference: reference.applicationId };
  }

  async function folded(applicationId: string) {
    await foldApplication(knex(), applicationId, 100);
    return derivedRows(knex(), applicationId);
  }

  async function expectWrongThenRebuilt(rebuild: (applicationId: string) => Promise<void>) {
    const { edited, reference } = await editedAndReference();
    const wanted = await folded(reference);
    // Wrong before: the spans changed behind the structures' back.
    const before = await folded(edited);
    for (const table of [
      'traces',
      'trace_slot_values',
      'span_slot_values',
      'span_rollups',
      'slot_rollups',
      'spend_rollups',
      'trace_figures',
      'trace_histograms',
    ])
      expect(before[table], `${table} before the rebuild`).not.to.deep.equal(wanted[table]);
    // The spend roll-ups' day rows are compared with the hour rows.
    expect(wanted.spend_rollups?.filter((row) => row.includes('["bucket_width_s",86400]'))).to.have.length.above(0);
    let mismatch: unknown;
    await expectSummariesMatchSpans(knex(), edited).catch((error: unknown) => (mismatch = error));
    expect(mismatch, 'summaries before the rebuild').to.be.an('error');

    await rebuild(edited);
    expect(await folded(edited)).to.deep.equal(wanted);
    await expectSummariesMatchSpans(knex(), edited);
    await expectFoldedFiguresMatchSummaries(knex(), edited);
    expect(await knex()(REBUILD_PROGRESS).select('run_key'), 'progress of finished runs').to.deep.equal([]);
  }

  it('spans deleted and inserted by hand: after the rebuild every derived table equals the one the writer keeps', async () => {
    await expectWrongThenRebuilt(async (applicationId) => {
      const hours: string[] = [];
      const outcome = await rebuildDerivedData(knex(), { applicationId, onHour: ({ startNs }) => void hours.push(startNs.toString()) });
      // From the first hour held to the last, the empty one between included.
      expect(hours).to.deep.equal([0n, 1n, 2n, 3n, 4n].map((hour) => (H0 + hour * HOUR).toString()));
      expect(outcome).to.deep.equal({ hours: 5 });
    });
  });

  it('retention deletes the spend rows below the purge edge, day rows too, and a rebuild after it writes none again', async () => {
    const { applicationId, store } = await indexingApplication();
    const { kept, deleted } = scenarioSpans(applicationId, 'p');
    await store([...kept, ...deleted]);
    const spendRows = async (widthS: number, below: boolean) => {
      const rows = (await knex()('spend_rollups')
        .where({ application_id: applicationId, bucket_width_s: widthS })
        .whereRaw(
          `bucket_start_unix_nano ${below ? '<' : '>='} ${knex().client.config.client === 'mysql2' ? 'CAST(? AS SIGNED)' : 'CAST(? AS INTEGER)'}`,
          [H1().toString()],
        )
        .count({ rows: '*' })) as Array<{ rows: number | string }>;
      return Number(rows[0]?.rows);
    };
    expect(await spendRows(86_400, true), 'the day row before the purge').to.be.above(0);
    // Cut at H1: the day of H0 starts below the edge and straddles it.
    while ((await purgeBatch(knex(), { applicationId, beforeNs: H1(), limit: 2 })).full);
    expect([await spendRows(3600, true), await spendRows(86_400, true)], 'below the edge after the purge').to.deep.equal([0, 0]);
    await rebuildDerivedData(knex(), { applicationId, fromNs: H0, toNs: H0 + 5n * HOUR });
    expect([await spendRows(3600, true), await spendRows(86_400, true)], 'below the edge after the rebuild').to.deep.equal([0, 0]);
    expect(await spendRows(3600, false), 'hour rows above the edge').to.be.above(0);
  });

  it('npm run rebuild does the same, printing a line per hour', async () => {
    await expectWrongThenRebuilt(async (applicationId) => {
      const { code, stdout, stderr } = await runScript(app(), ['--application', applicationId]);
      expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
      expect(stdout).to.include(`${applicationId} 2025-11-22T08:00:00Z: rebuilt`).and.to.include('rebuilt 5 hours');
    });
  });

  it('an interrupted rebuild run again with the same arguments goes on where it stopped and ends the same', async () => {
    await expectWrongThenRebuilt(async (applicationId) => {
      const options: RebuildOptions = { applicationId, fromNs: H0 - 5n * MINUTE, toNs: H0 + 4n * HOUR + MINUTE };
      let done = 0;
      const stopped = await rebuildDerivedData(knex(), {
        ...options,
        onHour: () => {
          done += 1;
          if (done === 2) throw new Error('interrupted');
        },
      }).catch((error: unknown) => error);
      expect(stopped).to.be.an('error').with.property('message', 'interrupted');
      expect(await knex()(REBUILD_PROGRESS).select('application_id')).to.deep.equal([{ application_id: applicationId }]);
      const hours: bigint[] = [];
      const outcome = await rebuildDerivedData(knex(), { ...options, onHour: ({ startNs }) => void hours.push(startNs) });
      // The window rounds out to H0 .. H4 (five hours): the two committed are not done again.
      expect(hours).to.deep.equal([2n, 3n, 4n].map((hour) => H0 + hour * HOUR));
      expect(outcome).to.deep.equal({ hours: 3, resumedAfter: { applicationId, startNs: H0 + HOUR } });
    });
  });

  it('a rebuild while spans of the same hours are stored leaves the roll-ups and summaries exact', async function () {
    this.timeout(120_000);
    const live = await indexingApplication();
    const reference = await indexingApplication();
    const batch = (applicationId: string, round: number) =>
      Array.from({ length: 12 }, (_, index) =>
        spanRow({
          application_id: applicationId,
          trace_id: `f${round % 5}`.padEnd(32, '0'),
          span_id: (round * 100 + index + 1).toString(16).padStart(16, '0'),
          parent_span_id: index === 0 && round < 5 ? null : '00000000000000ff',
          start_time_unix_nano: (H0 + BigInt((round * 7 + index * 13) % 120) * MINUTE).toString(),
          cost: (index % 4) * 0.25,
          // New roll-up rows every round: the rows a rebuild cannot have locked.
          span_name: `op ${round}.${index % 3}`,
          span_attributes: JSON.stringify({ model: `m${round}.${index % 4}` }),
        }),
      );
    for (let round = 0; round < 5; round += 1) {
      await live.store(batch(live.applicationId, round));
      await reference.store(batch(reference.applicationId, round));
    }
    // Wrong by hand, so the rebuild has something to put right.
    await knex()('span_rollups').where({ application_id: live.applicationId }).update({ span_count: 1 });
    // Three writers (each its own rounds) beside rebuilds run back to back until they are done.
    const ROUNDS = 60;
    const WRITERS = 3;
    let writing = true;
    const ingesting = Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let round = 5 + writer; round < ROUNDS; round += WRITERS) await live.store(batch(live.applicationId, round));
      }),
    ).finally(() => (writing = false));
    let passes = 0;
    while (writing) {
      await rebuildDerivedData(knex(), { applicationId: live.applicationId });
      passes += 1;
    }
    await ingesting;
    expect(passes).to.be.above(0);
    for (let round = 5; round < ROUNDS; round += 1) await reference.store(batch(reference.applicationId, round));
    const [got, wanted] = [await folded(live.applicationId), await folded(reference.applicationId)];
    expect(got).to.deep.equal(wanted);
    await expectSummariesMatchSpans(knex(), live.applicationId);
  });

  it('holds back a writer of the hour being rebuilt until it commits', async () => {
    const live = await indexingApplication();
    const reference = await indexingApplication();
    const first = (applicationId: string) => scenarioSpans(applicationId, 'h').kept;
    await live.store(first(live.applicationId));
    await reference.store(first(reference.applicationId));
    const late = (applicationId: string) => [
      spanRow({
        application_id: applicationId,
        trace_id: 'late'.padEnd(32, '0'),
        span_id: '0000000000000001',
        start_time_unix_nano: (H0 + 7n * MINUTE).toString(),
        span_name: 'a name no span had',
        span_attributes: JSON.stringify({ model: 'late' }),
      }),
    ];
    const raced: string[] = [];
    let stored: Promise<void> | undefined;
    // First in the list: runs in the hour's transaction once the hour's spans were read.
    const intruder: DerivedData = {
      name: 'intruder (test)',
      async rebuild({ startNs }) {
        if (startNs !== H0) return;
        stored = live.store(late(live.applicationId));
        raced.push(
          await Promise.race([stored.then(() => 'stored'), new Promise((resolve) => setTimeout(resolve, 500)).then(() => 'held back')]),
        );
      },
    };
    await rebuildDerivedData(knex(), { applicationId: live.applicationId, structures: [intruder, ...DERIVED_STRUCTURES] });
    await stored;
    expect(raced).to.deep.equal(['held back']);
    await reference.store(late(reference.applicationId));
    expect(await folded(live.applicationId)).to.deep.equal(await folded(reference.applicationId));
  });

  it('npm run rebuild refuses bad arguments with one line and exit code 1', async () => {
    for (const [args, message] of [
      [['--from', 'yesterday'], '--from "yesterday" is not an RFC 3339 date-time'],
      [['--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'], '--to must be after --from'],
      [['--structure', 'span rollups'], 'unknown structure "span rollups"'],
      [['--everything'], "Unknown option '--everything'"],
    ] as const) {
      const { code, stdout, stderr } = await runScript(app(), [...args]);
      expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
      expect(stderr.trimEnd().split('\n')).to.have.length(1);
      expect(stderr).to.include(message);
    }
  });
});
