// The re-pricing job resource of the management API on every database (openapi/management.yaml,
// createRepricingJob, listRepricingJobs, getRepricingJob, cancelRepricingJob): 202 with Location,
// the job read back and listed newest first, the window's rules (422), one unfinished job per
// overlapping window (409 naming it, also for creations sent at once), cancelling (idempotent;
// 409 once finished), and jobs of other applications out of reach (404). The worker is off here
// (REPRICING_INTERVAL_SECONDS=0) except where a test runs a pass: test/jobs/repricer.test.ts
// covers what a job does.
import { expect } from 'chai';
import { createApplication, expectStatus, ownerWithApplication, type Caller } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

const DAY = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' };

onEachDatabase(
  're-pricing job resource',
  (app) => {
    let as: Caller;
    let orgId: string;

    before(async () => {
      ({ as, orgId } = await ownerWithApplication(app()));
    });

    const jobs = (appId: string) => `/applications/${appId}/repricing-jobs`;
    const create = (appId: string, json: unknown) => as('POST', jobs(appId), { json });

    it('answers 202 with the job queued and its URL in Location, where it reads back', async () => {
      const appId = await createApplication(as, orgId);
      const created = await create(appId, { from: '2026-11-01T00:30:00+01:00', to: '2026-11-01T02:00:00.000000001Z' });
      expectStatus(created, 202);
      expect(created.body).to.deep.include({
        application_id: appId,
        // UTC, milliseconds, and nanoseconds where the request had them.
        from: '2026-10-31T23:30:00.000Z',
        to: '2026-11-01T02:00:00.000000001Z',
        status: 'queued',
        spans_examined: 0,
        spans_repriced: 0,
        hours_done: 0,
        // 23:00, 00:00, 01:00 and the one nanosecond of 02:00.
        hours_total: 4,
        started_at: null,
        finished_at: null,
        error: null,
      });
      expect(created.body.id).to.match(/^rpj_[A-Za-z0-9]{20}$/);
      const location = created.headers.get('location');
      expect(location).to.equal(`${jobs(appId)}/${created.body.id}`);
      const read = await as('GET', location as string);
      expectStatus(read, 200);
      expect(read.body).to.deep.equal(created.body);
    });

    it('lists the jobs newest first, by page and by cursor', async () => {
      const appId = await createApplication(as, orgId);
      const ids: string[] = [];
      for (let day = 1; day <= 3; day += 1) {
        const created = await create(appId, { from: `2026-10-0${day}T00:00:00Z`, to: `2026-10-0${day}T12:00:00Z` });
        expectStatus(created, 202);
        ids.unshift(created.body.id);
        // Jobs of one millisecond are ordered by id: a new millisecond for each.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const all = await as('GET', jobs(appId));
      expectStatus(all, 200);
      expect(all.body.data.map((job: { id: string }) => job.id)).to.deep.equal(ids);
      expect(all.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 3 });
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await as('GET', jobs(appId), { query: { limit: 1, cursor } });
        expectStatus(page, 200);
        walked.push(...page.body.data.map((job: { id: string }) => job.id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(walked).to.deep.equal(ids);
      const other = await createApplication(as, orgId);
      expect((await as('GET', jobs(other))).body.data).to.deep.equal([]);
    });

    it('refuses a window that ends before it starts, or lies outside the span times stored, with 422 at the field', async () => {
      const appId = await createApplication(as, orgId);
      const cases: Array<[unknown, Array<string | number>]> = [
        [{ from: DAY.to, to: DAY.from }, ['body', 'to']],
        [{ from: DAY.from, to: DAY.from }, ['body', 'to']],
        [{ from: '1969-12-31T23:59:59Z', to: DAY.to }, ['body', 'from']],
        [{ from: DAY.from, to: '2300-01-01T00:00:00Z' }, ['body', 'to']],
        [{ from: DAY.from }, ['body', 'to']],
        [{ from: 'yesterday', to: DAY.to }, ['body', 'from']],
        [{ ...DAY, model: 'gpt-4o' }, ['body', 'model']],
      ];
      for (const [body, loc] of cases) {
        const response = await create(appId, body);
        expectStatus(response, 422);
        expect(
          response.body.detail.map((issue: { loc: unknown }) => issue.loc),
          JSON.stringify(body),
        ).to.deep.include(loc);
      }
      expect((await as('GET', jobs(appId))).body.data, 'nothing created').to.deep.equal([]);
    });

    it('refuses a job overlapping a queued or running one with 409 naming it; adjacent windows and other applications are fine', async () => {
      const appId = await createApplication(as, orgId);
      const first = await create(appId, DAY);
      expectStatus(first, 202);
      const overlapping = await create(appId, { from: '2026-11-01T23:59:59.999Z', to: '2026-11-03T00:00:00Z' });
      expectStatus(overlapping, 409);
      expect(overlapping.body).to.include({ code: 'repricing_job_overlaps', job_id: first.body.id });
      expect(overlapping.body.detail).to.include(first.body.id);
      expectStatus(await create(appId, { from: DAY.to, to: '2026-11-03T00:00:00Z' }), 202);
      expectStatus(await create(appId, { from: '2026-10-31T00:00:00Z', to: DAY.from }), 202);
      expectStatus(await create(await createApplication(as, orgId), DAY), 202);
      // Once cancelled, it is in nobody's way.
      expectStatus(await as('POST', `${jobs(appId)}/${first.body.id}/cancel`), 200);
      expectStatus(await create(appId, { from: '2026-11-01T06:00:00Z', to: '2026-11-01T07:00:00Z' }), 202);
    });

    it('lets exactly one of several overlapping creations sent at once through', async () => {
      const appId = await createApplication(as, orgId);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => create(appId, { from: `2026-11-01T0${index}:00:00Z`, to: '2026-11-01T12:00:00Z' })),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).to.deep.equal([202, 409, 409, 409, 409, 409, 409, 409]);
      const winner = answers.find((answer) => answer.status === 202)?.body.id;
      for (const answer of answers.filter((candidate) => candidate.status === 409)) expect(answer.body.job_id).to.equal(winner);
      expect((await as('GET', jobs(appId))).body.pagination.total).to.equal(1);
    });

    it('cancels a queued job once, answers a cancelled one as it is, and refuses a finished one with 409', async () => {
      const appId = await createApplication(as, orgId);
      const created = await create(appId, DAY);
      const cancel = () => as('POST', `${jobs(appId)}/${created.body.id}/cancel`);
      const cancelled = await cancel();
      expectStatus(cancelled, 200);
      expect(cancelled.body).to.include({ id: created.body.id, status: 'cancelled', started_at: null });
      expect(cancelled.body.finished_at).to.be.a('string');
      const again = await cancel();
      expectStatus(again, 200);
      expect(again.body).to.deep.equal(cancelled.body);
      // The worker never takes it.
      await app().server.repricer.runOnce();
      expect((await as('GET', `${jobs(appId)}/${created.body.id}`)).body).to.deep.equal(cancelled.body);

      // A job over a window without spans succeeds at its first pass; then it cannot be cancelled.
      const done = await create(appId, DAY);
      await app().server.repricer.runOnce();
      const finished = await as('GET', `${jobs(appId)}/${done.body.id}`);
      expect(finished.body).to.include({ status: 'succeeded', hours_done: 24, hours_total: 24, spans_examined: 0 });
      const refused = await as('POST', `${jobs(appId)}/${done.body.id}/cancel`);
      expectStatus(refused, 409);
      expect(refused.body).to.include({ code: 'repricing_job_finished', job_id: done.body.id });
      expect((await as('GET', `${jobs(appId)}/${done.body.id}`)).body).to.deep.equal(finished.body);
    });

    it('answers 404 for a job of another application, an unknown job, and another organization’s application', async () => {
      const appId = await createApplication(as, orgId);
      const sibling = await createApplication(as, orgId);
      const created = await create(appId, DAY);
      expectStatus(await as('GET', `${jobs(sibling)}/${created.body.id}`), 404);
      expectStatus(await as('POST', `${jobs(sibling)}/${created.body.id}/cancel`), 404);
      expectStatus(await as('GET', `${jobs(appId)}/rpj_00000000000000000000`), 404);
      const stranger = await ownerWithApplication(app(), 'Stranger');
      for (const [method, path] of [
        ['GET', jobs(appId)],
        ['POST', jobs(appId)],
        ['GET', `${jobs(appId)}/${created.body.id}`],
        ['POST', `${jobs(appId)}/${created.body.id}/cancel`],
      ] as const) {
        const response = await stranger.as(method, path, method === 'POST' && !path.endsWith('/cancel') ? { json: DAY } : {});
        expectStatus(response, 404);
      }
      expect((await as('GET', `${jobs(appId)}/${created.body.id}`)).body.status).to.equal('queued');
    });
  },
  { REPRICING_INTERVAL_SECONDS: '0' },
);
