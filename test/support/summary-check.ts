// Trace summaries (table `traces`) checked against a recomputation from the stored spans, every
// column, and the folded trace figures against the summaries: for tests that write or delete spans
// by unusual paths (the purger, a cluster losing nodes).
import { expect } from 'chai';
import type { Knex } from 'knex';
import { bigintAsText } from '../../src/storage/database.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { asText } from '../../src/storage/spans/stored-span.js';
import { binOf, FOLD_STATE, hourOf, serviceKeyOf, serviceOfKey, TRACE_FIGURES } from '../../src/storage/spans/fold/trace-figures.js';
import { rootOf } from './reference-evaluator.js';

/** Every stored span of the application, as the reference evaluator reads them. */
async function storedSpans(knex: Knex, applicationId: string): Promise<SpanRow[]> {
  const rows = await knex('spans')
    .where('application_id', applicationId)
    .select('trace_id', 'span_id', 'parent_span_id', 'span_kind', 'span_name', 'service_name', 'unit', 'parent_unit', 'cost', 'status_code')
    .select({
      start_time_unix_nano: bigintAsText(knex, 'start_time_unix_nano'),
      end_time_unix_nano: bigintAsText(knex, 'end_time_unix_nano'),
    });
  return rows as SpanRow[];
}

/** The stored summaries must equal what the remaining spans add up to, every column: none more, none less. */
export async function expectSummariesMatchSpans(knex: Knex, applicationId: string): Promise<void> {
  const spans = await storedSpans(knex, applicationId);
  const byTrace = new Map<string, SpanRow[]>();
  for (const span of spans) byTrace.set(span.trace_id, [...(byTrace.get(span.trace_id) ?? []), span]);
  const expected = [...byTrace].map(([trace_id, members]) => {
    const root = rootOf(members);
    const minStart = members.map((span) => BigInt(span.start_time_unix_nano)).reduce((a, b) => (b < a ? b : a));
    const maxEnd = members.map((span) => BigInt(span.end_time_unix_nano)).reduce((a, b) => (b > a ? b : a));
    return {
      trace_id,
      root_span_id: root?.span_id ?? null,
      span_name: root?.span_name ?? null,
      service_name: root?.service_name ?? null,
      spans_count: members.length,
      total_cost: members.reduce((sum, span) => sum + (span.cost ?? 0), 0),
      error_count: members.filter((span) => span.status_code === 'STATUS_CODE_ERROR').length,
      min_start: minStart.toString(),
      max_end: maxEnd.toString(),
      duration_ms: Number(maxEnd - minStart) / 1e6,
    };
  });
  const stored = await knex('traces')
    .where('application_id', applicationId)
    .select('trace_id', 'root_span_id', 'span_name', 'service_name', 'spans_count', 'total_cost', 'error_count', 'duration_ms')
    .select({ min_start: bigintAsText(knex, 'min_start_time_unix_nano'), max_end: bigintAsText(knex, 'max_end_time_unix_nano') });
  const byId = (a: { trace_id: string }, b: { trace_id: string }) => (a.trace_id < b.trace_id ? -1 : 1);
  const numbers = (row: Record<string, unknown> & { trace_id: string }) => ({
    ...row,
    spans_count: Number(row.spans_count),
    total_cost: Number(row.total_cost),
    error_count: Number(row.error_count),
    duration_ms: Number(row.duration_ms),
  });
  const wanted = new Map(expected.map((row) => [row.trace_id, row.total_cost]));
  // A sum added up in another order (SQL, the span writer, here) differs in its last bits: a
  // stored total within 1e-12 of the recomputed one is taken as it.
  const agreeing = (row: ReturnType<typeof numbers>) => {
    const sum = wanted.get(row.trace_id);
    return sum !== undefined && Math.abs(row.total_cost - sum) <= 1e-12 * Math.max(1, Math.abs(sum)) ? { ...row, total_cost: sum } : row;
  };
  expect(stored.map(numbers).map(agreeing).sort(byId)).to.deep.equal(expected.sort(byId));
}

/** A whole count below this is folded on its trace's duration row, not in a row of its own (src/storage/spans/fold/README.md). */
const CARRIED_BELOW = 100;
const CARRIED_COLUMNS: Record<string, 'small_spans_count' | 'small_error_count'> = {
  spans_count: 'small_spans_count',
  error_count: 'small_error_count',
};

/**
 * The folded trace figures (src/storage/spans/fold/trace-folding.ts) must agree with the summaries, in
 * one snapshot (folds may run meanwhile): every folded trace's figures equal its summary's, under
 * its root's hour and service, span and error counts below 100 carried on the duration row and
 * the others in rows of their own; no folded figure of a trace that is gone; every histogram row
 * counts exactly the folded figures of its hour, service, figure and bin, none missing, none more.
 */
export async function expectFoldedFiguresMatchSummaries(knex: Knex, applicationId: string): Promise<void> {
  await knex.transaction(
    async (trx) => {
      const summaries = (await trx('traces')
        .where('application_id', applicationId)
        .select('trace_id', 'folded', 'service_name', 'duration_ms', 'total_cost', 'spans_count', 'error_count')
        .select({ root_start: bigintAsText(trx, 'root_start_time_unix_nano') })) as Array<
        Record<string, unknown> & { trace_id: string; folded: number | string; root_start: string | null; service_name: string | null }
      >;
      const figureRows = (await trx('trace_figures')
        .where('application_id', applicationId)
        .select('trace_id', 'figure', 'service_key', 'bin', 'value', 'small_spans_count', 'small_error_count')
        .select({ hour: bigintAsText(trx, 'hour') })) as Array<{
        trace_id: string;
        figure: number | string;
        hour: string;
        service_key: unknown;
        bin: number | string;
        value: number | string;
        small_spans_count: number | string | null;
        small_error_count: number | string | null;
      }>;
      // The folded figures: the rows, and the counts the duration rows carry.
      const folded = figureRows.flatMap((row) => [
        row,
        ...TRACE_FIGURES.flatMap((figure, number) => {
          const carried = CARRIED_COLUMNS[figure] === undefined ? null : row[CARRIED_COLUMNS[figure]];
          if (carried === null) return [];
          expect(Number(row.figure), `trace ${row.trace_id}: counts carried on a row that is not its duration row`).to.equal(0);
          return [{ ...row, figure: number, bin: binOf(Number(carried)), value: carried }];
        }),
      ]);
      const byTrace = new Map(summaries.map((summary) => [summary.trace_id, summary]));
      expect(
        folded.filter((row) => !byTrace.has(row.trace_id)).map((row) => row.trace_id),
        'folded figures of traces that are gone',
      ).to.deep.equal([]);
      const filedOf = new Map<string, typeof folded>();
      for (const row of folded) filedOf.set(row.trace_id, [...(filedOf.get(row.trace_id) ?? []), row]);
      for (const summary of summaries) {
        if (Number(summary.folded) !== FOLD_STATE.folded || summary.root_start === null) continue;
        const wanted = TRACE_FIGURES.map((figure, number) => ({
          figure: number,
          hour: hourOf(BigInt(summary.root_start as string)).toString(),
          service: serviceKeyOf(summary.service_name),
          value: Number(summary[figure]),
        }));
        const got = (filedOf.get(summary.trace_id) ?? [])
          .map((row) => ({ figure: Number(row.figure), hour: row.hour, service: asText(row.service_key), value: Number(row.value) }))
          .sort((a, b) => a.figure - b.figure);
        expect(got, `folded figures of trace ${summary.trace_id}`).to.deep.equal(wanted);
        const ownRows = figureRows.filter((row) => row.trace_id === summary.trace_id).map((row) => TRACE_FIGURES[Number(row.figure)]);
        const wantedRows = TRACE_FIGURES.filter(
          (figure) => CARRIED_COLUMNS[figure] === undefined || Number(summary[figure]) >= CARRIED_BELOW,
        );
        expect(ownRows.sort(), `rows of trace ${summary.trace_id}`).to.deep.equal([...wantedRows].sort());
      }
      const counted = new Map<string, number>();
      for (const row of folded) {
        const key = JSON.stringify([row.hour, serviceOfKey(row.service_key), Number(row.figure), Number(row.bin)]);
        counted.set(key, (counted.get(key) ?? 0) + 1);
      }
      const histograms = (await trx('trace_histograms')
        .where('application_id', applicationId)
        .select('service_key', 'figure', 'bin', 'trace_count')
        .select({ hour: bigintAsText(trx, 'hour') })) as Array<{
        hour: string;
        service_key: unknown;
        figure: number | string;
        bin: number | string;
        trace_count: number | string;
      }>;
      const rows = new Map(
        histograms.map((row) => [
          JSON.stringify([row.hour, serviceOfKey(row.service_key), Number(row.figure), Number(row.bin)]),
          Number(row.trace_count),
        ]),
      );
      expect(Object.fromEntries([...rows].sort()), 'histogram counts').to.deep.equal(Object.fromEntries([...counted].sort()));
    },
    { isolationLevel: 'repeatable read' },
  );
}
