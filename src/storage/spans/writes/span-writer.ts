// Stores spans durably and keeps what is derived from them (derived-structures.ts, through the
// seam of derived-data.ts) and the request's usage (table `usage_hourly`,
// ../usage/usage-counts.ts) current, as spans arrive in any order and in any number of batches.
// A span already stored (same application, trace_id, span_id) is kept, never stored or counted
// twice.
import type { Knex } from 'knex';
import type { Run } from '../../sql/dialect.js';
import { bulkWriteTransaction, runCompiled } from '../../transactions.js';
import { SLOT_NUMBERS, slotColumn, type IndexedSlot } from '../indexed-slots.js';
import { insertSpansMysql, insertSpansSqlite } from './span-insert.js';
import { sendPrepared } from '../../sql/mysql-transaction.js';
import type { NativeStatement } from '../../sql/row-statements.js';
import type { DerivedData } from '../derived/derived-data.js';
import { DERIVED_STRUCTURES } from '../derived/derived-structures.js';
import { groupBy, type SpanRow } from '../span-row.js';
import { addUsageQuery, recordUsage, type UsageDelta } from '../../usage/usage-counts.js';

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
   * Epoch milliseconds after which the rows' slot values may no longer be stored (their keys
   * could have changed since, and a backfill could already have passed): checked before every
   * insert statement and again just before the commit, retries included, so no row with keys
   * older than that is inserted, nor committed late. The backfill walks spans by seq, which
   * neither orders commits nor, across Galera nodes, even inserts: it relies on every span stored
   * with the keys from before a change being committed before its walk starts
   * (src/jobs/slot-backfiller.ts), and this bound is what makes that hold.
   */
  slotKeysValidUntil?: number;
  /**
   * The application's slots in use, with their keys and generations, handed to the derived
   * structures (filed per trace, rolled up per value). None: the application indexes no
   * attribute. The rows must then be of that one application.
   */
  traceSlots?: readonly IndexedSlot[];
  /**
   * The export request's usage, added in the same transaction: its spans_accepted and
   * spans_duplicate are set here to the rows newly stored and the rows found stored already
   * (or repeated in the batch), so the usage counts exactly what the transaction commits.
   */
  usage?: UsageDelta;
  /** The structures kept with the spans, in the order they are called: DERIVED_STRUCTURES unless given. */
  derived?: readonly DerivedData[];
}

/** Traces one round of statements writes: their spans, then each derived structure's onTracesStored. */
const TRACES_PER_ROUND = 500;

/** The statements of one write, inside its transaction: `db` builds them, the others run them. */
interface Writer {
  db: Knex;
  insert(rows: SpanRow[]): Promise<number>;
  run: Run;
  /** Runs a multi-row write sized by inPowerOfTwoRuns: prepared on MariaDB/MySQL, whose text then repeats. */
  runSized: Run;
  /** Runs a statement compiled ahead (sql/row-statements.ts): prepared on MariaDB/MySQL too. */
  runNative(statement: NativeStatement): Promise<unknown>;
}

/**
 * A batch held spans that were stored already (an exporter's retry): its transaction is rolled
 * back and written again in checking mode, which learns first which spans are new.
 */
class SpansStoredAlready extends Error {}

/** How many times a checking write is redone when a concurrent writer stores the same spans meanwhile. */
const CHECKING_ATTEMPTS = 3;

/** The batch's spans that are stored already, as `trace_id/span_id`. */
async function storedKeys(writer: Writer, applicationId: string, rows: SpanRow[]): Promise<Set<string>> {
  const traceIds = [...new Set(rows.map((row) => row.trace_id))];
  const found = await writer.run<Array<{ trace_id: string; span_id: string }>>(
    writer.db('spans').select('trace_id', 'span_id').where('application_id', applicationId).whereIn('trace_id', traceIds),
  );
  return new Set(found.map((row) => `${row.trace_id}/${row.span_id}`));
}

/** Traces up to this many spans are checked for a repeated span by comparing each pair, with nothing allocated. */
const PAIRWISE_UP_TO = 16;

function repeatsSpan(rows: readonly SpanRow[]): boolean {
  if (rows.length > PAIRWISE_UP_TO) return new Set(rows.map((row) => row.span_id)).size !== rows.length;
  for (let index = 1; index < rows.length; index += 1) {
    const spanId = (rows[index] as SpanRow).span_id;
    for (let before = 0; before < index; before += 1) if ((rows[before] as SpanRow).span_id === spanId) return true;
  }
  return false;
}

/** The traces' rows, one per span: of a span repeated in the batch, the last row at the first one's place. */
function uniqueSpans(rowsByTrace: Map<string, SpanRow[]>): SpanRow[] {
  const unique: SpanRow[] = [];
  for (const rows of rowsByTrace.values()) {
    for (const row of repeatsSpan(rows) ? new Map(rows.map((row) => [row.span_id, row])).values() : rows) unique.push(row);
  }
  return unique;
}

function countRows(rowsByTrace: Map<string, SpanRow[]>): number {
  let count = 0;
  for (const rows of rowsByTrace.values()) count += rows.length;
  return count;
}

/**
 * Stores the rows of some traces of one application not stored yet, hands them to each derived
 * structure's onTracesStored, and answers them (onStored follows after every round).
 * Without `checking`, every row is taken to be new (the usual case) and a row found stored
 * already aborts the write (SpansStoredAlready); with it, the stored ones are looked up first.
 */
async function storeTraces(
  writer: Writer,
  applicationId: string,
  rowsByTrace: Map<string, SpanRow[]>,
  checking: boolean,
  traceSlots: readonly IndexedSlot[],
  derived: readonly DerivedData[],
): Promise<SpanRow[]> {
  let fresh = uniqueSpans(rowsByTrace);
  if (checking) {
    const stored = await storedKeys(writer, applicationId, fresh);
    fresh = fresh.filter((row) => !stored.has(`${row.trace_id}/${row.span_id}`));
  }
  if (fresh.length === 0) return fresh;
  const inserted = await writer.insert(fresh);
  if (inserted !== fresh.length) throw new SpansStoredAlready();
  const byTrace = fresh.length === countRows(rowsByTrace) ? rowsByTrace : groupBy(fresh, (row) => row.trace_id);
  for (const structure of derived) await structure.onTracesStored?.({ applicationId, fresh, byTrace, slots: traceSlots }, writer);
  return fresh;
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
 * Stores the spans and brings every derived structure up to date, in one transaction: when this
 * resolves, everything is committed. Lock conflicts retry the whole transaction.
 */
export async function storeSpans(knex: Knex, rows: SpanRow[], options: StoreOptions = {}): Promise<void> {
  const { slotKeysValidUntil, traceSlots = [], usage, derived = DERIVED_STRUCTURES } = options;
  if (rows.length === 0) {
    if (usage) await recordUsage(knex, { ...usage, spans_accepted: 0, spans_duplicate: 0 });
    return;
  }
  const work = rounds(rows);
  if (traceSlots.length > 0 && new Set(work.map((round) => round.applicationId)).size > 1)
    throw new Error('traceSlots given for the rows of several applications');
  // Slot values without their generation could not be filed per trace: any-span searches on a ready slot would come up short.
  const filed = new Set(traceSlots.map((target) => target.slot));
  const unfiled = SLOT_NUMBERS.find(
    (slot) => !filed.has(slot) && rows.some((row) => row[slotColumn(slot)] !== null && row[slotColumn(slot)] !== undefined),
  );
  if (unfiled !== undefined) throw new Error(`rows hold values of slot ${unfiled} but traceSlots does not give its generation`);
  const write = async (writer: Writer, checking: boolean) => {
    const fresh: SpanRow[] = [];
    for (const { applicationId, rowsByTrace } of work)
      fresh.push(...(await storeTraces(writer, applicationId, rowsByTrace, checking, traceSlots, derived)));
    if (fresh.length > 0) for (const structure of derived) await structure.onStored?.({ fresh, slots: traceSlots }, writer);
    // One row per application, key and hour: the last statement, so its lock is held the shortest.
    if (usage)
      await writer.runSized(
        addUsageQuery(writer.db, { ...usage, spans_accepted: fresh.length, spans_duplicate: rows.length - fresh.length }),
      );
    // A transaction slowed past its keys' age (lock waits after the insert) commits nothing.
    if (slotKeysValidUntil !== undefined && fresh.length > 0 && Date.now() > slotKeysValidUntil) throw new StaleSlotKeysError();
  };
  const checked =
    (insert: Writer['insert']): Writer['insert'] =>
    async (unique) => {
      if (slotKeysValidUntil !== undefined && Date.now() > slotKeysValidUntil) throw new StaleSlotKeysError();
      return insert(unique);
    };
  const transaction = (checking: boolean) =>
    bulkWriteTransaction(knex, ({ db, run, connection }) =>
      // MariaDB/MySQL insert through prepared statements on the transaction's own connection.
      write(
        {
          db,
          run,
          runSized: connection ? (query) => sendPrepared(connection, query) : run,
          runNative: (statement) => runCompiled({ db, run, connection }, statement),
          insert: checked((unique) => (connection ? insertSpansMysql(connection, unique) : insertSpansSqlite(db, unique))),
        },
        checking,
      ),
    );
  for (let attempt = 0; ; attempt += 1) {
    try {
      await transaction(attempt > 0);
      return;
    } catch (error) {
      if (!(error instanceof SpansStoredAlready) || attempt >= CHECKING_ATTEMPTS) throw error;
    }
  }
}
