// GET /traces/live/stream resumed with Last-Event-ID while spans keep arriving, on every
// database: concurrent writers (and another application's, whose sequences fall between ours),
// a client whose connection drops at random points and resumes with the last event id it got,
// and on MariaDB a batch whose transaction is open across a drop and commits after the resume.
// Every span must arrive exactly once, and the stream's waits for the socket leave no listeners.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller } from '../support/auth.js';
import { LiveStreamClient } from '../support/live-stream-client.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const WRITERS = 4;
const SPANS_PER_WRITER = 5_000;
const BATCH = 125;
const HELD_BATCH = 128;
const DROPS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const key = (row: SpanRow) => `${row.trace_id}/${row.span_id}`;

onEachDatabase(
  'live stream resumed across drops',
  (app) => {
    // The stream writes under backpressure here: each wait for the socket must leave no listener behind.
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    beforeEach(() => process.on('warning', warned));
    afterEach(() => process.off('warning', warned));

    it('sends every span exactly once across drops at random points, a batch committed across a drop included', async function () {
      this.timeout(120_000);
      const knex = app().server.knex;
      const caller = await engineCaller(app());
      const other = await engineCaller(app());
      let counter = 0;
      const batch = (applicationId: string, size: number): SpanRow[] =>
        Array.from({ length: size }, () => {
          counter += 1;
          // Traces of five spans, so the writers also merge trace summaries.
          return spanRow({
            application_id: applicationId,
            trace_id: `${Math.ceil(counter / 5)}`.padStart(32, 'c'),
            span_id: `${counter}`.padStart(16, '0'),
            span_name: `s${counter}`,
          });
        });

      const [client] = await LiveStreamClient.onEachUpstream(`${app().url}/traces/live/stream`, caller.headers, 1);
      const stream = client as LiveStreamClient;
      const expected = new Set<string>();
      const write = async (applicationId: string, spans: number, into?: Set<string>) => {
        for (let written = 0; written < spans; written += BATCH) {
          await sleep(Math.random() * 20); // writers interleave, and the stream reads while they write
          const rows = batch(applicationId, BATCH);
          await storeSpans(knex, rows);
          for (const row of rows) into?.add(key(row));
        }
      };
      const writers = Promise.all([
        ...Array.from({ length: WRITERS }, () => write(caller.appId, SPANS_PER_WRITER, expected)),
        write(other.appId, SPANS_PER_WRITER / 2),
      ]);

      // Drops at random points of the stream, whether it is keeping up or reading a backlog.
      const drops: number[] = [];
      const dropAt = Array.from({ length: DROPS }, () => Math.floor(200 + Math.random() * (WRITERS * SPANS_PER_WRITER - 1_000))).sort(
        (a, b) => a - b,
      );
      const dropper = (async () => {
        for (const point of dropAt) {
          await stream.until((seen) => seen.size >= point, 30_000);
          const reconnections = stream.reconnections.length;
          drops.push(stream.seen.size);
          stream.drop();
          await stream.until(() => stream.reconnections.length > reconnections, 30_000);
        }
      })().catch(() => undefined); // a stream short of spans is reported below, with the drops

      // On MariaDB a transaction takes its sequences, the stream sends spans above them, the
      // connection drops and resumes (from an id above them), and only then the batch commits.
      // SQLite has one writer: a transaction open there would hold every other writer back.
      const held = app().database === 'mysql' ? batch(caller.appId, HELD_BATCH) : [];
      if (held.length > 0) {
        await stream.until((seen) => seen.size >= 2_000, 30_000);
        const trx = await knex.transaction();
        try {
          await trx('spans').insert(held);
          const sent = stream.seen.size;
          await stream.until((seen) => seen.size >= sent + 1_000, 30_000);
          const reconnections = stream.reconnections.length;
          stream.drop();
          const resumedAt = stream.seen.size;
          await stream.until((seen) => stream.reconnections.length > reconnections && seen.size >= resumedAt + 500, 30_000);
          await trx.commit();
        } catch (error) {
          await trx.rollback();
          throw error;
        }
        for (const row of held) expected.add(key(row));
      }
      await Promise.all([writers, dropper]);

      const missing = () => [...expected].filter((span) => !stream.seen.has(span));
      try {
        await stream.until((seen) => seen.size >= expected.size, 30_000);
        // A repetition after the last reconnection comes before a span stored after everything.
        const [last] = batch(caller.appId, 1) as [SpanRow];
        await storeSpans(knex, [last]);
        expected.add(key(last));
        await stream.until((seen) => seen.has(key(last)), 10_000);
      } catch (error) {
        const lost = missing();
        throw new Error(
          `${lost.length} of ${expected.size} spans never arrived (e.g. ${lost.slice(0, 3).join(', ')}); drops after ${drops.join(', ')} spans; reconnections ${stream.reconnections.length}: ${(error as Error).message}`,
        );
      } finally {
        await stream.close();
      }
      expect(stream.reconnections.length, 'reconnections').to.be.at.least(DROPS);
      expect(missing(), 'spans lost').to.deep.equal([]);
      expect(stream.repeated, 'spans sent twice').to.deep.equal([]);
      expect(stream.seen.size).to.equal(WRITERS * SPANS_PER_WRITER + held.length + 1);
      expect(
        warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning')),
        'listeners piling up on the stream',
      ).to.deep.equal([]);
    });
  },
  { LIVE_POLL_INTERVAL_MS: '20' },
);
