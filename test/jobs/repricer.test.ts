// Re-pricing jobs (src/jobs/repricer.ts, src/storage/repricing/) on every database, through the
// real app: two applications of one owner receive the same GenAI spans over HTTP (known and
// unknown models of both conventions, reported costs, calls the book cannot price); the first
// then has its stored costs made wrong as an older price would have left them (computed costs of
// another book version, and calls an older book did not know), with its derived data rebuilt to
// match. A job over the window must give the first application exactly the second's spans,
// derived tables, trace list, trace metrics and analytics, never touch a reported cost, and do so
// while spans keep arriving in both, after an instance dies mid-way and its lease expires, and
// after a worker stops mid-way. A job cancelled mid-hour still leaves that hour exact.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { createLogger } from '../../src/logger.js';
import { pricerOf, Repricer } from '../../src/jobs/repricer.js';
import { claimRepricingJob, readLeasedJob } from '../../src/storage/repricing/repricing-jobs.js';
import { advanceToHour, nextRepricedHour, repriceBatch } from '../../src/storage/repricing/span-repricing.js';
import { rebuildDerivedData } from '../../src/storage/spans/derived/derived-rebuild.js';
import { foldApplication } from '../../src/storage/spans/fold/trace-folding.js';
import { call } from '../support/contract.js';
import { derivedRows, expectSameDerivedRows } from '../support/derived-rows.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { llmCallAttributes } from '../support/llm-calls.js';
import { createApiKey, createApplication, expectStatus, keyToken, ownerWithApplication, type Caller } from '../support/management.js';
import { expectSummariesMatchSpans } from '../support/summary-check.js';
import { onEachDatabase } from '../support/test-server.js';

const HOUR = 3_600_000_000_000n;
const MINUTE = 60_000_000_000n;
/** A whole hour: 2026-11-22T13:00:00Z. */
const H0 = 1_795_352_400n * 1_000_000_000n;
/** The window re-priced: four hours from H0, every span of the workload. */
const WINDOW = { from: nanosToRfc3339(H0), to: nanosToRfc3339(H0 + 4n * HOUR) };
const READ_WINDOW = { start_time: WINDOW.from, end_time: WINDOW.to };
const BATCH = 4;
/** Rounds of traces each application receives first. */
const ROUNDS = 4;

/** LLM calls of both conventions, the same every run. */
const CALLS = fc.sample(llmCallAttributes, { seed: 33, numRuns: 240 });
const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

type OtlpValue = { stringValue: string } | { intValue: string } | { doubleValue: number };

function otlpValue(value: string | number): OtlpValue {
  if (typeof value === 'string') return { stringValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/**
 * One round of traces: a server span each and four LLM calls, 25 minutes apart (so traces cross
 * hours), every seventh call with a reported `vendor.cost`. A round holds new traces and spans of
 * earlier rounds' traces alike (its trace ids repeat every 3 rounds).
 */
function round(index: number, traces = 6) {
  const spans = [];
  for (let trace = 0; trace < traces; trace += 1) {
    const traceId = hex((index % 3) * 100 + trace + 1, 32);
    const rootStart = H0 + BigInt((index * 7 + trace * 13) % 150) * MINUTE;
    const rootId = hex(index * 1000 + trace * 10 + 1, 16);
    const at = (start: bigint) => ({ startTimeUnixNano: start.toString(), endTimeUnixNano: (start + 2_000_000_000n).toString() });
    spans.push({ traceId, spanId: rootId, name: 'request', kind: 2, ...at(rootStart), attributes: [] as unknown[] });
    for (let call = 0; call < 4; call += 1) {
      const drawn = (index * 24 + trace * 4 + call) % CALLS.length;
      const attributes: Record<string, string | number> = { ...CALLS[drawn] };
      if (drawn % 7 === 0) attributes['vendor.cost'] = 0.25;
      spans.push({
        traceId,
        spanId: hex(index * 1000 + trace * 10 + call + 2, 16),
        parentSpanId: rootId,
        name: `call ${call}`,
        kind: 3,
        ...at(rootStart + BigInt(call * 25) * MINUTE + 1_000_000n),
        attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValue(value) })),
      });
    }
  }
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'assistant' } }] },
        scopeSpans: [{ scope: { name: 't' }, spans }],
      },
    ],
  };
}

interface Owner {
  as: Caller;
  orgId: string;
}

interface Target {
  appId: string;
  headers: Record<string, string>;
}

/** The columns a job may change, per span, in key order. */
async function costs(knex: Knex, applicationId: string) {
  return knex('spans')
    .where('application_id', applicationId)
    .orderBy(['trace_id', 'span_id'])
    .select('trace_id', 'span_id', 'cost', 'cost_source', 'price_model', 'price_provider', 'price_book', 'unpriced_reason');
}

/** The spans a job prices again: computed, or unpriced for a reason a price may change. */
async function candidates(knex: Knex, applicationId: string): Promise<number> {
  const [{ count }] = (await knex('spans')
    .where('application_id', applicationId)
    .where((priced) => priced.where('cost_source', 'computed').orWhere('unpriced_reason', 'unknown_model'))
    .count({ count: '*' })) as Array<{ count: number | string }>;
  return Number(count);
}

/** `actual` must equal `wanted`, numbers within 1e-12 of the larger: sums over spans added up in another order differ in their last bits. */
function expectClose(actual: unknown, wanted: unknown, where = 'answer'): void {
  if (typeof actual === 'number' && typeof wanted === 'number') {
    const tolerance = 1e-12 * Math.max(1, Math.abs(actual), Math.abs(wanted));
    expect(Math.abs(actual - wanted) <= tolerance, `${where}: ${actual} against ${wanted}`).to.equal(true);
  } else if (Array.isArray(actual) && Array.isArray(wanted)) {
    expect(actual.length, `${where}: length`).to.equal(wanted.length);
    actual.forEach((item, index) => expectClose(item, wanted[index], `${where}[${index}]`));
  } else if (actual && wanted && typeof actual === 'object' && typeof wanted === 'object') {
    expect(Object.keys(actual).sort(), `${where}: keys`).to.deep.equal(Object.keys(wanted).sort());
    for (const [key, value] of Object.entries(actual)) expectClose(value, (wanted as Record<string, unknown>)[key], `${where}.${key}`);
  } else expect(actual, where).to.deep.equal(wanted);
}

onEachDatabase(
  're-pricing jobs',
  (app) => {
    const knex = () => app().server.knex;
    let owner: Owner;
    let as: Caller;

    before(async () => {
      owner = await ownerWithApplication(app());
      as = owner.as;
    });

    async function target(of: Owner = owner): Promise<Target> {
      const appId = await createApplication(of.as, of.orgId);
      const key = await createApiKey(of.as, appId, ['read:traces', 'write:traces']);
      return { appId, headers: { authorization: `Bearer ${await keyToken(app(), key.apiKey, key.secret)}`, 'x-vendor-app-id': appId } };
    }

    async function ingest(to: Target, index: number): Promise<void> {
      const response = await call(app().url, 'POST', '/v1/traces', { headers: to.headers, json: round(index) });
      expect(response.status, response.text).to.equal(200);
      expect(response.body.partialSuccess ?? {}, response.text).not.to.have.property('rejectedSpans');
    }

    /**
     * `repriced` and `reference` holding the same rounds (`between` runs after `repriced` stored
     * them and before `reference` does); then `repriced`'s costs made wrong as an older book would
     * have left them (computed with other prices, gpt-4o-mini not known at all), and its derived
     * data rebuilt from those spans.
     */
    async function wrongAndReference({ of = owner, between }: { of?: Owner; between?: () => Promise<void> } = {}) {
      const repriced = await target(of);
      const reference = await target(of);
      for (let index = 0; index < ROUNDS; index += 1) await ingest(repriced, index);
      await between?.();
      for (let index = 0; index < ROUNDS; index += 1) await ingest(reference, index);
      const spans = () => knex()('spans').where('application_id', repriced.appId);
      const unknown = await spans().clone().where({ cost_source: 'computed', model: 'gpt-4o-mini' }).update({
        cost: null,
        cost_source: null,
        price_model: null,
        price_provider: null,
        price_book: null,
        price_entry_id: null,
        price_currency: null,
        unpriced_reason: 'unknown_model',
      });
      const older = await spans()
        .clone()
        .where({ cost_source: 'computed' })
        .update({ cost: knex().raw('cost * 2 + 0.0001'), price_book: 'genai-prices 0.1.0' });
      expect(unknown, 'calls made unknown').to.be.above(0);
      expect(older, 'costs made wrong').to.be.above(0);
      await rebuildDerivedData(knex(), { applicationId: repriced.appId });
      return { repriced, reference, wrong: unknown + older };
    }

    /** A price entry of the organization for OpenAI's gpt-4o-mini, in EUR. */
    async function priceEntry(of: Owner): Promise<string> {
      const created = await of.as('POST', `/organizations/${of.orgId}/price-entries`, {
        json: { provider: 'openai', model: 'gpt-4o-mini*', input_price: 0.2, output_price: 0.9, cache_read_price: 0.05, currency: 'EUR' },
      });
      expectStatus(created, 201);
      return created.body.id;
    }

    async function folded(applicationId: string) {
      await foldApplication(knex(), applicationId, 1000);
      return derivedRows(knex(), applicationId);
    }

    /** The engine's answers a re-pricing changes: the trace list, trace metrics and cost analytics. */
    async function reads(to: Target) {
      const post = async (path: string, json: unknown, query: Record<string, string> = {}) => {
        const response = await call(app().url, 'POST', path, { query: { ...READ_WINDOW, ...query }, headers: to.headers, json });
        expect(response.status, `${path}: ${response.text}`).to.equal(200);
        return JSON.parse(response.text) as unknown;
      };
      return {
        traces: await post('/traces', {}, { limit: '100', search_child_spans: 'true' }),
        metrics: await post('/engine/metrics', {}),
        analytics: await post('/engine/analytics', {
          group_by: ['model', 'cost_source'],
          granularity: 'hour',
          measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }, { fn: 'max', field: 'cost' }],
          row_limit: 100,
        }),
        totals: await post('/engine/analytics', { granularity: 'hour', measures: [{ fn: 'sum', field: 'cost' }] }),
      };
    }

    /** `repriced` must hold exactly what `reference` holds: spans' costs, every derived row, every read. */
    async function expectSame(repriced: Target, reference: Target): Promise<void> {
      expect(await costs(knex(), repriced.appId)).to.deep.equal(await costs(knex(), reference.appId));
      expectSameDerivedRows(await folded(repriced.appId), await folded(reference.appId));
      await expectSummariesMatchSpans(knex(), repriced.appId);
      expectClose(await reads(repriced), await reads(reference));
    }

    async function createJob(to: Target, by: Caller = as): Promise<string> {
      const created = await by('POST', `/applications/${to.appId}/repricing-jobs`, { json: WINDOW });
      expectStatus(created, 202);
      return created.body.id;
    }

    const jobOf = async (to: Target, id: string, by: Caller = as) => {
      const response = await by('GET', `/applications/${to.appId}/repricing-jobs/${id}`);
      expectStatus(response, 200);
      return response.body;
    };

    it('prices with the entries and book in force now, never touches a reported cost, and leaves every figure equal to the reference', async () => {
      // An organization of its own, whose price entry comes after the first application's spans.
      const of = await ownerWithApplication(app(), 'Entries');
      let entryId = '';
      const { repriced, reference, wrong } = await wrongAndReference({ of, between: async () => void (entryId = await priceEntry(of)) });
      const reported = () =>
        knex()('spans').where({ application_id: repriced.appId, cost_source: 'reported' }).orderBy(['trace_id', 'span_id']);
      const reportedBefore = await reported();
      expect(reportedBefore, 'reported costs in the workload').not.to.be.empty;
      const examined = await candidates(knex(), repriced.appId);
      // Wrong before: the test can fail.
      expect(await costs(knex(), repriced.appId)).not.to.deep.equal(await costs(knex(), reference.appId));
      const [before, wanted] = [await folded(repriced.appId), await folded(reference.appId)];
      for (const table of ['traces', 'span_rollups', 'trace_figures'])
        expect(() => expectSameDerivedRows({ [table]: before[table] ?? [] }, { [table]: wanted[table] ?? [] }), table).to.throw();
      const [wrongReads, wantedReads] = [await reads(repriced), await reads(reference)];
      expect(() => expectClose(wrongReads, wantedReads)).to.throw();

      const id = await createJob(repriced, of.as);
      expect((await jobOf(repriced, id, of.as)).status).to.equal('queued');
      const batches = await app().server.repricer.runOnce();
      expect(batches).to.be.above(examined / BATCH);
      const job = await jobOf(repriced, id, of.as);
      expect(job).to.include({
        status: 'succeeded',
        spans_examined: examined,
        spans_repriced: wrong,
        hours_done: 4,
        hours_total: 4,
        error: null,
      });
      expect(job.started_at).to.be.a('string');
      expect(job.finished_at).to.be.a('string');
      expect(await reported()).to.deep.equal(reportedBefore);
      await expectSame(repriced, reference);
      const byEntry = await knex()('spans').where({ application_id: repriced.appId, price_entry_id: entryId, price_currency: 'EUR' });
      expect(byEntry, 'spans the entry priced').not.to.be.empty;

      // Run again over the same window: nothing changes.
      const again = await createJob(repriced, of.as);
      await app().server.repricer.runOnce();
      expect(await jobOf(repriced, again, of.as)).to.include({ status: 'succeeded', spans_examined: examined, spans_repriced: 0 });
      await expectSame(repriced, reference);
    });

    it('reads the organization’s entries for every batch: an entry deleted mid-job prices no later batch', async () => {
      const of = await ownerWithApplication(app(), 'Deleted entry');
      const entryId = await priceEntry(of);
      const { repriced } = await wrongAndReference({ of });
      const id = await createJob(repriced, of.as);
      const timing = () => ({ now: Date.now(), leaseMs: 600_000 });
      const byEntry = () => knex()('spans').where({ application_id: repriced.appId, price_entry_id: entryId });
      // An instance prices batches with the entry until one of them wrote a span with it.
      const dead = await claimRepricingJob(knex(), id, 'dead-instance', Date.now(), 600_000);
      if (!dead) throw new Error('the job could not be taken');
      const first = await advanceToHour(knex(), dead, await nextRepricedHour(knex(), dead, H0), timing());
      if (first.kind !== 'advanced') throw new Error(`the job did not start: ${first.kind}`);
      dead.position = first.position;
      while ((await byEntry()).length === 0) {
        const outcome = await repriceBatch(knex(), dead, await pricerOf(knex(), of.orgId), BATCH, timing());
        if (outcome.kind !== 'batch') throw new Error('a batch was lost');
        dead.position = outcome.position;
      }
      const pricedBefore = (await byEntry()).length;
      expect(pricedBefore, 'priced by the entry in the batches before it went').to.be.within(1, BATCH);
      expectStatus(await of.as('DELETE', `/organizations/${of.orgId}/price-entries/${entryId}`), 204);
      await knex()('repricing_jobs')
        .where({ id })
        .update({ lease_expires_at: Date.now() - 1 });
      await app().server.repricer.runOnce();
      expect((await jobOf(repriced, id, of.as)).status).to.equal('succeeded');
      // The spans the entry priced before it went keep its price; every later one has the book's.
      const computed = (await knex()('spans').where({
        application_id: repriced.appId,
        model: 'gpt-4o-mini',
        cost_source: 'computed',
      })) as Array<Record<string, unknown>>;
      const book = computed.filter((span) => span.price_entry_id === null);
      expect(computed.length - book.length).to.equal(pricedBefore);
      expect(book, 'spans of later batches').not.to.be.empty;
      for (const span of book) expect(span).to.include({ price_currency: 'USD', price_model: 'gpt-4o-mini' });
      await expectSummariesMatchSpans(knex(), repriced.appId);
    });

    it('stays exact while spans keep arriving in the window during the job', async function () {
      this.timeout(120_000);
      const { repriced, reference } = await wrongAndReference();
      const id = await createJob(repriced);
      let running = true;
      const pass = app()
        .server.repricer.runOnce()
        .finally(() => (running = false));
      let during = 0;
      // The same rounds into both, new traces and spans of existing ones, in every hour of the window.
      for (let index = 4; running && index < 40; index += 1) {
        await Promise.all([ingest(repriced, index), ingest(reference, index)]);
        if (running) during += 1;
      }
      await pass;
      expect(during, 'rounds stored before the job ended').to.be.above(1);
      expect((await jobOf(repriced, id)).status).to.equal('succeeded');
      await expectSame(repriced, reference);
    });

    it('is taken over after its instance dies mid-hour and its lease expires, and ends as an uninterrupted job', async () => {
      const { repriced, reference, wrong } = await wrongAndReference();
      const examined = await candidates(knex(), repriced.appId);
      const id = await createJob(repriced);
      const timing = () => ({ now: Date.now(), leaseMs: 600_000 });
      // An instance takes the job, commits three batches of its first hour, and dies.
      const dead = await claimRepricingJob(knex(), id, 'dead-instance', Date.now(), 600_000);
      if (!dead) throw new Error('the job could not be taken');
      const first = await advanceToHour(knex(), dead, await nextRepricedHour(knex(), dead, H0), timing());
      if (first.kind !== 'advanced') throw new Error(`the job did not start: ${first.kind}`);
      dead.position = first.position;
      for (let batch = 0; batch < 3; batch += 1) {
        const outcome = await repriceBatch(knex(), dead, await pricerOf(knex(), owner.orgId), BATCH, timing());
        if (outcome.kind !== 'batch') throw new Error('a batch was lost');
        dead.position = outcome.position;
      }
      expect(await jobOf(repriced, id)).to.include({ status: 'running', spans_examined: 3 * BATCH, hours_done: 0 });
      // Its lease holds: no other worker touches the job.
      expect(await app().server.repricer.runOnce()).to.equal(0);
      expect(await jobOf(repriced, id)).to.include({ status: 'running', spans_examined: 3 * BATCH });
      // The lease expires: the next pass goes on after the last committed batch.
      await knex()('repricing_jobs')
        .where({ id })
        .update({ lease_expires_at: Date.now() - 1 });
      await app().server.repricer.runOnce();
      expect(await jobOf(repriced, id)).to.include({ status: 'succeeded', spans_examined: examined, spans_repriced: wrong, hours_done: 4 });
      // The dead instance, were it to wake, commits nothing more.
      expect(await repriceBatch(knex(), dead, await pricerOf(knex(), owner.orgId), BATCH, timing())).to.deep.equal({ kind: 'lost' });
      await expectSame(repriced, reference);
    });

    it('lets the job go when its worker stops mid-way; the next pass goes on from there', async function () {
      this.timeout(60_000);
      const { repriced, reference } = await wrongAndReference();
      const examined = await candidates(knex(), repriced.appId);
      const id = await createJob(repriced);
      const worker = new Repricer({ knex: knex(), logger: createLogger('silent'), config: { intervalSeconds: 0, batchSize: 1 } });
      const pass = worker.runOnce();
      const progress = async () => Number((await knex()('repricing_jobs').where({ id }).first('spans_examined')).spans_examined);
      // A turn of the event loop between reads, as the worker takes between its transactions.
      while ((await progress()) < 3) await new Promise((resolve) => setImmediate(resolve));
      await worker.stop();
      await pass;
      const stopped = (await knex()('repricing_jobs').where({ id }).first('status', 'lease_owner', 'spans_examined')) as Record<
        string,
        unknown
      >;
      expect(stopped, 'stopped before the end').to.include({ status: 'running', lease_owner: null });
      expect(Number(stopped.spans_examined)).to.be.below(examined);
      await app().server.repricer.runOnce();
      expect(await jobOf(repriced, id)).to.include({ status: 'succeeded', spans_examined: examined });
      await expectSame(repriced, reference);
    });

    it('rebuilds the hour a job was on when it is cancelled mid-hour', async () => {
      const { repriced } = await wrongAndReference();
      const id = await createJob(repriced);
      const timing = () => ({ now: Date.now(), leaseMs: 600_000 });
      const dead = await claimRepricingJob(knex(), id, 'dead-instance', Date.now(), 600_000);
      if (!dead) throw new Error('the job could not be taken');
      const first = await advanceToHour(knex(), dead, await nextRepricedHour(knex(), dead, H0), timing());
      if (first.kind !== 'advanced') throw new Error(`the job did not start: ${first.kind}`);
      dead.position = first.position;
      let repricedSpans = 0;
      while (repricedSpans === 0) {
        const outcome = await repriceBatch(knex(), dead, await pricerOf(knex(), owner.orgId), BATCH, timing());
        if (outcome.kind !== 'batch') throw new Error('a batch was lost');
        dead.position = outcome.position;
        repricedSpans += outcome.repriced;
      }
      const cancelled = await as('POST', `/applications/${repriced.appId}/repricing-jobs/${id}/cancel`);
      expectStatus(cancelled, 200);
      expect(cancelled.body).to.include({ status: 'cancelled' });
      // The hour's summaries still show the old costs of the spans re-priced: not exact yet.
      let mismatch: unknown;
      await expectSummariesMatchSpans(knex(), repriced.appId).catch((error: unknown) => (mismatch = error));
      expect(mismatch, 'summaries before the hour is rebuilt').to.be.an('error');
      // The batch after the cancel commits nothing.
      expect(await repriceBatch(knex(), dead, await pricerOf(knex(), owner.orgId), BATCH, timing())).to.deep.equal({ kind: 'lost' });
      // The dead instance's lease expires; a pass rebuilds the hour and lets the job go.
      await knex()('repricing_jobs')
        .where({ id })
        .update({ lease_expires_at: Date.now() - 1 });
      expect(await readLeasedJob(knex(), id, 'dead-instance')).to.have.nested.property('position.hourRepriced', true);
      await app().server.repricer.runOnce();
      const row = (await knex()('repricing_jobs').where({ id }).first('status', 'lease_owner', 'hour_repriced')) as Record<string, unknown>;
      expect({ ...row, hour_repriced: Number(row.hour_repriced) }).to.deep.equal({
        status: 'cancelled',
        lease_owner: null,
        hour_repriced: 0,
      });
      await expectSummariesMatchSpans(knex(), repriced.appId);
      // Every derived row as a rebuild from the spans gives it.
      const now = await folded(repriced.appId);
      await rebuildDerivedData(knex(), { applicationId: repriced.appId });
      expectSameDerivedRows(now, await folded(repriced.appId));
      expect((await jobOf(repriced, id)).status).to.equal('cancelled');
    });
  },
  { REPRICING_INTERVAL_SECONDS: '0', REPRICING_BATCH_SIZE: String(BATCH) },
);
