// The usage rows' retention on every database: a pass deletes exactly the hourly rows of hours
// that began more than USAGE_RETENTION_DAYS ago, of every application and key, in batches of
// USAGE_PURGE_BATCH_SIZE, keeps the younger ones, and two purgers of two instances (each its own
// connection pool) running at once delete each old row once between them.
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { AuditConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { UsagePurger } from '../../src/jobs/usage-purger.js';
import { openDatabase } from '../../src/storage/database.js';
import { purgeUsageBatch } from '../../src/storage/usage/usage-purge.js';
import { onEachDatabase } from '../support/test-server.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const NOW = Date.parse('2027-06-01T00:30:00.000Z');
const HOUR_NOW = NOW - (NOW % HOUR_MS);
const CONFIG: AuditConfig = { retentionDays: 30, purgeIntervalSeconds: 0, purgeBatchSize: 4 };

/** One row per (hour age, key), counting `requests: 1` so that a row is visibly there. */
async function seed(knex: Knex, applicationId: string, hourAges: number[], keys = ['ak_one', '']): Promise<void> {
  const rows = hourAges.flatMap((age) =>
    keys.map((key) => ({ application_id: applicationId, hour_start: HOUR_NOW - age * HOUR_MS, api_key: key, requests: 1 })),
  );
  await knex('usage_hourly').insert(rows);
}

/** The hours left (their age in hours), newest first, once per key. */
async function hoursLeft(knex: Knex, applicationId: string): Promise<number[]> {
  const rows = (await knex('usage_hourly')
    .where('application_id', applicationId)
    .orderBy([{ column: 'hour_start', order: 'desc' }, 'api_key'])
    .select('hour_start')) as Array<{ hour_start: number | string }>;
  return rows.map((row) => (HOUR_NOW - Number(row.hour_start)) / HOUR_MS);
}

onEachDatabase('usage purge', (app) => {
  afterEach(async () => {
    await app().server.knex('usage_hourly').where('application_id', 'like', 'app_purge%').del();
  });

  it('deletes the hours past retention, of every application and key, in batches, and keeps the rest', async () => {
    const knex = app().server.knex;
    const retentionHours = (CONFIG.retentionDays * DAY_MS) / HOUR_MS;
    // The pass runs on the hour: an hour that began exactly at the retention bound is kept; one hour earlier is not.
    const old = [retentionHours + 1, retentionHours + 24, 2 * retentionHours, 400 * 24];
    const young = [0, 1, retentionHours - 1, retentionHours];
    await seed(knex, 'app_purge_a', [...old, ...young]);
    await seed(knex, 'app_purge_b', [retentionHours + 5, 2], ['ak_two']);
    const cutoff = HOUR_NOW - retentionHours * HOUR_MS;
    const purger = new UsagePurger({ knex, logger: createLogger('silent'), config: CONFIG, now: () => HOUR_NOW });
    // One batch takes at most the batch size, oldest first, and says a full batch was found.
    expect(await purgeUsageBatch(knex, cutoff, 4)).to.deep.equal({ deleted: 4, full: true });
    expect(await purger.runOnce()).to.equal(old.length * 2 + 1 - 4);
    expect(await hoursLeft(knex, 'app_purge_a')).to.deep.equal(young.flatMap((age) => [age, age]));
    expect(await hoursLeft(knex, 'app_purge_b')).to.deep.equal([2]);
    expect(await purger.runOnce()).to.equal(0);
  });

  it('is safe with two instances purging at once', async () => {
    const knex = app().server.knex;
    const retentionHours = (CONFIG.retentionDays * DAY_MS) / HOUR_MS;
    const old = Array.from({ length: 23 }, (_, index) => retentionHours + 1 + index);
    await seed(knex, 'app_purge_c', [...old, 3, 4]);
    const { config, database } = app();
    // Another instance's pool on MariaDB; on SQLite the purgers share the one connection.
    const other = database === 'sqlite' ? knex : openDatabase(config.databaseUrl, config.dataDir);
    const now = () => HOUR_NOW;
    try {
      const first = new UsagePurger({ knex, logger: createLogger('silent'), config: CONFIG, now });
      const second = new UsagePurger({ knex: other, logger: createLogger('silent'), config: CONFIG, now });
      const [a, b] = await Promise.all([first.runOnce(), second.runOnce()]);
      expect(a + b).to.equal(old.length * 2);
      expect(await hoursLeft(knex, 'app_purge_c')).to.deep.equal([3, 3, 4, 4]);
    } finally {
      if (other !== knex) await other.destroy();
    }
  });
});
