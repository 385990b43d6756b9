// Trace summaries that ingestion merges inside one upsert, with no lock taken and no row read
// back first: the root's place in the root order becomes one string column, so the merge is a
// comparison of two strings; and the index by earliest start goes, which no query used (trace
// lists find their window by the root's start and sort after) but every new trace paid for.
//
// root_key = rank ('0' parentless, '1' a SPAN_KIND_SERVER span with a parent), the start time as
// 19 zero-padded digits, then the span_id: the smallest key is the root (earliest parentless
// span, else earliest SERVER span, ties by span_id). Null when the trace has no root.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('traces', (table) => {
    table.string('root_key', 36).nullable();
    table.dropIndex([], 'traces_by_min_start');
  });
  // Existing summaries: the rank comes from the stored root span's own parent.
  const parentless = knex('spans as s')
    .select(knex.raw('1'))
    .whereRaw('?? = ??', ['s.application_id', 'traces.application_id'])
    .andWhereRaw('?? = ??', ['s.trace_id', 'traces.trace_id'])
    .andWhereRaw('?? = ??', ['s.span_id', 'traces.root_span_id'])
    .whereNull('s.parent_span_id');
  const paddedStart = isMysql(knex)
    ? knex.raw(`LPAD(CAST(root_start_time_unix_nano AS CHAR), 19, '0')`)
    : knex.raw(`substr('0000000000000000000' || root_start_time_unix_nano, -19)`);
  const concat = isMysql(knex)
    ? 'CONCAT(CASE WHEN EXISTS ? THEN ? ELSE ? END, ?, root_span_id)'
    : '(CASE WHEN EXISTS ? THEN ? ELSE ? END || ? || root_span_id)';
  await knex('traces')
    .whereNotNull('root_span_id')
    .update({ root_key: knex.raw(concat, [parentless, '0', '1', paddedStart]) });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('traces', (table) => {
    table.dropColumn('root_key');
    table.index(['application_id', 'min_start_time_unix_nano', 'trace_id'], 'traces_by_min_start');
  });
}
