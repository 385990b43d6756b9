// `npm run bench:spend`: how long the month spend summary of a 10-million-spans-a-day application
// takes (src/storage/spend/), per group_by, on the configured database (DATABASE_URL; SQLite in
// DATA_DIR otherwise). It does not ingest 300 million spans: it fills `spend_rollups` directly with
// the rows two years would hold (hour rows, and day rows where the table keeps them), then times
// readSpend (the purge-edge check and the read) for a month summary per group_by and for a custom
// window of 366 days on ragged hours (with its previous 366 days), and prints p50/p95.
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
const DAY_NS = 24n * HOUR_NS;
const SERVICES = ['gateway', 'summarizer', 'search', 'billing-worker'];
/** The measures scaled from the one span a combination stands for to the hour's spans. */
const SCALED = ['span_count', 'trace_count', 'cost_count', 'cost_sum', ...TOKEN_COLUMNS];

/** The combinations of one hour: LLM calls (model, provider, SKU) per service first, then spans without a model. */
function hourSpans(applicationId: string, hourNs: bigint): SpendSpan[] {
  return Array.from({ length: ROWS_PER_HOUR }, (_, index) => {
    const llm = index < 60;
    const model = llm ? `model-${index % 15}` : null;
    const tokens = llm ? 1_000 + index : null;
    const span: SpendSpan = {
      application_id: applicationId,
      start_time_unix_nano: hourNs.toString(),
      // A trace of 8 spans has one root: every eighth combination stands for roots.
      parent_span_id: index % 8 === 0 ? null : 'ab'.repeat(8),
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
  // A day's spans at a time, so that every row (an hour's, a day's) is inserted once.
  for (let day = fromNs; day < toNs; day += 24n * HOUR_NS) {
    const spans: SpendSpan[] = [];
    for (let hour = day; hour < day + 24n * HOUR_NS && hour < toNs; hour += HOUR_NS) spans.push(...hourSpans(applicationId, hour));
    // One row per combination, scaled to the spans the hour holds.
    const scale = Math.round(SPANS_PER_HOUR / ROWS_PER_HOUR);
    const deltas = spendDeltas(spans).map((delta) => {
      for (const column of SCALED) if (column in delta) delta[column] = Number(delta[column]) * scale;
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

/** Times `read` RUNS times and prints its p50 and p95. */
async function time(label: string, read: () => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const t0 = process.hrtime.bigint();
    await read();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (${RUNS} runs)`);
}

await runDatabaseCommand(async (knex) => {
  await migrateToLatest(knex);
  const organizationId = await seedOrganization(knex);
  const applicationId = await seedApplication(knex, organizationId);
  const previousStartNs = BigInt(Date.UTC(2026, 9, 1)) * 1_000_000n;
  const startNs = BigInt(Date.UTC(2026, 10, 1)) * 1_000_000n;
  const endNs = BigInt(Date.UTC(2026, 11, 1)) * 1_000_000n;
  // The custom window: 366 days ending 5 hours before the month's end, so both ends are ragged.
  const yearEndNs = endNs - 5n * HOUR_NS;
  const yearStartNs = yearEndNs - 366n * DAY_NS;
  const yearPreviousStartNs = yearStartNs - 366n * DAY_NS;
  const fillFromNs = yearPreviousStartNs - (yearPreviousStartNs % DAY_NS);
  const began = Date.now();
  const rows = await fill(knex, applicationId, fillFromNs, endNs);
  if (knex.client.config.client === 'mysql2') await knex.raw('ANALYZE TABLE spend_rollups');
  console.log(`${knex.client.config.client}: ${rows} spend_rollups rows (${ROWS_PER_HOUR} an hour, two years) in ${Date.now() - began} ms`);
  for (const key of SPEND_KEYS)
    await time(`month summary by ${key}`, () =>
      readSpend(knex, { applicationIds: [applicationId], previousStartNs, startNs, endNs, currency: 'USD', key }),
    );
  await time('366-day custom window by application_id', () =>
    readSpend(knex, {
      applicationIds: [applicationId],
      previousStartNs: yearPreviousStartNs,
      startNs: yearStartNs,
      endNs: yearEndNs,
      currency: 'USD',
      key: 'application_id',
    }),
  );
  await knex.destroy();
});
