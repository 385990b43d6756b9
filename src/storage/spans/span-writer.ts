// Stores spans durably and keeps the per-trace summaries (table `traces`) current, as spans
// arrive in any order and in any number of batches. A span already stored (same application,
// trace_id, span_id) is kept, never stored twice.
import type { Knex } from 'knex';
import type { Run } from '../sql/dialect.js';
import { bulkWriteTransaction } from '../transactions.js';
import { insertSpansMysql, insertSpansSqlite } from './span-insert.js';
import type { SpanRow } from './span-row.js';
import { batchSummaries, groupBy, mergeQuery, recomputeSummaries } from './trace-summaries.js';

/**
 * The rows' indexed slot values were computed from keys read too long ago to be stored: the
 * caller reads the keys again and maps the rows anew (see src/ingest/ingest-traces.ts).
 */
export class StaleSlotKeysError extends Error {
  constructor() {
    super('indexed attribute keys read too long ago');
    this.name = 'StaleSlotKeysError';
  }
}

export interface StoreOptions {
  /**
   * Epoch milliseconds after which the rows' slot values may no longer be inserted (their keys
   * could have changed since, and a backfill could already have passed): checked before every
   * insert statement, retries included, so no row is inserted with keys older than that.
   */
  slotKeysValidUntil?: number;
}

/** Traces whose spans and summaries one round of statements writes. */
const TRACES_PER_ROUND = 500;

/** The statements of one write, inside its transaction: `db` builds them, the others run them. */
interface Writer {
  db: Knex;
  insert(rows: SpanRow[]): Promise<number>;
  run: Run;
}

/**
 * Stores the rows of some traces of one application and brings their summaries up to date.
 * When every row was new (the usual case) one upsert merges the batch into the stored
 * summaries; when some were stored already (an exporter's retry), the summaries are locked and
 * recomputed from the spans, so a re-sent span is never counted twice.
 */
async function storeTraces(writer: Writer, applicationId: string, rowsByTrace: Map<string, SpanRow[]>): Promise<void> {
  const rows = [...rowsByTrace.values()].flat();
  const unique = [...new Map(rows.map((row) => [`${row.trace_id}/${row.span_id}`, row])).values()];
  const inserted = await writer.insert(unique);
  const { db, run } = writer;
  if (inserted === unique.length) {
    await run(mergeQuery(db, batchSummaries(applicationId, unique.length === rows.length ? rowsByTrace : groupBy(unique, (row) => row.trace_id))));
    return;
  }
  await recomputeSummaries(db, applicationId, [...rowsByTrace.keys()], run);
}

/**
 * The rows of each application, by trace, in rounds of at most TRACES_PER_ROUND traces in
 * trace_id order: the lock order stays fixed, and no statement outgrows SQLite's 500-term
 * compound inserts or either database's placeholder limit.
 */
function rounds(rows: SpanRow[]): Array<{ applicationId: string; rowsByTrace: Map<string, SpanRow[]> }> {
  const byApplication = groupBy(rows, (row) => row.application_id);
  return [...byApplication].flatMap(([applicationId, applicationRows]) => {
    const byTrace = [...groupBy(applicationRows, (row) => row.trace_id)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const result = [];
    for (let offset = 0; offset < byTrace.length; offset += TRACES_PER_ROUND) {
      result.push({ applicationId, rowsByTrace: new Map(byTrace.slice(offset, offset + TRACES_PER_ROUND)) });
    }
    return result;
  });
}

/**
 * Stores the spans and brings the summaries of every trace they touch up to date, in one
 * transaction: when this resolves, everything is committed. Lock conflicts retry the whole
 * transaction.
 */
export async function storeSpans(knex: Knex, rows: SpanRow[], options: StoreOptions = {}): Promise<void> {
  if (rows.length === 0) return;
  const work = rounds(rows);
  const write = async (writer: Writer) => {
    for (const { applicationId, rowsByTrace } of work) await storeTraces(writer, applicationId, rowsByTrace);
  };
  const { slotKeysValidUntil } = options;
  const checked = (insert: Writer['insert']): Writer['insert'] => async (unique) => {
    if (slotKeysValidUntil !== undefined && Date.now() > slotKeysValidUntil) throw new StaleSlotKeysError();
    return insert(unique);
  };
  await bulkWriteTransaction(knex, ({ db, run, connection }) =>
    // MariaDB/MySQL insert through prepared statements on the transaction's own connection.
    write({ db, run, insert: checked((unique) => (connection ? insertSpansMysql(connection, unique) : insertSpansSqlite(db, unique))) }),
  );
}
