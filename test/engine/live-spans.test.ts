// GET /traces/live and GET /traces/live/stream over HTTP on every database: receive order,
// the optional window, pagination, and the SSE stream (new spans only, Last-Event-ID resume
// without loss or repetition, a span whose transaction commits late, before or after a resume;
// test/engine/live-stream-resume.test.ts drops and resumes under concurrent writers). The streams poll every
// 20 ms (LIVE_POLL_INTERVAL_MS) and the tests wait for what they expect, never for a fixed time.
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const SECOND = 1_000_000_000n;

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Waits until `predicate` holds; the bound is generous, the wait ends as soon as it holds. */
async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Counts the live streams' completed polls (reads of the spans above a sequence) per application. */
function countPolls(knex: Knex) {
  const polls = new Map<string, number>();
  const count = (_response: unknown, query: { sql: string; bindings?: unknown[] }) => {
    if (!query.sql.includes('seq > ')) return;
    for (const binding of query.bindings ?? []) {
      if (typeof binding === 'string' && binding.startsWith('app_')) polls.set(binding, (polls.get(binding) ?? 0) + 1);
    }
  };
  knex.on('query-response', count);
  return {
    of: (appId: string) => polls.get(appId) ?? 0,
    /** Resolves once `appId`'s stream has completed `more` polls after now. */
    async after(appId: string, more: number) {
      const target = (polls.get(appId) ?? 0) + more;
      await waitFor(() => (polls.get(appId) ?? 0) >= target, `${more} more polls of ${appId}`);
    },
    stop: () => knex.off('query-response', count),
  };
}

/** A fetch-based SSE client (EventSource cannot send Authorization). */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let waiting: (() => void) | undefined;
  const done = (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon) as keyof SseEvent;
              event[field] = line.slice(colon + 1).replace(/^ /, '');
            }
          }
          if (event.event) events.push(event);
          waiting?.();
        }
      }
    } catch {
      // aborted
    }
  })();
  const until = async (predicate: () => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; events so far: ${JSON.stringify(events)}`);
      await new Promise<void>((resolve) => {
        waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
  };
  await until(() => comments.length > 0); // the first heartbeat: the stream is open
  return {
    response,
    events,
    comments,
    until,
    async close() {
      controller.abort();
      await done;
    },
  };
}

onEachDatabase(
  'live spans',
  (app) => {
    let caller: EngineCaller;
    let counter = 0;
    const span = (startSeconds: number, overrides: Partial<SpanRow> = {}) => {
      counter += 1;
      return spanRow({
        application_id: caller.appId,
        trace_id: `${counter}`.padStart(32, 'a'),
        span_id: `${counter}`.padStart(16, '0'),
        start_time_unix_nano: (BASE + BigInt(startSeconds) * SECOND + 123_456_789n).toString(),
        span_name: `span-${counter}`,
        ...overrides,
      });
    };
    const live = async (query: Record<string, string | number> = {}) => {
      const response = await call(app().url, 'GET', '/traces/live', { query, headers: caller.headers });
      expect(response.status, response.text).to.equal(200);
      return { ...parseEngineRead('/traces/live', response.text), text: response.text };
    };

    before(async () => {
      caller = await engineCaller(app());
    });

    describe('GET /traces/live', () => {
      let names: string[];
      before(async () => {
        // Received in this order, whatever their start times.
        const batches = [[span(50), span(10)], [span(30)], [span(5), span(40), span(20)]];
        for (const batch of batches) await storeSpans(app().server.knex, batch);
        names = batches.flat().map((row) => row.span_name);
      });

      it('lists the most recently received first, with exact nanoseconds', async () => {
        const body = await live();
        expect(body.data.map((row) => row.span_name)).to.deep.equal([...names].reverse());
        expect(body.pagination).to.deep.equal({ page: 1, limit: 20, total: 6 });
        expect(body.text).to.include(`"span_start_time_unix_nano":${BASE + 20n * SECOND + 123_456_789n}`);
        expect(Object.keys(body.data[0]).sort()).to.deep.equal(
          [
            'trace_id',
            'span_id',
            'span_name',
            'span_kind',
            'span_start_time_unix_nano',
            'span_end_time_unix_nano',
            'parent_span_id',
            'service_name',
            'resource_attributes',
            'span_attributes',
            'status_code',
            'status_message',
          ].sort(),
        );
      });

      it('pages, and filters by span start when a bound is given', async () => {
        const second = await live({ limit: 4, page: 2 });
        expect(second.data.map((row) => row.span_name)).to.deep.equal([names[1], names[0]]);
        expect(second.pagination).to.deep.equal({ page: 2, limit: 4, total: 6 });
        expect((await live({ limit: 4, page: 3 })).data).to.deep.equal([]);
        const windowed = await live({
          start_time: nanosToRfc3339(BASE + 10n * SECOND),
          end_time: nanosToRfc3339(BASE + 40n * SECOND + 123_456_789n),
        });
        expect(windowed.data.map((row) => row.span_name)).to.deep.equal([names[5], names[2], names[1]]);
        expect(windowed.pagination.total).to.equal(3);
        expect((await live({ start_time: nanosToRfc3339(BASE + 45n * SECOND) })).data.map((row) => row.span_name)).to.deep.equal([
          names[0],
        ]);
        expect((await live({ end_time: nanosToRfc3339(BASE + 10n * SECOND) })).data.map((row) => row.span_name)).to.deep.equal([names[3]]);
      });

      it('is a 422 on end_time when both bounds are given and the end is not after the start', async () => {
        const response = await call(app().url, 'GET', '/traces/live', {
          query: { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE) },
          headers: caller.headers,
        });
        expect(response.status).to.equal(422);
        expect(response.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
      });
    });

    describe('GET /traces/live/stream', () => {
      const streamUrl = () => `${app().url}/traces/live/stream`;

      it('sends the spans stored after it opened, then resumes after Last-Event-ID without loss or repetition', async function () {
        this.timeout(30_000);
        await storeSpans(app().server.knex, [span(1, { span_name: 'before-connect' })]);
        const first = await openStream(streamUrl(), caller.headers);
        expect(first.response.status).to.equal(200);
        expect(first.response.headers.get('content-type')).to.match(/^text\/event-stream/);
        expect(first.response.headers.get('cache-control')).to.equal('no-cache');
        const early = [span(60, { span_name: 'a1' }), span(61, { span_name: 'a2' })];
        await storeSpans(app().server.knex, early);
        await storeSpans(app().server.knex, [span(62, { span_name: 'a3' })]);
        await first.until(() => first.events.length >= 3);
        await first.close();
        expect(first.events.map((event) => JSON.parse(event.data as string).span_name)).to.deep.equal(['a1', 'a2', 'a3']);
        expect(first.events.every((event) => event.event === 'span')).to.equal(true);
        const ids = first.events.map((event) => BigInt(event.id as string));
        expect(ids[0]! < ids[1]! && ids[1]! < ids[2]!).to.equal(true);
        expect(first.events[0]?.data).to.include(`"span_start_time_unix_nano":${BASE + 60n * SECOND + 123_456_789n}`);

        // Stored while no client is connected: the resumed stream sends these, and nothing twice.
        await storeSpans(app().server.knex, [span(63, { span_name: 'b1' }), span(64, { span_name: 'b2' })]);
        const resumed = await openStream(streamUrl(), { ...caller.headers, 'Last-Event-ID': first.events[1]?.id as string });
        await storeSpans(app().server.knex, [span(65, { span_name: 'b3' })]);
        await resumed.until(() => resumed.events.length >= 4);
        // Events come in order: once a span stored last arrives, any repetition would be in view.
        await storeSpans(app().server.knex, [span(66, { span_name: 'last' })]);
        await resumed.until(() => resumed.events.some((event) => JSON.parse(event.data as string).span_name === 'last'));
        await resumed.close();
        expect(resumed.events.map((event) => JSON.parse(event.data as string).span_name)).to.deep.equal(['a3', 'b1', 'b2', 'b3', 'last']);
      });

      it('sends a span whose transaction commits after a later-numbered span was sent', async function () {
        if (app().database !== 'mysql') this.skip(); // SQLite has one writer: commits cannot interleave
        this.timeout(30_000);
        const stream = await openStream(streamUrl(), caller.headers);
        const knex = app().server.knex;
        const trx = await knex.transaction();
        try {
          await trx('spans').insert(span(70, { span_name: 'slow' })); // takes its sequence now
          await storeSpans(knex, [span(71, { span_name: 'fast' })]);
          await stream.until(() => stream.events.length >= 1);
          await trx.commit();
        } catch (error) {
          await trx.rollback();
          throw error;
        }
        await stream.until(() => stream.events.length >= 2);
        await stream.close();
        const [fast, slow] = stream.events;
        expect([JSON.parse(fast?.data as string).span_name, JSON.parse(slow?.data as string).span_name]).to.deep.equal(['fast', 'slow']);
        // The fast span's id still owes the slow one: resumed from it, a stream sends the slow span;
        // resumed from the slow span's id, it repeats nothing.
        await storeSpans(knex, [span(72, { span_name: 'after' })]);
        const names = async (lastEventId: string) => {
          const resumed = await openStream(streamUrl(), { ...caller.headers, 'Last-Event-ID': lastEventId });
          await resumed.until(() => resumed.events.some((event) => JSON.parse(event.data as string).span_name === 'after'));
          await resumed.close();
          return resumed.events.map((event) => JSON.parse(event.data as string).span_name);
        };
        expect(await names(fast?.id as string)).to.deep.equal(['slow', 'after']);
        expect(await names(slow?.id as string)).to.deep.equal(['after']);
      });

      it('polls storage at LIVE_POLL_INTERVAL_MS (20 ms here), not at the 500 ms default', async function () {
        this.timeout(20_000);
        const polls = countPolls(app().server.knex);
        const stream = await openStream(streamUrl(), caller.headers);
        try {
          await polls.after(caller.appId, 1);
          const started = Date.now();
          await polls.after(caller.appId, 10);
          // Ten polls at the default would take 5 s; at 20 ms about 0.2 s: the bound leaves 12x for a loaded machine.
          expect(Date.now() - started, 'ms for ten polls').to.be.below(2_500);
        } finally {
          polls.stop();
          await stream.close();
        }
      });

      it('stops polling storage when the client disconnects', async function () {
        this.timeout(20_000);
        const polls = countPolls(app().server.knex);
        // A second application's stream stays open: its polls measure time in poll intervals.
        const other = await engineCaller(app());
        const control = await openStream(streamUrl(), other.headers);
        try {
          const stream = await openStream(streamUrl(), caller.headers);
          await polls.after(caller.appId, 1);
          await stream.close();
          // The server notices the disconnect at once; a poll already under way may still finish.
          await polls.after(other.appId, 3);
          const afterClose = polls.of(caller.appId);
          await polls.after(other.appId, 10);
          expect(polls.of(caller.appId), 'polls after the client left').to.equal(afterClose);
        } finally {
          polls.stop();
          await control.close();
        }
      });

      it('resumes after a Last-Event-ID beyond every sequence (even past the signed 64-bit range) with nothing, never an error', async function () {
        this.timeout(30_000);
        const polls = countPolls(app().server.knex);
        const stream = await openStream(streamUrl(), { ...caller.headers, 'Last-Event-ID': '9'.repeat(19) });
        try {
          expect(stream.response.status).to.equal(200);
          await storeSpans(app().server.knex, [span(90, { span_name: 'after-huge-id' })]);
          // Nothing is above such an id: polls that began after the span was stored send nothing,
          // and the stream stays open and quiet rather than failing.
          await polls.after(caller.appId, 3);
          expect(stream.events).to.deep.equal([]);
          expect(stream.comments.length).to.be.greaterThan(0);
        } finally {
          polls.stop();
          await stream.close();
        }
      });

      // Refused by the document's pattern, by its length, and (well formed to the pattern) by the id's own rules.
      for (const [what, lastEventId] of [
        ['letters', 'abc'],
        ['twenty digits', '1'.repeat(20)],
        ['a run of sequences below 1', '10_9.2'],
        ['runs out of order', '10_5,1'],
      ]) {
        it(`is a 422 for a Last-Event-ID that is not an event id of the stream: ${what}`, async () => {
          const response = await call(app().url, 'GET', '/traces/live/stream', {
            headers: { ...caller.headers, 'Last-Event-ID': lastEventId as string },
          });
          expect(response.status).to.equal(422);
          expect(response.body.detail[0].loc).to.deep.equal(['header', 'last-event-id']);
        });
      }
    });
  },
  { LIVE_POLL_INTERVAL_MS: '20' },
);
