// The seam between the spans and the tables derived from them (README.md beside it): the
// span writer and the retention purge hand every derived structure the spans they stored or
// deleted, inside their own transaction, and the rebuild (derived-rebuild.ts) has each recompute
// one hour from the stored spans; none of them names a structure. The structures, in the order
// they are called, are listed in derived-structures.ts.
import type { Knex } from 'knex';
import type { Run } from '../../sql/dialect.js';
import type { NativeStatement } from '../../sql/row-statements.js';
import type { IndexedSlot } from '../indexed-slots.js';
import type { SpanRow } from '../span-row.js';

/** The write transaction the spans were stored or deleted in: `db` builds statements, the others run them in it. */
export interface DerivedStatements {
  db: Knex;
  run: Run;
  /** Runs a statement compiled ahead (sql/row-statements.ts): prepared on MariaDB/MySQL. */
  runNative(statement: NativeStatement): Promise<unknown>;
}

/** One round of a stored batch: spans newly stored of some traces of one application. */
export interface StoredTraces {
  applicationId: string;
  /** The round's spans newly stored, one row per span. */
  fresh: SpanRow[];
  /** The same rows by trace, traces in trace_id order. */
  byTrace: Map<string, SpanRow[]>;
  /** The application's slots in use, as the rows' slot values were written with (none: it indexes no attribute). */
  slots: readonly IndexedSlot[];
}

/** A whole stored batch, after all its rounds. */
export interface StoredBatch {
  /** Every span the batch newly stored, of every round (and application). */
  fresh: SpanRow[];
  /** As in StoredTraces; given only when the batch is of one application. */
  slots: readonly IndexedSlot[];
}

/** A deleted span as the purge read it: its trace and start, and the columns the structures asked for (deletedColumns). */
export interface DeletedSpan {
  start_time_unix_nano: string;
  trace_id: string;
  [column: string]: unknown;
}

/** One purge batch of one application, after its spans were deleted. */
export interface DeletedBatch {
  applicationId: string;
  spans: DeletedSpan[];
  /** The traces the spans belonged to, in trace_id order (the lock order). */
  traceIds: string[];
  /** The application's slots in use, read in the same transaction. */
  slots: readonly IndexedSlot[];
  /**
   * The application's purge edge (nanoseconds of start time) as this batch left it, at least:
   * above every deleted span. What a structure keeps of times below it is never read again.
   */
  purgedBeforeNs: bigint;
  /** The batch's size: a structure deleting rows not handed to it (below the edge) deletes at most this many per statement. */
  rowLimit: number;
}

/** One hour of one application to rebuild from the stored spans, inside the rebuild's transaction. */
export interface RebuiltHour {
  applicationId: string;
  /** The hour of span start time, [startNs, startNs + 1 hour), on a whole hour since the epoch. */
  startNs: bigint;
  endNs: bigint;
  /**
   * The traces of the hour, in trace_id order: those with a span that starts in it (read with
   * locks, so no span of the hour is added or deleted until the rebuild commits), and those the
   * structures keep rows of under it (tracesOfHour).
   */
  traceIds: string[];
  /** The application's slots in use, read in the same transaction. */
  slots: readonly IndexedSlot[];
}

/** The first and last hour (their starts, nanoseconds) a structure holds rows of for an application. */
export interface HeldHours {
  firstNs: bigint;
  lastNs: bigint;
}

/** A column the purge reads of each span before deleting it: a column name, or an expression named with AS. */
export type DeletedColumn = string | Knex.Raw;

/**
 * One structure derived from the spans. Every hook runs inside the transaction that stores or
 * deletes the spans, so the structure commits or rolls back with them; a hook that throws aborts
 * that transaction. Nothing here assumes how a database orders or merges rows: how a structure
 * adds or subtracts (an upsert, a recount, a new version) is its own.
 */
export interface DerivedData {
  /** What the structure is called in logs, errors and tests. */
  readonly name: string;
  /** Per round of a stored batch, right after the round's spans are inserted. */
  onTracesStored?(stored: StoredTraces, statements: DerivedStatements): Promise<void>;
  /** Once per stored batch, after all its rounds. */
  onStored?(stored: StoredBatch, statements: DerivedStatements): Promise<void>;
  /** The columns of each span the structure needs to take it out (besides start_time_unix_nano and trace_id). */
  deletedColumns?(db: Knex, slots: readonly IndexedSlot[]): DeletedColumn[];
  /** Once per purge batch, after its spans are deleted. */
  onDeleted?(deleted: DeletedBatch, statements: DerivedStatements): Promise<void>;
  /**
   * Replaces the structure's rows of one hour with what the stored spans give, in the rebuild's
   * transaction: the rows the hour's spans make, and any the hour holds that no stored span makes
   * any more. Run hour after hour over any window, in any order, any number of times.
   */
  rebuild?(hour: RebuiltHour, statements: DerivedStatements): Promise<void>;
  /**
   * The traces whose rows the structure keeps under the hour, besides those with a span in it (a
   * summary whose earliest span starts in it): rebuilt with the hour, so that rows whose spans are
   * all gone are found too. Read in the rebuild's transaction, before any structure's rebuild.
   */
  tracesOfHour?(hour: Omit<RebuiltHour, 'traceIds'>, statements: DerivedStatements): Promise<string[]>;
  /**
   * Once a slot's backfill has made it ready (slot-backfill.ts, the slot-backfiller job): fills
   * the structure's rows of the slot's generation for the spans stored before the key was
   * indexed, in transactions of its own (fillSlot in slot-fill.ts). Answers the hours it rebuilt.
   */
  fillSlot?(knex: Knex, applicationId: string, slot: IndexedSlot): Promise<number>;
  /** The hours the structure holds rows of (undefined: none): the default window of a rebuild reaches them too. */
  heldHours?(db: Knex, applicationId: string): Promise<HeldHours | undefined>;
}
