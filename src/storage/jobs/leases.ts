// The lease by which one worker of any instance works on a job of a jobs table (re-pricing jobs,
// export jobs): a job is taken with one conditional UPDATE, every transaction of its worker
// starts by renewing the lease (the fence), and a worker that stops lets it go. The rules are in
// src/storage/repricing/README.md ("One worker at a time, any number of instances") and
// src/exports/README.md; the tables say which of their jobs may be taken (`claimable`).
import type { Knex } from 'knex';
import type { Run } from '../sql/dialect.js';
import { affectedRows } from '../transactions.js';

/** A table of jobs taken under a lease: its name and the column holding a job's state. */
export interface LeasedTable {
  name: string;
  state: string;
}

/** A job a worker holds: its id, and the worker's name on the lease. */
export interface Lease {
  id: string;
  owner: string;
}

export interface LeaseTiming {
  /** Epoch milliseconds. */
  now: number;
  /** How long the lease is renewed for by each transaction. */
  leaseMs: number;
}

/** The rows of `alias` that no instance holds: no lease, or an expired one. */
export function leaseFree(query: Knex.QueryBuilder, now: number, alias: string): Knex.QueryBuilder {
  return query.where((lease) => lease.whereNull(`${alias}.lease_owner`).orWhere(`${alias}.lease_expires_at`, '<=', now));
}

/**
 * Up to `limit` ids of the jobs of `table` a worker may take now by the table's rule
 * (`claimable`, over the table as `j`), oldest first; jobs of deleted applications are left.
 */
export async function claimableJobIds(
  knex: Knex,
  table: LeasedTable,
  claimable: (query: Knex.QueryBuilder, alias: string) => Knex.QueryBuilder,
  limit: number,
): Promise<string[]> {
  const rows = (await claimable(knex({ j: table.name }), 'j')
    .join({ a: 'applications' }, 'a.id', 'j.application_id')
    .whereNull('a.deleted_at')
    .orderBy([{ column: 'j.created_at' }, { column: 'j.id' }])
    .limit(limit)
    .select('j.id')) as Array<{ id: string }>;
  return rows.map((row) => row.id);
}

/**
 * Takes job `id` for `owner` until `now + leaseMs`, when `claimable` (the table's rule, over the
 * table under its own name) still holds: one conditional UPDATE, so of several instances taking
 * it at once exactly one does (on Galera the others fail certification, are retried and find it
 * taken). A queued job becomes running. False when another took it first.
 */
export async function claimLeasedJob(
  knex: Knex,
  table: LeasedTable,
  id: string,
  owner: string,
  { now, leaseMs }: LeaseTiming,
  claimable: (query: Knex.QueryBuilder, alias: string) => Knex.QueryBuilder,
): Promise<boolean> {
  const state = table.state;
  const taken = await claimable(knex(table.name).where({ id }), table.name).update({
    lease_owner: owner,
    lease_expires_at: now + leaseMs,
    [state]: knex.raw(`CASE WHEN ?? = 'queued' THEN 'running' ELSE ?? END`, [state, state]),
    started_at: knex.raw('COALESCE(started_at, ?)', [now]),
  });
  return taken === 1;
}

/**
 * Renews the lease of `lease` to `now + leaseMs` and writes `changes`, when `lease.owner` still
 * holds it and the job's state is one of `states`: the fence of every transaction of a worker.
 * False when the job was taken over or cancelled meanwhile (nothing written). It writes the job's
 * row, so a cancel that locks the row waits for the transaction, and across Galera nodes the
 * loser of a takeover fails certification.
 */
export async function fencedJobUpdate(
  db: Knex,
  run: Run,
  table: LeasedTable,
  lease: Lease,
  changes: Record<string, unknown>,
  { now, leaseMs, states = ['running'] }: LeaseTiming & { states?: readonly string[] },
): Promise<boolean> {
  const result = await run(
    db(table.name)
      .where({ id: lease.id, lease_owner: lease.owner })
      .whereIn(table.state, states)
      .update({ lease_expires_at: now + leaseMs, ...changes }),
  );
  return affectedRows(result) === 1;
}

/** Lets the job go (a worker that stops): another instance, or this one after a restart, takes it at once. */
export async function releaseLease(knex: Knex, table: LeasedTable, lease: Lease): Promise<void> {
  await knex(table.name).where({ id: lease.id, lease_owner: lease.owner }).update({ lease_owner: null, lease_expires_at: null });
}

/** Marks a running job `owner` holds failed with `changes` (its error), letting it go; false when it no longer held it. */
export async function failLeasedJob(
  knex: Knex,
  table: LeasedTable,
  lease: Lease,
  changes: Record<string, unknown>,
  now: number,
): Promise<boolean> {
  const failed = await knex(table.name)
    .where({ id: lease.id, lease_owner: lease.owner, [table.state]: 'running' })
    .update({ ...changes, [table.state]: 'failed', finished_at: now, lease_owner: null, lease_expires_at: null });
  return failed === 1;
}
