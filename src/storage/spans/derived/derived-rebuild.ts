// The rebuild of derived data from the stored spans (`npm run rebuild`, README "Rebuilding derived
// data"): hour by hour of span start time, one application and one hour per transaction, every
// structure of the list (derived-structures.ts) replaces its rows of the hour with what the spans
// give (DerivedData.rebuild), in list order. The transaction locks what it reads, gaps included
// (lockingWriteTransaction): from its read of the hour's spans on, no writer or purger adds or
// deletes a span of the hour, nor changes a derived row it read, until it commits; they wait, or
// lose a deadlock and are retried. The progress of a run is kept in table `derived_rebuilds`,
// written in each hour's transaction: run again with the same arguments, an interrupted run goes
// on after the last hour it committed.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import { dialectFor } from '../../sql/index.js';
import type { WriteTransaction } from '../../sql/dialect.js';
import { lockingWriteTransaction, runCompiled } from '../../transactions.js';
import { slotsInUse } from '../application-span-state.js';
import type { DerivedData, DerivedStatements, HeldHours } from './derived-data.js';
import { DERIVED_STRUCTURES } from './derived-structures.js';
import { HOUR_NS, hourStartOf } from '../read-sources.js';
import { heldHoursOf } from './held-hours.js';

export const REBUILD_PROGRESS = 'derived_rebuilds';

export interface RebuildOptions {
  /** One application; every application (in id order) when left out. */
  applicationId?: string;
  /** The window of span start time, rounded out to whole hours; left out: from the first / to the last hour held. */
  fromNs?: bigint;
  toNs?: bigint;
  /** The structures rebuilt, called in list order: DERIVED_STRUCTURES unless given. */
  structures?: readonly DerivedData[];
  /** Before the first hour, when an earlier run with the same arguments stopped after `hour`. */
  onResume?(after: { applicationId: string; startNs: bigint }): void;
  /** After each hour's commit. */
  onHour?(hour: RebuiltHourReport): void | Promise<void>;
}

export interface RebuiltHourReport {
  applicationId: string;
  startNs: bigint;
  /** The traces of the hour (RebuiltHour.traceIds). */
  traces: number;
  elapsedMs: number;
}

export interface RebuildOutcome {
  /** Hours rebuilt by this call. */
  hours: number;
  /** Where an earlier run with the same arguments stopped, when this call went on from there. */
  resumedAfter?: { applicationId: string; startNs: bigint };
}

/** The run's key in the progress table: its arguments, the window as given. */
export function runKey(options: RebuildOptions, structures: readonly DerivedData[]): { key: string; text: string } {
  const text = JSON.stringify({
    application: options.applicationId ?? null,
    from: options.fromNs?.toString() ?? null,
    to: options.toNs?.toString() ?? null,
    structures: structures.map((structure) => structure.name),
  });
  return { key: createHash('sha256').update(text).digest('hex'), text };
}

/** The hours of the application the spans or a structure hold rows of, as [first, last]. */
async function heldWindow(knex: Knex, applicationId: string, structures: readonly DerivedData[]): Promise<HeldHours | undefined> {
  const ranges = [await heldHoursOf(knex, knex('spans').where('application_id', applicationId), 'start_time_unix_nano')];
  for (const structure of structures) ranges.push(await structure.heldHours?.(knex, applicationId));
  let held: HeldHours | undefined;
  for (const range of ranges) {
    if (range === undefined) continue;
    held = held
      ? {
          firstNs: range.firstNs < held.firstNs ? range.firstNs : held.firstNs,
          lastNs: range.lastNs > held.lastNs ? range.lastNs : held.lastNs,
        }
      : range;
  }
  return held;
}

/** The hour starts to rebuild for the application: the window given, rounded out, within the hours held. */
async function hoursOf(knex: Knex, applicationId: string, options: RebuildOptions, structures: readonly DerivedData[]): Promise<bigint[]> {
  const held = await heldWindow(knex, applicationId, structures);
  if (held === undefined) return [];
  let first = held.firstNs;
  let end = held.lastNs + HOUR_NS;
  if (options.fromNs !== undefined && hourStartOf(options.fromNs) > first) first = hourStartOf(options.fromNs);
  if (options.toNs !== undefined) {
    const toHour = hourStartOf(options.toNs) === options.toNs ? options.toNs : hourStartOf(options.toNs) + HOUR_NS;
    if (toHour < end) end = toHour;
  }
  const hours: bigint[] = [];
  for (let hour = first; hour < end; hour += HOUR_NS) hours.push(hour);
  return hours;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Rebuilds one hour of one application inside `transaction`, a lockingWriteTransaction whose
 * first statement was a write of the caller's own progress (on SQLite the transaction holds the
 * one writer from there): reads the slots in use and the traces of the hour, then calls each
 * structure's rebuild in list order. Resolves with the number of traces of the hour. For callers
 * that record their progress elsewhere (the re-pricing job) in the same transaction as the hour.
 */
export async function rebuildHourIn(
  transaction: WriteTransaction,
  applicationId: string,
  startNs: bigint,
  structures: readonly DerivedData[] = DERIVED_STRUCTURES,
): Promise<number> {
  const { db, run } = transaction;
  const { exactInteger } = dialectFor(db);
  const endNs = startNs + HOUR_NS;
  const statements: DerivedStatements = { db, run, runNative: (statement) => runCompiled(transaction, statement) };
  const slots = await slotsInUse(db, applicationId, run);
  // The hour's spans along (application_id, start_time_unix_nano): on MariaDB this read locks
  // the range, so no span of the hour comes or goes until the commit.
  const spans = await run<Array<{ trace_id: string }>>(
    db('spans')
      .select('trace_id')
      .where('application_id', applicationId)
      .whereRaw(`start_time_unix_nano >= ${exactInteger}`, [startNs.toString()])
      .whereRaw(`start_time_unix_nano < ${exactInteger}`, [endNs.toString()]),
  );
  const traces = new Set(spans.map((span) => span.trace_id));
  for (const structure of structures) {
    for (const traceId of (await structure.tracesOfHour?.({ applicationId, startNs, endNs, slots }, statements)) ?? []) traces.add(traceId);
  }
  const traceIds = [...traces].sort(byText);
  for (const structure of structures) await structure.rebuild?.({ applicationId, startNs, endNs, traceIds, slots }, statements);
  return traceIds.length;
}

/**
 * Rebuilds one hour of one application in one transaction: records the run's progress first (a
 * write: on SQLite the transaction holds the one writer from there), then rebuildHourIn.
 * Resolves with the number of traces of the hour.
 */
export async function rebuildHour(
  knex: Knex,
  applicationId: string,
  startNs: bigint,
  structures: readonly DerivedData[],
  progress: { key: string; text: string },
): Promise<number> {
  return lockingWriteTransaction(knex, async (transaction) => {
    const { db, run } = transaction;
    await run(
      db(REBUILD_PROGRESS)
        .insert({
          run_key: progress.key,
          arguments: progress.text,
          application_id: applicationId,
          hour_start_unix_nano: startNs.toString(),
          updated_at: Date.now(),
        })
        .onConflict('run_key')
        .merge(),
    );
    return rebuildHourIn(transaction, applicationId, startNs, structures);
  });
}

/** Where the run with this key stopped, if it did. */
async function progressOf(knex: Knex, key: string): Promise<{ applicationId: string; startNs: bigint } | undefined> {
  const row = (await knex(REBUILD_PROGRESS)
    .where('run_key', key)
    .first('application_id', { hour: bigintAsText(knex, 'hour_start_unix_nano') })) as { application_id: string; hour: string } | undefined;
  return row && { applicationId: row.application_id, startNs: BigInt(row.hour) };
}

/**
 * Rebuilds the structures over the window for the application (or every application), hour by
 * hour in order, each hour in its own transaction (rebuildHour). An earlier run with the same
 * arguments that stopped goes on after the last hour it committed; a run that finishes deletes
 * its progress, so the next one starts from the beginning.
 */
export async function rebuildDerivedData(knex: Knex, options: RebuildOptions = {}): Promise<RebuildOutcome> {
  const chosen = options.structures ?? DERIVED_STRUCTURES;
  const progress = runKey(options, chosen);
  const resumedAfter = await progressOf(knex, progress.key);
  if (resumedAfter) options.onResume?.(resumedAfter);
  const applications =
    options.applicationId !== undefined
      ? [options.applicationId]
      : ((await knex('applications').select('id').orderBy('id')) as Array<{ id: string }>).map((row) => row.id);
  let hours = 0;
  for (const applicationId of applications) {
    if (resumedAfter && applicationId < resumedAfter.applicationId) continue;
    for (const startNs of await hoursOf(knex, applicationId, options, chosen)) {
      if (resumedAfter && applicationId === resumedAfter.applicationId && startNs <= resumedAfter.startNs) continue;
      const started = performance.now();
      const traces = await rebuildHour(knex, applicationId, startNs, chosen, progress);
      hours += 1;
      await options.onHour?.({ applicationId, startNs, traces, elapsedMs: performance.now() - started });
    }
  }
  await knex(REBUILD_PROGRESS).where('run_key', progress.key).del();
  return resumedAfter ? { hours, resumedAfter } : { hours };
}
