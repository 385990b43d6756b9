// `npm run bench:budgets`: how long one pass of the budget evaluator (src/jobs/budget-evaluator.ts)
// takes over 1,000 budgets, on the configured database (DATABASE_URL; SQLite in DATA_DIR
// otherwise). It seeds 100 organizations of 2 applications each, fills `spend_rollups` directly
// with `--rows-per-hour` rows per application and hour (USD and EUR) for the previous and the
// current month up to now, and 10 budgets per organization, each a different read (the
// organization's or one application's spend, a day or a month, in USD or EUR), with amounts that
// put some over their thresholds. Then it times the first pass (which fires those crossings) and
// `--passes` more (which find them recorded: a pass's steady cost), and prints p50 and max.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { BudgetEvaluator } from '../src/jobs/budget-evaluator.js';
import { createLogger } from '../src/logger.js';
import { periodAt, periodBefore } from '../src/storage/budgets/budget-periods.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { spendDeltas, type SpendSpan } from '../src/storage/spend/spend-rollups.js';
import { runDatabaseCommand } from './lib/database-command.js';
import { seedApplication, seedBudget, seedOrganization } from './lib/seed-accounts.js';

const { values: options } = parseArgs({
  options: {
    organizations: { type: 'string', default: '100' },
    'rows-per-hour': { type: 'string', default: '4' },
    passes: { type: 'string', default: '10' },
  },
});
const ORGANIZATIONS = Number(options.organizations);
const ROWS_PER_HOUR = Number(options['rows-per-hour']);
const PASSES = Number(options.passes);
const HOUR_MS = 3_600_000;

/** The rows of one application's hour: one per model, alternately in USD and EUR, costing 0.01 each. */
function hourSpans(applicationId: string, hourMs: number): SpendSpan[] {
  return Array.from({ length: ROWS_PER_HOUR }, (_, index) => ({
    application_id: applicationId,
    start_time_unix_nano: (BigInt(hourMs) * 1_000_000n).toString(),
    parent_span_id: null,
    service_name: 'bench',
    model: `model-${index}`,
    provider: 'provider',
    billing_sku_id: null,
    billing_resource_type: null,
    cost: 0.01,
    price_currency: index % 2 === 0 ? 'USD' : 'EUR',
    unpriced_reason: null,
    input_tokens: 100,
    output_tokens: 100,
    cache_read_tokens: null,
    cache_creation_tokens: null,
    total_tokens: 200,
  }));
}

async function fill(knex: Knex, applicationId: string, fromMs: number, toMs: number): Promise<number> {
  // All hours at once: a day row is made once from its hours' spans.
  const spans: SpendSpan[] = [];
  for (let hour = fromMs; hour < toMs; hour += HOUR_MS) spans.push(...hourSpans(applicationId, hour));
  const deltas = spendDeltas(spans);
  for (let offset = 0; offset < deltas.length; offset += 200) await knex('spend_rollups').insert(deltas.slice(offset, offset + 200));
  return deltas.length;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

await runDatabaseCommand(async (knex) => {
  await migrateToLatest(knex);
  const now = Date.now();
  const from = periodBefore('month', periodAt('month', now)).startMs;
  const to = Math.floor(now / HOUR_MS) * HOUR_MS;
  let rows = 0;
  let budgets = 0;
  const began = Date.now();
  for (let organization = 0; organization < ORGANIZATIONS; organization += 1) {
    const organizationId = await seedOrganization(knex, { name: `Budgets ${organization}` });
    const applications = [await seedApplication(knex, organizationId), await seedApplication(knex, organizationId)];
    for (const applicationId of applications) rows += await fill(knex, applicationId, from, to);
    // 12 different reads, 10 of them: scope × period × currency.
    const scopes = [null, ...applications];
    for (let index = 0; index < 10; index += 1) {
      await seedBudget(knex, organizationId, {
        application_id: scopes[index % 3] as string | null,
        period: Math.floor(index / 3) % 2 === 0 ? 'month' : 'day',
        currency: index % 2 === 0 ? 'USD' : 'EUR',
        // A month of 0.01 an hour per row: some budgets are over their thresholds, most are not.
        amount: 1 + ((organization * 10 + index) % 50),
      });
      budgets += 1;
    }
  }
  if (knex.client.config.client === 'mysql2') await knex.raw('ANALYZE TABLE spend_rollups, budgets, budget_crossings');
  console.log(`${knex.client.config.client}: ${budgets} budgets, ${rows} spend_rollups rows, seeded in ${Date.now() - began} ms`);
  const evaluator = new BudgetEvaluator({ knex, logger: createLogger('silent'), config: { intervalSeconds: 0 } });
  let t0 = process.hrtime.bigint();
  const fired = await evaluator.runOnce();
  console.log(`first pass: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms, ${fired} crossings fired`);
  const times: number[] = [];
  for (let pass = 0; pass < PASSES; pass += 1) {
    t0 = process.hrtime.bigint();
    const again = await evaluator.runOnce();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (again !== 0) throw new Error(`a later pass fired ${again} crossings: they were fired already`);
  }
  times.sort((a, b) => a - b);
  console.log(
    `later passes (nothing to fire): p50 ${percentile(times, 50).toFixed(0)} ms, max ${(times.at(-1) as number).toFixed(0)} ms (${PASSES} passes)`,
  );
  await knex.destroy();
});
