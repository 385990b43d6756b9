// `npm run bench:spend`: how long the month spend summary of a 10-million-spans-a-day application
// takes (src/storage/spend/), per group_by, on the configured database (DATABASE_URL; SQLite in
// DATA_DIR otherwise). It does not ingest 300 million spans: it fills `spend_rollups` directly with
// the rows such a month would hold, two calendar months (the month read and the previous one),
// then times readSpend (the purge-edge check and the one statement) and prints p50/p95.
//
// Rows per hour: the ingest bench's GenAI workload (scripts/lib/bench-workload.ts) sends traces of
// 8 spans from 4 services; its LLM calls name 10 models under 15 (model, provider) texts (two
// conventions), each with its own SKU and resource type; the other spans (API requests, database
// queries, outbound calls, cache lookups) have no model and a handful of SKUs and resource types.
// At 10 million spans a day (~417,000 an hour) every combination turns up every hour, so an hour
// holds one row per combination: by default 15 LLM combinations × 4 services + 20 others = 80 rows
// (`--rows-per-hour` changes it), all in USD.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { readSpend, SPEND_KEYS } from '../src/storage/spend/spend-reads.js';
import { spendDeltas, TOKEN_COLUMNS, type SpendSpan } from '../src/storage/spend/spend-rollups.js';
import { runDatabaseCommand } from './lib/database-command.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const { values: options } = parseArgs({
  options: {
    'rows-per-hour': { type: 'string', default: '80' },
    runs: { type: 'string', default: '40' },
  },
});
const ROWS_PER_HOUR = Number(options['rows-per-hour']);
const RUNS = Number(options.runs);
const HOUR_NS = 3_600_000_000_000n;
const SPANS_PER_HOUR = Math.round(10_000_000 / 24);
const SERVICES = ['gateway', 'summarizer', 'search', 'billing-worker'];

/** The combinations of one hour: LLM calls (model, provider, SKU) per service first, then spans without a model. */
function hourSpans(applicationId: string, hourNs: bigint): SpendSpan[] {
  return Array.from({ length: ROWS_PER_HOUR }, (_, index) => {
    const llm = index < 60;
    const model = llm ? `model-${index % 15}` : null;
    const tokens = llm ? 1_000 + index : null;
    const span: SpendSpan = {
      application_id: applicationId,
      start_time_unix_nano: hourNs.toString(),
      service_name: SERVICES[Math.floor(index / 15) % SERVICES.length] as string,
      model,
      provider: llm ? `provider-${index % 6}` : null,
      billing_sku_id: llm ? `sku-${model}-out` : `sku-${index % 7}`,
      billing_resource_type: llm ? 'llm_generate_content' : (['db_job', 'api_request', 'cache', 'http_call'][index % 4] as string),
      cost: index % 5 === 4 ? null : 0.001 * (index + 1),
      price_currency: null,
      unpriced_reason: null,
      input_tokens: tokens,
      output_tokens: tokens,
      cache_read_tokens: null,
      cache_creation_tokens: null,
      total_tokens: tokens === null ? null : 2 * tokens,
    };
    return span;
  });
}

async function fill(knex: Knex, applicationId: string, fromNs: bigint, toNs: bigint): Promise<number> {
  let rows = 0;
  for (let hour = fromNs; hour < toNs; hour += HOUR_NS) {
    // One row per combination, scaled to the spans the hour holds.
    const deltas = spendDeltas(hourSpans(applicationId, hour)).map((delta) => {
      const scale = Math.round(SPANS_PER_HOUR / ROWS_PER_HOUR);
      for (const column of ['span_count', 'cost_count', 'cost_sum', ...TOKEN_COLUMNS]) delta[column] = Number(delta[column]) * scale;
      return delta;
    });
    for (let offset = 0; offset < deltas.length; offset += 200) await knex('spend_rollups').insert(deltas.slice(offset, offset + 200));
    rows += deltas.length;
  }
  return rows;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

await runDatabaseCommand(async (knex) => {
  await migrateToLatest(knex);
  const organizationId = await seedOrganization(knex);
  const applicationId = await seedApplication(knex, organizationId);
  const previousStartNs = BigInt(Date.UTC(2026, 9, 1)) * 1_000_000n;
  const startNs = BigInt(Date.UTC(2026, 10, 1)) * 1_000_000n;
  const endNs = BigInt(Date.UTC(2026, 11, 1)) * 1_000_000n;
  const began = Date.now();
  const rows = await fill(knex, applicationId, previousStartNs, endNs);
  if (knex.client.config.client === 'mysql2') await knex.raw('ANALYZE TABLE spend_rollups');
  console.log(
    `${knex.client.config.client}: ${rows} spend_rollups rows (${ROWS_PER_HOUR} an hour, two months) in ${Date.now() - began} ms`,
  );
  for (const key of SPEND_KEYS) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const t0 = process.hrtime.bigint();
      await readSpend(knex, { applicationIds: [applicationId], previousStartNs, startNs, endNs, currency: 'USD', key });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(
      `month summary by ${key}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (${RUNS} runs)`,
    );
  }
  await knex.destroy();
});
