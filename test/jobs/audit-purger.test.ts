// The audit log's retention on every database: a pass deletes exactly the events older than
// AUDIT_RETENTION_DAYS, of every organization, in batches of AUDIT_PURGE_BATCH_SIZE, keeps the
// younger ones, and two purgers of two instances (each its own connection pool) running at once
// delete each old event once between them.
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { AuditConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { AuditPurger } from '../../src/jobs/audit-purger.js';
import { openDatabase } from '../../src/storage/database.js';
import { insertAuditEvent, purgeAuditBatch } from '../../src/storage/audit/audit-events.js';
import { onEachDatabase } from '../support/test-server.js';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2027-06-01T00:00:00.000Z');
const CONFIG: AuditConfig = { retentionDays: 30, purgeIntervalSeconds: 0, purgeBatchSize: 4 };

async function seed(knex: Knex, organizationId: string, ages: number[]): Promise<void> {
  for (const [index, ageMs] of ages.entries()) {
    await insertAuditEvent(knex, {
      occurredAt: NOW - ageMs,
      organizationId,
      actorType: 'system',
      actorId: null,
      operationId: 'system',
      resourceType: 'organization',
      resourceId: organizationId,
      requestId: `purge-${index}`,
      callerAddress: null,
      outcome: 'success',
      before: null,
      after: null,
    });
  }
}

async function agesLeft(knex: Knex, organizationId: string): Promise<number[]> {
  const rows = (await knex('audit_events')
    .where('organization_id', organizationId)
    .orderBy('occurred_at', 'desc')
    .select('occurred_at')) as Array<{ occurred_at: number | string }>;
  return rows.map((row) => NOW - Number(row.occurred_at));
}

onEachDatabase('audit purge', (app) => {
  afterEach(async () => {
    // Only the synthetic organizations of this suite: the server's own events stay.
    await app().server.knex('audit_events').where('organization_id', 'like', 'org_purge%').del();
  });

  it('deletes the events past retention, of every organization, in batches, and keeps the rest', async () => {
    const knex = app().server.knex;
    const retention = CONFIG.retentionDays * DAY_MS;
    const old = [retention + 1, retention + DAY_MS, 2 * retention, 400 * DAY_MS, retention + 2, retention + 3, retention + 4];
    const young = [0, DAY_MS, retention - 1, retention];
    await seed(knex, 'org_purge_a', [...old, ...young]);
    await seed(knex, 'org_purge_b', [retention + 10, 5]);
    // One batch takes at most the batch size, oldest first, and says a full batch was found.
    expect(await purgeAuditBatch(knex, NOW - retention, 4)).to.deep.equal({ deleted: 4, full: true });
    const purger = new AuditPurger({ knex, logger: createLogger('silent'), config: CONFIG, now: () => NOW });
    expect(await purger.runOnce()).to.equal(old.length + 1 - 4);
    expect(await agesLeft(knex, 'org_purge_a')).to.deep.equal([...young].sort((a, b) => a - b));
    expect(await agesLeft(knex, 'org_purge_b')).to.deep.equal([5]);
    expect(await purger.runOnce()).to.equal(0);
  });

  it('is safe with two instances purging at once', async () => {
    const knex = app().server.knex;
    const retention = CONFIG.retentionDays * DAY_MS;
    const old = Array.from({ length: 37 }, (_, index) => retention + 1 + index * 1000);
    await seed(knex, 'org_purge_c', [...old, 10, 20]);
    // Another instance's pool on MariaDB; on SQLite the purgers share the one connection, as in
    // test/jobs/purger.test.ts (better-sqlite3 would wait for a lock synchronously).
    const { config, database } = app();
    const other = database === 'sqlite' ? knex : openDatabase(config.databaseUrl, config.dataDir);
    try {
      const first = new AuditPurger({ knex, logger: createLogger('silent'), config: CONFIG, now: () => NOW });
      const second = new AuditPurger({ knex: other, logger: createLogger('silent'), config: CONFIG, now: () => NOW });
      const [a, b] = await Promise.all([first.runOnce(), second.runOnce()]);
      expect(a + b).to.equal(old.length);
      expect(await agesLeft(knex, 'org_purge_c')).to.deep.equal([10, 20]);
    } finally {
      if (other !== knex) await other.destroy();
    }
  });
});
