// The query bench's data (scripts/bench-query.ts): how much of it a scale means, the spans of one
// request as the workload makes them, and the seeding through the service's own writer.
//
// A scale is a main day (2026-11-22, every whole-day case reads it) of `tracesPerDay` traces of 10
// spans, and the 6 days before it at 1/10 of that density, for the 7-day cases. The data is
// deterministic (a trace's spans follow from its index), so every run measures the same days.
import type { Knex } from 'knex';
import { parseIndexedAttributes, writtenSlots } from '../../src/storage/accounts/indexed-attributes.js';
import { NO_LLM_CALL, type SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { dialectFor } from '../../src/storage/sql/index.js';
import { log } from './bench-service.js';

export const SPANS_PER_TRACE = 10;
export const DAY_START_NS = BigInt(Date.UTC(2026, 10, 22)) * 1_000_000n;
export const DAY_NS = 86_400_000_000_000n;
export const HOUR_NS = 3_600_000_000_000n;
/** Days seeded before the main day, and how much thinner than it each one is. */
export const PRIOR_DAYS = 6;
export const PRIOR_DENSITY_DIVISOR = 10;
/** The first instant of the 7 seeded days. */
/**
 * The bench application indexes the model attribute (management `indexed_attributes`, slot 1) unless
 * BENCH_INDEX_MODEL=0: the seeded rows carry the slot value as ingestion would fill it.
 */
export const INDEX_MODEL = process.env.BENCH_INDEX_MODEL !== '0';
export const MODEL_ATTRIBUTE_PATH = 'span_attributes.gen_ai.request.model';

export const FIRST_DAY_START_NS = DAY_START_NS - BigInt(PRIOR_DAYS) * DAY_NS;
const SERVICES = ['checkout', 'search', 'summarizer', 'billing', 'auth', 'catalog', 'inventory', 'gateway'];
const MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gpt-4o-mini', 'claude-haiku'];
const DB_OPERATIONS = ['SELECT', 'INSERT', 'UPDATE'];
// A prior day's traces start this long before its midnight at the latest, so that none of their
// spans (2.05 s at most after the root, plus 0.5 s of jitter) reaches into the next day.
const PRIOR_DAY_MARGIN_NS = 10_000_000_000n;

/** One day's share of the data: its traces, placed evenly over [start, start + spreadNs). */
interface DaySegment {
  startNs: bigint;
  spreadNs: bigint;
  traces: number;
  /** The index of its first trace among all seeded traces (the seed of the trace's randomness). */
  firstIndex: number;
}

export interface BenchScale {
  tracesPerDay: number;
  priorTracesPerDay: number;
  segments: DaySegment[];
  totalTraces: number;
  totalSpans: number;
}

/** The days a scale seeds: the main day first (indexes 0 … tracesPerDay - 1, as before the prior days existed), then each prior day. */
export function benchScale(tracesPerDay: number): BenchScale {
  const priorTracesPerDay = Math.max(1, Math.round(tracesPerDay / PRIOR_DENSITY_DIVISOR));
  const segments: DaySegment[] = [{ startNs: DAY_START_NS, spreadNs: DAY_NS, traces: tracesPerDay, firstIndex: 0 }];
  for (let day = 1; day <= PRIOR_DAYS; day += 1) {
    segments.push({
      startNs: DAY_START_NS - BigInt(day) * DAY_NS,
      spreadNs: DAY_NS - PRIOR_DAY_MARGIN_NS,
      traces: priorTracesPerDay,
      firstIndex: tracesPerDay + (day - 1) * priorTracesPerDay,
    });
  }
  const totalTraces = tracesPerDay + PRIOR_DAYS * priorTracesPerDay;
  return { tracesPerDay, priorTracesPerDay, segments, totalTraces, totalSpans: totalTraces * SPANS_PER_TRACE };
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hexOf(next: () => number, digits: number): string {
  let text = '';
  while (text.length < digits)
    text += Math.floor(next() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return text.slice(0, digits);
}

const EMPTY_BILLING = {
  billing_resource_type: null,
  billing_resource_name: null,
  billing_service_id: null,
  billing_service_name: null,
  billing_sku_id: null,
  billing_sku_name: null,
  billing_region: null,
  usage_amount: null,
  usage_unit: null,
};

/**
 * One request, the `position`-th trace of its day: a SERVER root, two LLM calls, four database
 * queries, two internal steps, one outbound call.
 */
function traceRows(applicationId: string, segment: DaySegment, position: number): SpanRow[] {
  const index = segment.firstIndex + position;
  const next = random(index + 1);
  const service = SERVICES[index % SERVICES.length] as string;
  const traceId = hexOf(next, 32);
  const rootId = hexOf(next, 16);
  const start = segment.startNs + (BigInt(position) * segment.spreadNs) / BigInt(segment.traces) + BigInt(Math.floor(next() * 500_000_000));
  const resource = JSON.stringify({ 'service.name': service, 'deployment.environment': 'production', 'telemetry.sdk.language': 'nodejs' });
  const rows: SpanRow[] = [];
  const add = (
    spanId: string,
    parent: string | null,
    offsetMs: number,
    durationMs: number,
    fields: Partial<SpanRow>,
    attributes: Record<string, unknown>,
  ) => {
    const begin = start + BigInt(Math.round(offsetMs * 1e6));
    const end = begin + BigInt(Math.round(durationMs * 1e6));
    rows.push({
      application_id: applicationId,
      trace_id: traceId,
      span_id: spanId,
      parent_span_id: parent,
      start_time_unix_nano: begin.toString(),
      end_time_unix_nano: end.toString(),
      duration_ms: Number(end - begin) / 1e6,
      span_name: 'span',
      span_kind: 'SPAN_KIND_INTERNAL',
      service_name: service,
      unit: null,
      parent_unit: null,
      cost: null,
      ...EMPTY_BILLING,
      ...NO_LLM_CALL,
      resource_attributes: resource,
      span_attributes: JSON.stringify(attributes),
      status_code: 'STATUS_CODE_UNSET',
      status_message: null,
      scope_name: 'bench-query',
      scope_version: '1.0.0',
      events: null,
      links: null,
      dropped_attributes_count: 0,
      dropped_events_count: 0,
      dropped_links_count: 0,
      received_at: Date.now(),
      indexed_value_1: null,
      indexed_value_2: null,
      indexed_value_3: null,
      ...fields,
    });
  };
  const failed = next() < 0.02;
  const total = 50 + next() * 2000;
  const status: Partial<SpanRow> = failed ? { status_code: 'STATUS_CODE_ERROR', status_message: 'HTTP 500' } : {};
  add(
    rootId,
    null,
    0,
    total,
    { span_name: `POST /api/${service}`, span_kind: 'SPAN_KIND_SERVER', unit: service, ...status },
    {
      'vendor.unit': service,
      'http.request.method': 'POST',
      'http.route': `/api/${service}`,
      'http.response.status_code': failed ? 500 : 200,
    },
  );
  for (let call = 0; call < 2; call += 1) {
    const model = MODELS[Math.floor(next() * MODELS.length)] as string;
    const tokens = Math.floor(100 + next() * 4000);
    const cost = tokens * 0.0000025;
    add(
      hexOf(next, 16),
      rootId,
      5 + call * total * 0.4,
      total * 0.35,
      {
        span_name: `${model}.generate_content`,
        span_kind: 'SPAN_KIND_CLIENT',
        unit: 'llm',
        parent_unit: service,
        cost,
        billing_resource_type: 'llm_generate_content',
        billing_resource_name: model,
        billing_service_id: 'vertex-ai',
        billing_sku_name: `${model} output tokens`,
        billing_region: 'europe-west4',
        usage_amount: tokens,
        usage_unit: 'tokens',
        indexed_value_1: INDEX_MODEL ? model : null,
      },
      {
        'vendor.unit': 'llm',
        'vendor.parent_unit': service,
        'vendor.cost': cost,
        'vendor.usage.amount': tokens,
        'vendor.usage.unit': 'tokens',
        'gen_ai.request.model': model,
        'gen_ai.usage.output_tokens': tokens,
      },
    );
  }
  for (let query = 0; query < 4; query += 1) {
    const operation = DB_OPERATIONS[Math.floor(next() * DB_OPERATIONS.length)] as string;
    add(
      hexOf(next, 16),
      rootId,
      1 + query * 2,
      0.5 + next() * 20,
      { span_name: `${operation} orders`, span_kind: 'SPAN_KIND_CLIENT', unit: 'db', parent_unit: service, cost: 0.000001 },
      {
        'vendor.unit': 'db',
        'db.system': 'mariadb',
        'db.operation.name': operation,
        'db.collection.name': 'orders',
      },
    );
  }
  for (let step = 0; step < 2; step += 1) {
    add(hexOf(next, 16), rootId, 2 + step, 1 + next() * 10, { span_name: `step-${step}` }, { 'step.index': step, retry: next() < 0.1 });
  }
  add(
    hexOf(next, 16),
    rootId,
    total * 0.9,
    total * 0.05,
    { span_name: 'GET https://api.partner.example/v1/rates', span_kind: 'SPAN_KIND_CLIENT', unit: 'partner-api', cost: 0.0001 },
    {
      'vendor.unit': 'partner-api',
      'http.request.method': 'GET',
      'server.address': 'api.partner.example',
      'http.response.status_code': 200,
    },
  );
  return rows;
}

/** The traces of seeding order `from` … `to - 1` (main day first, then each prior day), generated only now: memory stays one batch per writer. */
function batchRows(applicationId: string, scale: BenchScale, from: number, to: number): SpanRow[] {
  const rows: SpanRow[] = [];
  for (const segment of scale.segments) {
    const first = Math.max(from, segment.firstIndex);
    const last = Math.min(to, segment.firstIndex + segment.traces);
    for (let index = first; index < last; index += 1) rows.push(...traceRows(applicationId, segment, index - segment.firstIndex));
  }
  return rows;
}

/** Every trace of the scale through storeSpans (so the trace summaries are the real ones), 6 writers at a time, with progress on stderr. */
export async function seedSpans(knex: Knex, applicationId: string, scale: BenchScale): Promise<void> {
  const tracesPerBatch = 50;
  // About 20 progress lines whatever the scale, and no more often than every 100,000 spans.
  const every = Math.max(100_000, Math.round(scale.totalSpans / 20 / 100_000) * 100_000);
  const started = performance.now();
  let nextTrace = 0;
  let stored = 0;
  // As ingestion stores them: the rows' slot values are also filed per trace (trace_slot_values).
  const state = (await knex('applications').where({ id: applicationId }).first('indexed_attributes_state')) as {
    indexed_attributes_state: string | null;
  };
  const traceSlots = writtenSlots(parseIndexedAttributes(state.indexed_attributes_state));
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (nextTrace < scale.totalTraces) {
        const first = nextTrace;
        nextTrace += tracesPerBatch;
        const rows = batchRows(applicationId, scale, first, Math.min(first + tracesPerBatch, scale.totalTraces));
        await storeSpans(knex, rows, { traceSlots });
        stored += rows.length;
        if (stored % every < rows.length) {
          const seconds = (performance.now() - started) / 1000;
          const rate = stored / seconds;
          log(
            `  seeded ${stored} of ${scale.totalSpans} spans (${Math.round(rate)} spans/s, about ${Math.round((scale.totalSpans - stored) / rate)} s to go)`,
          );
        }
      }
    }),
  );
  await knex.raw(dialectFor(knex).name === 'sqlite' ? 'ANALYZE' : 'ANALYZE TABLE spans, traces');
}
