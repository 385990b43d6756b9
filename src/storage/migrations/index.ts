// The ordered list of migrations. Listed in code (not discovered on disk) so they run the same
// under tsx, in tests and from a bundle.
import type { Knex } from 'knex';
import * as accounts from './20261122000000_accounts.js';
import * as spans from './20261122000100_spans.js';
import * as traceSummaryMerge from './20261122000200_trace_summary_merge.js';
import * as spanStatusEvents from './20261123000100_span_status_events.js';
import * as applicationRetention from './20261123000200_application_retention.js';
import * as indexedAttributes from './20261123000300_indexed_attributes.js';
import * as spanRollups from './20261123000400_span_rollups.js';
import * as traceSlotValues from './20261124000100_trace_slot_values.js';
import * as signInLinks from './20261124000200_sign_in_links.js';
import * as apiKeyLifecycle from './20261125000100_api_key_lifecycle.js';
import * as auditEvents from './20261125000500_audit_events.js';
import * as usageMetering from './20261126000300_usage_metering.js';
import * as writeGuards from './20261127000100_write_guards.js';
import * as slotRollups from './20261128000100_slot_rollups.js';
import * as traceFolding from './20261129000100_trace_folding.js';
import * as traceFigureSmallCounts from './20261130000100_trace_figure_small_counts.js';
import * as lz4PageCompression from './20261201000100_lz4_page_compression.js';
import * as derivedRebuilds from './20261202000100_derived_rebuilds.js';
import * as purgeEdge from './20261203000100_purge_edge.js';
import * as spanSlotValues from './20261204000100_span_slot_values.js';
import * as spanTokens from './20261205000100_span_tokens.js';
import * as computedCost from './20261206000100_computed_cost.js';
import * as priceEntries from './20261207000100_price_entries.js';
import * as repricingJobs from './20261208000100_repricing_jobs.js';
import * as webhooks from './20261209000100_webhooks.js';
import * as spendRollups from './20261209000200_spend_rollups.js';
import * as budgets from './20261210000100_budgets.js';
import * as spendSlotRollups from './20261212000100_spend_slot_rollups.js';
import * as dashboardSessions from './20261213000100_dashboard_sessions.js';
import * as exportJobs from './20261214000100_exports.js';
import * as exportCompression from './20261215000100_export_compression.js';
import { MIGRATIONS_TABLE, migrateUnderLock, type MigrationWait } from './migration-lock.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['20261122000000_accounts', accounts],
  ['20261122000100_spans', spans],
  ['20261122000200_trace_summary_merge', traceSummaryMerge],
  ['20261123000100_span_status_events', spanStatusEvents],
  ['20261123000200_application_retention', applicationRetention],
  ['20261123000300_indexed_attributes', indexedAttributes],
  ['20261123000400_span_rollups', spanRollups],
  ['20261124000100_trace_slot_values', traceSlotValues],
  ['20261124000200_sign_in_links', signInLinks],
  ['20261125000100_api_key_lifecycle', apiKeyLifecycle],
  ['20261125000500_audit_events', auditEvents],
  ['20261126000300_usage_metering', usageMetering],
  ['20261127000100_write_guards', writeGuards],
  ['20261128000100_slot_rollups', slotRollups],
  ['20261129000100_trace_folding', traceFolding],
  ['20261130000100_trace_figure_small_counts', traceFigureSmallCounts],
  ['20261201000100_lz4_page_compression', lz4PageCompression],
  ['20261202000100_derived_rebuilds', derivedRebuilds],
  ['20261203000100_purge_edge', purgeEdge],
  ['20261204000100_span_slot_values', spanSlotValues],
  ['20261205000100_span_tokens', spanTokens],
  ['20261206000100_computed_cost', computedCost],
  ['20261207000100_price_entries', priceEntries],
  ['20261208000100_repricing_jobs', repricingJobs],
  ['20261209000100_webhooks', webhooks],
  ['20261209000200_spend_rollups', spendRollups],
  ['20261210000100_budgets', budgets],
  ['20261212000100_spend_slot_rollups', spendSlotRollups],
  ['20261213000100_dashboard_sessions', dashboardSessions],
  ['20261214000100_exports', exportJobs],
  ['20261215000100_export_compression', exportCompression],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = MIGRATIONS.find(([candidate]) => candidate === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};

export const migratorConfig: Knex.MigratorConfig = { migrationSource, tableName: MIGRATIONS_TABLE };

/** How long a start waits for another instance's migrations by default (MIGRATION_LOCK_WAIT_SECONDS). */
export const DEFAULT_MIGRATION_LOCK_WAIT_MS = 120_000;

/**
 * Applies every pending migration; when another instance is applying them, waits for it (up to
 * `lockWaitMs`, then MigrationLockTimeout) and resolves once they are applied (migration-lock.ts).
 */
export async function migrateToLatest(knex: Knex, wait: Partial<MigrationWait> = {}): Promise<void> {
  await migrateUnderLock(knex, migratorConfig, () => migrationsAreCurrent(knex), { lockWaitMs: DEFAULT_MIGRATION_LOCK_WAIT_MS, ...wait });
}

/** True when every known migration has been applied. */
export async function migrationsAreCurrent(knex: Knex): Promise<boolean> {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown[], unknown[]];
  return pending.length === 0;
}
