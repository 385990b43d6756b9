// Trace summaries (table `traces`) checked against a recomputation from the stored spans, every
// column: for tests that write or delete spans by unusual paths (the purger, a cluster losing nodes).
import { expect } from 'chai';
import type { Knex } from 'knex';
import { bigintAsText } from '../../src/storage/database.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { rootOf } from './reference-evaluator.js';

/** Every stored span of the application, as the reference evaluator reads them. */
async function storedSpans(knex: Knex, applicationId: string): Promise<SpanRow[]> {
  const rows = await knex('spans')
    .where('application_id', applicationId)
    .select('trace_id', 'span_id', 'parent_span_id', 'span_kind', 'span_name', 'service_name', 'unit', 'parent_unit', 'cost', 'status_code')
    .select({ start_time_unix_nano: bigintAsText(knex, 'start_time_unix_nano'), end_time_unix_nano: bigintAsText(knex, 'end_time_unix_nano') });
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
  const numbers = (row: Record<string, unknown> & { trace_id: string }) => ({ ...row, spans_count: Number(row.spans_count), total_cost: Number(row.total_cost), error_count: Number(row.error_count), duration_ms: Number(row.duration_ms) });
  expect(stored.map(numbers).sort(byId)).to.deep.equal(expected.sort(byId));
}
