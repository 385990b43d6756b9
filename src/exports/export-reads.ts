// What a job's worker reads, batch by batch (README.md beside this file): the job's query as the
// span store takes it (the filter checked again, as at creation, from the text the job keeps),
// the records of a batch in the wire shape the engine answers with, and where the next batch
// goes on from (the last record's key in the list order).
import { validateFilter } from '../filter/validate.js';
import type { ExportJobRecord } from '../storage/exports/export-jobs.js';
import { spanKey, traceKey, type SpanStore } from '../storage/spans/span-store.js';
import { chosenColumns } from './columns.js';
import type { ExportColumn } from './formats/format.js';
import { exportRecord, type ExportRecords } from './records.js';

/** One batch read: its records (as the format takes them) and the key of its last one. */
export interface ReadBatch {
  records: Array<Record<string, unknown>>;
  lastKey: string[] | null;
}

export interface ExportReader {
  columns: readonly ExportColumn[];
  /** The next `limit` records after `after` (from the start when null). */
  read(after: string[] | null, limit: number): Promise<ReadBatch>;
}

/** The reader of `job`'s records, through `spans` (SpanStore.snapshotSpans or snapshotTraces), shaped by `records`. */
export function exportReader(job: ExportJobRecord, spans: SpanStore, records: ExportRecords): ExportReader {
  const columns = chosenColumns(job.grain, job.columns);
  const checked = validateFilter(job.filter === null ? null : JSON.parse(job.filter), { traceFields: job.grain === 'traces' });
  // Checked at creation by the same validator: a filter it refuses now comes from another release.
  if (!checked.ok) throw new Error(`the filter of export ${job.id} no longer passes validation: ${JSON.stringify(checked.issues)}`);
  // Attributes are read from each span's JSON, never from indexed slots, whose state may change during a long job.
  const query = { applicationId: job.applicationId, startNs: job.startNs, endNs: job.endNs, filter: checked.filter, indexedSlots: [] };
  const receivedBy = job.createdAt;
  return {
    columns,
    async read(after, limit) {
      if (job.grain === 'spans') {
        const found = await spans.snapshotSpans({ ...query, receivedBy, after, limit });
        const last = found.at(-1);
        return { records: found.map((span) => exportRecord(records.spans(span), columns)), lastKey: last ? spanKey(last) : null };
      }
      const found = await spans.snapshotTraces({ ...query, searchChildSpans: job.searchChildSpans, receivedBy, after, limit });
      const last = found.at(-1);
      return { records: found.map((trace) => exportRecord(records.traces(trace), columns)), lastKey: last ? traceKey(last) : null };
    },
  };
}
