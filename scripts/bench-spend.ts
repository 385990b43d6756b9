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
//
// Grouped by an indexed attribute (group_by=attribute): the application indexes `tenant`, and
// `spend_slot_rollups` holds per hour and day one row per tenant (`--attribute-values`, 100 by
// default), one for the spans without one and one for those whose value the slot does not keep,
// their spans adding up to the hour's in spend_rollups (the read checks that); timed for the month
// and the 366-day window.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { initialIndexedAttributes, readySlots, serializeIndexedAttributes } from '../src/storage/accounts/indexed-attributes.js';
import type { IndexedSlot } from '../src/storage/spans/indexed-slots.js';
import { readSpend, SPEND_KEYS } from '../src/storage/spend/spend-reads.js';
import { spendDeltas, spendDeltasOf, TOKEN_COLUMNS, type SpendSpan } from '../src/storage/spend/spend-rollups.js';
import { SPEND_SLOT_ROLLUPS } from '../src/storage/spend/spend-slot-rollups.js';
import { runDatabaseCommand } from './lib/database-command.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const { values: options } = parseArgs({
  options: {
    'rows-per-hour': { type: 'string', default: '80' },
    'attribute-values': { type: 'string', default: '100' },
    runs: { type: 'string', default: '40' },
  },
});
const ROWS_PER_HOUR = Number(options['rows-per-hour']);
const ATTRIBUTE_VALUES = Number(options['attribute-values']);
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

/**
 * The spend_slot_rollups rows of [fromNs, toNs) (whole days) under the slot: per hour one row per
 * tenant, one without a value (kind 0) and one unkept (kind 2), whose spans share out the hour's
 * spans in spend_rollups (ROWS_PER_HOUR × the same scale), the days 24 hours of them.
 */
async function fillSlot(knex: Knex, applicationId: string, slot: IndexedSlot, fromNs: bigint, toNs: bigint): Promise<number> {
  const spansInHour = ROWS_PER_HOUR * Math.round(SPANS_PER_HOUR / ROWS_PER_HOUR);
  const kinds = [...Array.from({ length: ATTRIBUTE_VALUES }, (_, index) => ['1', `tenant-${index}`]), ['0', ''], ['2', '']];
  const indexOf = new Map(kinds.map(([kind, value], index) => [`${kind}:${value}`, index]));
  // The spans of value `index` in an hour: an even share, the remainder to the first values.
  const share = (index: number) => Math.floor(spansInHour / kinds.length) + (index < spansInHour % kinds.length ? 1 : 0);
  let rows = 0;
  for (let day = fromNs; day < toNs; day += DAY_NS) {
    const spans: Array<SpendSpan & { index: number }> = [];
    for (let hour = day; hour < day + DAY_NS && hour < toNs; hour += HOUR_NS) {
      const combinations = hourSpans(applicationId, hour);
      for (let index = 0; index < kinds.length; index += 1) spans.push({ ...(combinations[index % ROWS_PER_HOUR] as SpendSpan), index });
    }
    const deltas = spendDeltasOf(SPEND_SLOT_ROLLUPS, spans, (span) => {
      const [kind, value] = kinds[span.index] as [string, string];
      return [[String(slot.slot), String(slot.generation), kind, value, 'USD']];
    }).map((delta) => {
      // One span per value and hour, scaled to the value's share of the hour.
      const scale = share(indexOf.get(`${delta.value_kind}:${delta.value}`) ?? 0);
      for (const column of SCALED) if (column in delta) delta[column] = Number(delta[column]) * scale;
      return delta;
    });
    for (let offset = 0; offset < deltas.length; offset += 200)
      await knex(SPEND_SLOT_ROLLUPS.name).insert(deltas.slice(offset, offset + 200));
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
  const month = { applicationIds: [applicationId], previousStartNs, startNs, endNs, currency: 'USD' };
  const year = { ...month, previousStartNs: yearPreviousStartNs, startNs: yearStartNs, endNs: yearEndNs };
  for (const key of SPEND_KEYS) await time(`month summary by ${key}`, () => readSpend(knex, { ...month, key }));
  await time('366-day custom window by application_id', () => readSpend(knex, { ...year, key: 'application_id' }));
  // Grouped by an indexed attribute: `tenant` in a ready slot, its rows beside the same hours.
  const state = initialIndexedAttributes(['span_attributes.tenant'], Date.now());
  await knex('applications')
    .where({ id: applicationId })
    .update({ indexed_attributes_state: serializeIndexedAttributes(state) });
  const [slot] = readySlots(state) as [IndexedSlot];
  const slotBegan = Date.now();
  const slotRows = await fillSlot(knex, applicationId, slot, fillFromNs, endNs);
  if (knex.client.config.client === 'mysql2') await knex.raw(`ANALYZE TABLE ${SPEND_SLOT_ROLLUPS.name}`);
  console.log(
    `${SPEND_SLOT_ROLLUPS.name}: ${slotRows} rows (${ATTRIBUTE_VALUES + 2} values an hour, two years) in ${Date.now() - slotBegan} ms`,
  );
  const key = { slots: new Map([[applicationId, slot]]) };
  // The rows add up to spend_rollups' (else the read would time the spans, of which there are none).
  const spans = (read: Awaited<ReturnType<typeof readSpend>>) => read.values.reduce((sum, value) => sum + value.spans, 0);
  const [byValue, byApplication] = [await readSpend(knex, { ...month, key }), await readSpend(knex, { ...month, key: 'application_id' })];
  if (byValue.values.length !== ATTRIBUTE_VALUES + 2 || spans(byValue) !== spans(byApplication))
    throw new Error(
      `the attribute's rows do not add up: ${byValue.values.length} values, ${spans(byValue)} spans against ${spans(byApplication)}`,
    );
  await time(`month summary by an indexed attribute (${ATTRIBUTE_VALUES} values)`, () => readSpend(knex, { ...month, key }));
  await time('month summary by an indexed attribute, granularity=day', () => readSpend(knex, { ...month, key, daily: true }));
  await time('366-day custom window by an indexed attribute', () => readSpend(knex, { ...year, key }));
  await knex.destroy();
});
