// The analytics cases of the query bench (scripts/bench-query.ts, issue 13): POST /engine/analytics
// beside the hand-written SQL for the same answer, and both answers in one form for the check.
//
// The hand-written SQL reads the window once: it groups the spans (traces) by key and bucket index
// `(start - window_start) DIV width` (FLOOR of the quotient, for the non-negative offsets of a
// window, as an integer), ranks the groups over the window from those cells as the endpoint does
// (the order measure descending, a missing value last, ties by key, NULL first), keeps the first
// row_limit and folds the rest into `other`. Percentiles take the values at the ranks around the
// position p × (n − 1) by ROW_NUMBER() per group and bucket, as the endpoint and POST
// /engine/metrics do (never PERCENTILE_CONT), interpolated here.
import type { AnswerValue } from './same-answer.js';
import { sqlNumber, type BenchCase, type SqlRow } from './bench-query-case.js';
import { DAY_NS, DAY_START_NS, FIRST_DAY_START_NS, HOUR_NS } from './bench-query-workload.js';

/** POST /engine/analytics's default row_limit: every case leaves it to the default. */
const ROW_LIMIT = 10;

export interface Window {
  startNs: bigint;
  endNs: bigint;
  widthNs: bigint;
}

type Point = [bucketStart: string, ...values: Array<number | null>];

interface AnalyticsAnswer {
  groups: Array<{ key: Record<string, string | null>; points: Point[] }>;
  other: Point[] | null;
  truncated: boolean;
}

function rfc3339(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function bucketStart(window: Window, bucket: unknown): string {
  return (window.startNs + BigInt(String(bucket)) * window.widthNs).toString();
}

/** The endpoint's answer; bucket starts kept as their exact digits (JSON.parse would round them to doubles). */
export function endpointAnswer(text: string): AnswerValue {
  const body = JSON.parse(text.replace(/"bucket_start_unix_nano":(-?\d+)/g, '"bucket_start_unix_nano":"$1"')) as {
    groups: Array<{ key: Record<string, string | null>; points: Array<{ bucket_start_unix_nano: string; values: Array<number | null> }> }>;
    other: { points: Array<{ bucket_start_unix_nano: string; values: Array<number | null> }> } | null;
    truncated: boolean;
  };
  const points = (list: Array<{ bucket_start_unix_nano: string; values: Array<number | null> }>): Point[] =>
    list.map((point) => [point.bucket_start_unix_nano, ...point.values]);
  const answer: AnalyticsAnswer = {
    groups: body.groups.map((group) => ({ key: group.key, points: points(group.points) })),
    other: body.other === null ? null : points(body.other.points),
    truncated: body.truncated,
  };
  return answer as unknown as AnswerValue;
}

function matchesOf(answer: AnswerValue): string {
  const { groups, other } = answer as unknown as AnalyticsAnswer;
  const points = groups.reduce((sum, group) => sum + group.points.length, 0) + (other?.length ?? 0);
  return `${groups.length} groups${other ? ' + other' : ''}, ${points} points`;
}

/** Span measures the hand-written SQL computes per cell: the count, or the sum of cost. */
type SpanMeasure = 'count' | 'sum_cost';

/**
 * Spans grain, aggregates only: the cells (key, bucket) of one scan, each group's order measure
 * summed over its cells, the groups ranked by it; the kept groups' cells, and the rest summed per bucket.
 */
/** Where the cells come from: the spans, the hourly roll-ups, or the hourly roll-ups of slot 1's values under a generation. */
type AggregateSource = 'spans' | 'rollups' | { slotGeneration: number };

export function spanAggregatesSql(
  keySql: string,
  measures: SpanMeasure[],
  orderBy: number,
  applicationId: string,
  window: Window,
  source: AggregateSource = 'spans',
  /** How the spans are read, e.g. through one index (scripts/bench-alternatives.ts). */
  spansFrom = 'spans',
): [string, unknown[]] {
  const cellColumn = (measure: SpanMeasure) => (measure === 'count' ? 'c' : 's');
  const rankBy = cellColumn(measures[orderBy] as SpanMeasure);
  const sql =
    `SELECT IF(pos <= ${ROW_LIMIT}, pos, 0) AS p, MIN(IF(pos <= ${ROW_LIMIT}, k, NULL)) AS k, b, ${measures.map((measure, index) => `SUM(${cellColumn(measure)}) AS m${index}`).join(', ')} ` +
    'FROM (SELECT k, b, c, s, DENSE_RANK() OVER (ORDER BY r IS NULL, r DESC, k) AS pos ' +
    `FROM (SELECT k, b, c, s, SUM(${rankBy}) OVER (PARTITION BY k) AS r ` +
    (source === 'spans'
      ? `FROM (SELECT ${keySql} AS k, (start_time_unix_nano - CAST(? AS SIGNED)) DIV CAST(? AS SIGNED) AS b, COUNT(*) AS c, SUM(cost) AS s ` +
        `FROM ${spansFrom} WHERE application_id = ? AND start_time_unix_nano >= CAST(? AS SIGNED) AND start_time_unix_nano < CAST(? AS SIGNED) `
      : // The hourly roll-ups (docs/analytics.md): the same cells from their per-hour counts and sums.
        `FROM (SELECT ${keySql} AS k, (bucket_start_unix_nano - CAST(? AS SIGNED)) DIV CAST(? AS SIGNED) AS b, SUM(span_count) AS c, ` +
        `CASE WHEN SUM(cost_count) > 0 THEN SUM(cost_sum) END AS s FROM ${source === 'rollups' ? 'span_rollups' : 'slot_rollups'} WHERE application_id = ? AND bucket_width_s = 3600 ` +
        (typeof source === 'object' ? `AND slot = 1 AND generation = ${source.slotGeneration} ` : '') +
        'AND bucket_start_unix_nano >= CAST(? AS SIGNED) AND bucket_start_unix_nano < CAST(? AS SIGNED) ') +
    'GROUP BY k, b) cells) totals) ranked GROUP BY p, b';
  return [sql, [window.startNs.toString(), window.widthNs.toString(), applicationId, window.startNs.toString(), window.endNs.toString()]];
}

export function spanAggregatesAnswer(field: string, window: Window, measureCount: number) {
  return (statements: SqlRow[][]): AnswerValue => {
    const rows = [...(statements[0] ?? [])].sort((a, b) => Number(a.p) - Number(b.p) || Number(a.b) - Number(b.b));
    const point = (row: SqlRow): Point => [
      bucketStart(window, row.b),
      ...Array.from({ length: measureCount }, (_, index) => sqlNumber(row[`m${index}`])),
    ];
    const groups: AnalyticsAnswer['groups'] = [];
    const other: Point[] = [];
    let position = 0;
    for (const row of rows) {
      if (Number(row.p) === 0) {
        other.push(point(row));
        continue;
      }
      if (Number(row.p) !== position) {
        position = Number(row.p);
        groups.push({ key: { [field]: keyText(row.k) }, points: [] });
      }
      (groups[groups.length - 1] as AnalyticsAnswer['groups'][number]).points.push(point(row));
    }
    const answer: AnalyticsAnswer = { groups, other: other.length > 0 ? other : null, truncated: other.length > 0 };
    return answer as unknown as AnswerValue;
  };
}

/**
 * Traces grain, count and one percentile of duration_ms: per group and bucket the values at the
 * ranks around the position, the cell's count and the group's count (to rank the groups) beside them.
 */
function tracePercentileSql(percent: number, applicationId: string, window: Window): [string, unknown[]] {
  const low = `(${percent} * (n - 1)) DIV 100`;
  const sql =
    'SELECT k, b, n, rn, v, DENSE_RANK() OVER (ORDER BY total DESC, k) AS pos ' +
    'FROM (SELECT k, b, v, ROW_NUMBER() OVER (PARTITION BY k, b ORDER BY v) - 1 AS rn, COUNT(*) OVER (PARTITION BY k, b) AS n, COUNT(*) OVER (PARTITION BY k) AS total ' +
    'FROM (SELECT t.service_name AS k, (t.root_start_time_unix_nano - CAST(? AS SIGNED)) DIV CAST(? AS SIGNED) AS b, t.duration_ms AS v FROM traces t ' +
    'WHERE t.application_id = ? AND t.root_start_time_unix_nano >= CAST(? AS SIGNED) AND t.root_start_time_unix_nano < CAST(? AS SIGNED)) d) r ' +
    `WHERE rn IN (${low}, ${low} + 1)`;
  return [sql, [window.startNs.toString(), window.widthNs.toString(), applicationId, window.startNs.toString(), window.endNs.toString()]];
}

function tracePercentileAnswer(field: string, percent: number, window: Window) {
  return (statements: SqlRow[][]): AnswerValue => {
    const cells = new Map<string, { position: number; key: string | null; bucket: number; count: number; byRank: Map<number, number> }>();
    let truncated = false;
    for (const row of statements[0] ?? []) {
      const position = Number(row.pos);
      // Groups past row_limit would need their values ranked together for `other`; none in this workload.
      if (position > ROW_LIMIT) {
        truncated = true;
        continue;
      }
      const id = `${position}:${String(row.b)}`;
      const cell = cells.get(id) ?? {
        position,
        key: keyText(row.k),
        bucket: Number(row.b),
        count: Number(row.n),
        byRank: new Map<number, number>(),
      };
      cell.byRank.set(Number(row.rn), Number(row.v));
      cells.set(id, cell);
    }
    const groups: AnalyticsAnswer['groups'] = [];
    const sorted = [...cells.values()].sort((a, b) => a.position - b.position || a.bucket - b.bucket);
    let position = 0;
    for (const cell of sorted) {
      if (cell.position !== position) {
        position = cell.position;
        groups.push({ key: { [field]: cell.key }, points: [] });
      }
      const scaled = percent * (cell.count - 1);
      const lowRank = Math.floor(scaled / 100);
      const fraction = (scaled - lowRank * 100) / 100;
      const lowValue = cell.byRank.get(lowRank) as number;
      const value = fraction === 0 ? lowValue : lowValue + fraction * ((cell.byRank.get(lowRank + 1) as number) - lowValue);
      (groups[groups.length - 1] as AnalyticsAnswer['groups'][number]).points.push([bucketStart(window, cell.bucket), cell.count, value]);
    }
    // A truncated answer has an `other` the SQL above does not compute: the check then fails, as it should.
    const answer: AnalyticsAnswer = { groups, other: truncated ? [] : null, truncated };
    return answer as unknown as AnswerValue;
  };
}

/** (e1), (e2), (f) and (g): the issue's whole-day and 7-day analytics. */
export function analyticsCases(applicationId: string, runs: number, modelGeneration: number | undefined): BenchCase[] {
  const day: Window = { startNs: DAY_START_NS, endNs: DAY_START_NS + DAY_NS, widthNs: HOUR_NS };
  const week: Window = { startNs: FIRST_DAY_START_NS, endNs: DAY_START_NS + DAY_NS, widthNs: DAY_NS };
  const query = (window: Window) => ({ start_time: rfc3339(window.startNs), end_time: rfc3339(window.endNs) });
  const countAndCost = [{ fn: 'count' }, { fn: 'sum', field: 'cost' }];
  const common = { runs, targetP95Ms: 300, ratioTarget: true };
  const modelAttribute = 'span_attributes.gen_ai.request.model';
  return [
    {
      ...common,
      name: '(e1) POST /engine/analytics, whole day, spans by billing.resource_name per hour: count, sum(cost)',
      http: {
        path: '/engine/analytics',
        query: query(day),
        body: { grain: 'spans', group_by: ['billing.resource_name'], granularity: 'hour', measures: countAndCost },
      },
      // The best hand-written SQL on this schema reads the hourly roll-ups, as the endpoint does.
      sql: [spanAggregatesSql('billing_resource_name', ['count', 'sum_cost'], 0, applicationId, day, 'rollups')],
      answers: { endpoint: endpointAnswer, sql: spanAggregatesAnswer('billing.resource_name', day, 2), matches: matchesOf },
    },
    {
      ...common,
      name: `(e2) POST /engine/analytics, whole day, spans by ${modelAttribute} per hour: count, sum(cost)`,
      http: {
        path: '/engine/analytics',
        query: query(day),
        body: { grain: 'spans', group_by: [modelAttribute], granularity: 'hour', measures: countAndCost },
      },
      // With the model indexed, the best SQL on this schema reads the hourly roll-ups per slot value
      // (docs/analytics.md), as the endpoint does; without, the spans (the attribute is a string
      // wherever present in this workload, so JSON_VALUE alone is its text form).
      sql: [
        modelGeneration === undefined
          ? spanAggregatesSql(`JSON_VALUE(span_attributes, '$."gen_ai.request.model"')`, ['count', 'sum_cost'], 0, applicationId, day)
          : spanAggregatesSql(`CASE WHEN value_kind = 1 THEN value END`, ['count', 'sum_cost'], 0, applicationId, day, {
              slotGeneration: modelGeneration,
            }),
      ],
      answers: { endpoint: endpointAnswer, sql: spanAggregatesAnswer(modelAttribute, day, 2), matches: matchesOf },
    },
    {
      ...common,
      name: '(f) POST /engine/analytics, whole day, traces by root service_name per hour: count, p95(duration_ms)',
      // A percentile cannot rank groups: they are ranked by the count beside it.
      http: {
        path: '/engine/analytics',
        query: query(day),
        body: {
          grain: 'traces',
          group_by: ['service_name'],
          granularity: 'hour',
          measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }],
          order_by: { measure: 0 },
        },
      },
      sql: [tracePercentileSql(95, applicationId, day)],
      answers: { endpoint: endpointAnswer, sql: tracePercentileAnswer('service_name', 95, day), matches: matchesOf },
    },
    {
      ...common,
      name: '(g) POST /engine/analytics, 7 days, spans by billing.sku_name per day: sum(cost)',
      http: {
        path: '/engine/analytics',
        query: query(week),
        body: { grain: 'spans', group_by: ['billing.sku_name'], granularity: 'day', measures: [{ fn: 'sum', field: 'cost' }] },
      },
      sql: [spanAggregatesSql('billing_sku_name', ['sum_cost'], 0, applicationId, week, 'rollups')],
      answers: { endpoint: endpointAnswer, sql: spanAggregatesAnswer('billing.sku_name', week, 1), matches: matchesOf },
    },
  ];
}
