// An export's snapshot on every database (openapi/engine.yaml, tag Exports, "Snapshot"): while
// spans keep arriving over OTLP/HTTP, an export holds every span whose export request was
// answered before the export was created, and none sent after the creation was answered,
// whatever their start time; at grain traces a trace is listed when its root was received by
// the snapshot, a child-span search matches only spans received by then, and the summary's
// figures are those of all the trace's spans when it is read.
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { createExport, download, ndjsonRecords, readExport } from '../support/exports.js';
import { onEachDatabase } from '../support/test-server.js';

const SECOND = 1_000_000_000n;
/** Spans start in the two hours before the last whole hour: recent, as exporters send them. */
const BASE = (BigInt(Date.now()) / 3_600_000n - 2n) * 3_600n * SECOND;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 7200n * SECOND) };
const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

function otlpSpan(trace: number, span: number, name: string, parent?: number): OtlpSpan {
  const start = BASE + BigInt(trace) * SECOND + BigInt(span) * 1_000_000n;
  return {
    traceId: hex(trace, 32),
    spanId: hex(trace * 16 + span, 16),
    ...(parent === undefined ? {} : { parentSpanId: hex(trace * 16 + parent, 16) }),
    name,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 5_000_000n).toString(),
  };
}

async function ingest(url: string, caller: EngineCaller, spans: OtlpSpan[]): Promise<void> {
  const json = {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'snap' } }] }, scopeSpans: [{ spans }] }],
  };
  const answer = await call(url, 'POST', '/v1/traces', { headers: caller.headers, json });
  expect(answer.status, answer.text).to.equal(200);
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

onEachDatabase(
  'export snapshots',
  (app) => {
    it('holds the spans received before its creation and none sent after its answer, while ingestion goes on', async () => {
      const caller = await engineCaller(app());
      const requests: Array<{ sentAt: number; answeredAt: number; spanIds: string[] }> = [];
      let stop = false;
      let trace = 0;
      const loop = (async () => {
        while (!stop) {
          trace += 1;
          // A new trace a request, its spans starting anywhere in the window (newest first, they interleave).
          const at = ((trace * 7919) % 7000) + 1;
          const spans = [otlpSpan(at, 0, 'root'), otlpSpan(at, 1, 'child', 0), otlpSpan(at, 2, 'child', 0)];
          const sentAt = Date.now();
          await ingest(app().url, caller, spans);
          requests.push({ sentAt, answeredAt: Date.now(), spanIds: spans.map((span) => span.spanId) });
        }
      })();
      while (requests.length < 5) await tick();
      const createSentAt = Date.now();
      const created = await createExport(app(), caller, {}, WINDOW);
      expect(created.status).to.equal(202);
      const answeredAt = Date.now();
      // The service's clock and this one are the same clock, at millisecond resolution.
      const sentAfter = () => requests.filter((request) => request.sentAt > answeredAt + 1);
      while (sentAfter().length < 5) await tick();
      stop = true;
      await loop;
      await app().server.exporter.runOnce();
      const job = await readExport(app(), caller, created.body.id);
      expect(job.state).to.equal('succeeded');
      expect(Date.parse(job.snapshot_time)).to.be.within(createSentAt, answeredAt);
      const inFile = new Set(ndjsonRecords((await download(app(), caller, job.id)).bytes).map((span) => span.span_id as string));
      const before = requests.filter((request) => request.answeredAt < createSentAt).flatMap((request) => request.spanIds);
      const after = sentAfter().flatMap((request) => request.spanIds);
      expect(before.length).to.be.greaterThan(0);
      expect(
        before.filter((id) => !inFile.has(id)),
        'received before, missing',
      ).to.deep.equal([]);
      expect(
        after.filter((id) => inFile.has(id)),
        'sent after, present',
      ).to.deep.equal([]);
      // The query itself, read now, holds them all.
      const now = await call(app().url, 'POST', '/engine/query', {
        query: { ...WINDOW, limit: 1 },
        headers: caller.headers,
        json: {},
      });
      expect(now.body.total).to.equal(requests.length * 3);
    });

    it('lists a trace by its root’s receipt and searches child spans received by the snapshot, with the figures of the trace when read', async () => {
      const caller = await engineCaller(app());
      await ingest(app().url, caller, [otlpSpan(1, 0, 'root'), otlpSpan(1, 1, 'early', 0)]);
      // Trace 2's child arrives first, its root later.
      await ingest(app().url, caller, [otlpSpan(2, 1, 'early', 0)]);
      const ids: Record<string, string> = {};
      for (const [name, body] of [
        ['all', {}],
        ['late', { filter: { field: 'span_name', op: 'eq', value: 'late' }, search_child_spans: true }],
        ['early', { filter: { field: 'span_name', op: 'eq', value: 'early' }, search_child_spans: true }],
      ] as const) {
        const created = await createExport(app(), caller, { grain: 'traces', ...body }, WINDOW);
        expect(created.status).to.equal(202);
        ids[name] = created.body.id;
      }
      await tick();
      await ingest(app().url, caller, [otlpSpan(1, 2, 'late', 0), otlpSpan(2, 0, 'root'), otlpSpan(3, 0, 'root')]);
      await app().server.exporter.runOnce();
      const traces = async (name: string) => ndjsonRecords((await download(app(), caller, ids[name] as string)).bytes);
      const all = await traces('all');
      expect(all.map((summary) => summary.trace_id)).to.deep.equal([hex(1, 32)]);
      // Its figures count the span received after the snapshot.
      expect(all[0]).to.include({ spans_count: 3 });
      expect(await traces('late')).to.deep.equal([]);
      expect((await traces('early')).map((summary) => summary.trace_id)).to.deep.equal([hex(1, 32)]);
      const listed = await call(app().url, 'POST', '/traces', {
        query: WINDOW,
        headers: caller.headers,
        json: {},
      });
      expect(listed.body.pagination.total, 'the list read now holds the later traces').to.equal(3);
    });
  },
  { EXPORT_INTERVAL_SECONDS: '0', EXPORT_SETTLE_SECONDS: '0', EXPORT_MAX_ACTIVE_PER_ORGANIZATION: '10' },
);
